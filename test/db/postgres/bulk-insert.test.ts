import { asc, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkInserter } from '../../../src/db/postgres/bulk-insert.js';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import { addresses, availabilityRequests, gatheringTasks } from '../../../src/db/postgres/schema/index.js';
import type { StoredFilters } from '../../../src/db/rows.js';
import { type InsertDatabase, openInsertDatabase, queuedTask } from './insert-fixtures.js';

const T0 = new Date('2026-11-25T10:00:00.123Z');
const stamps = { createdAt: T0, updatedAt: T0 };
const filters = (networks: string[]): StoredFilters => ({
  bandwidths: [{ download: 100_000, upload: 10_000 }],
  networks,
  contractTerms: [12, 36],
  connectionTypes: [],
  technologyTypes: [],
});
const address = (id: string, street: string, latitude: number | null) => ({
  id,
  instanceId: 'ins_a',
  inputKind: 'fields' as const,
  street,
  city: 'Amsterdam',
  houseNumber: '1',
  houseNumberAddition: '',
  postalCode: '1016XA',
  countryCode: 'NL',
  continentCode: 'EU',
  latitude,
  longitude: latitude === null ? null : 4.89,
  coordinatesPrecision: latitude === null ? null : ('address' as const),
  ...stamps,
});

/** A queued task created at `T1` (one Date object for all, as a batch has). */
const T1 = new Date('2026-11-25T10:30:00.000Z');
const task = (availabilityRequestId: string, sourceId: string) =>
  queuedTask(availabilityRequestId, sourceId, T1);

describe('bulkInserter (PostgreSQL): INSERT … SELECT FROM unnest', () => {
  let fixture: InsertDatabase;
  let db: PostgresDb;

  beforeAll(async () => {
    fixture = await openInsertDatabase(T0);
    db = fixture.db;
  });
  afterAll(() => fixture.close());

  it('when rows carry quotes, backslashes, commas, braces, non-ASCII text and nulls, then each is stored as given', async () => {
    const tricky = ['Keizersgracht "123"', 'C:\\pad\\naar', 'a, b {c} NULL', 'Ĳsselmeer — 🚲', ''];
    const insertAddresses = bulkInserter(addresses);

    await insertAddresses(
      db,
      tricky.map((street, index) => address(`adr_${index}`, street, index % 2 === 0 ? 52.37 : null)),
    );

    const stored = await db
      .select({
        street: addresses.street,
        latitude: addresses.latitude,
        precision: addresses.coordinatesPrecision,
      })
      .from(addresses)
      .orderBy(asc(addresses.id));
    expect(stored).toEqual(
      tricky.map((street, index) => ({
        street,
        latitude: index % 2 === 0 ? 52.37 : null,
        precision: index % 2 === 0 ? 'address' : null,
      })),
    );
  });

  it('when a jsonb column holds nested objects and a column is left out of a row, then the JSON round-trips and the JavaScript default is written', async () => {
    const insertRequests = bulkInserter(availabilityRequests);
    const rows = [
      { networks: ['KPN', 'Eurofiber "EF"'], id: 'avr_1' },
      { networks: ['back\\slash'], id: 'avr_2' },
    ].map(({ networks, id }) => ({
      id,
      instanceId: 'ins_a',
      addressId: 'adr_0',
      createdByUserId: null,
      customerId: null,
      projectId: null,
      pricePlanId: 'ppl_a',
      filters: filters(networks),
      status: 'pending' as const,
      sourcesTotal: 2,
      ...stamps,
    }));

    await insertRequests(db, rows);

    const stored = await db
      .select({
        id: availabilityRequests.id,
        filters: availabilityRequests.filters,
        sourcesFinished: availabilityRequests.sourcesFinished,
        createdAt: availabilityRequests.createdAt,
      })
      .from(availabilityRequests)
      .orderBy(asc(availabilityRequests.id));
    expect(stored).toEqual([
      { id: 'avr_1', filters: filters(['KPN', 'Eurofiber "EF"']), sourcesFinished: 0, createdAt: T0 },
      { id: 'avr_2', filters: filters(['back\\slash']), sourcesFinished: 0, createdAt: T0 },
    ]);
  });

  it('when the identity column is omitted, then ids follow the order of the rows given', async () => {
    const insertTasks = bulkInserter(gatheringTasks, ['id']);
    const given = [
      ['avr_2', 'src_b'],
      ['avr_1', 'src_b'],
      ['avr_2', 'src_a'],
      ['avr_1', 'src_a'],
    ] as const;

    await insertTasks(
      db,
      given.map(([availabilityRequestId, sourceId]) => ({
        instanceId: 'ins_a',
        availabilityRequestId,
        sourceId,
        status: 'queued' as const,
        attempts: 0,
        availableAt: T0,
        ...stamps,
      })),
    );

    const stored = await db
      .select({ request: gatheringTasks.availabilityRequestId, source: gatheringTasks.sourceId })
      .from(gatheringTasks)
      .orderBy(asc(gatheringTasks.id));
    expect(stored.map((row) => [row.request, row.source])).toEqual(given.map((pair) => [...pair]));
  });

  it('when columns hold one value in every row, then each is sent once as a scalar and every row stores it', async () => {
    const statements: { sql: string; params: unknown[] }[] = [];
    const dialect = new PgDialect({ casing: 'snake_case' });
    const recording = {
      execute: (query: SQL) => {
        statements.push(dialect.sqlToQuery(query));
        return db.execute(query);
      },
    } as Pick<PostgresDb, 'execute'>;
    const later = new Date('2026-11-25T11:00:00.000Z');
    const insertTasks = bulkInserter(gatheringTasks, ['id']);
    await db.insert(availabilityRequests).values(
      ['avr_3', 'avr_4'].map((id) => ({
        id,
        instanceId: 'ins_a',
        addressId: 'adr_0',
        pricePlanId: 'ppl_a',
        filters: filters([]),
        status: 'pending' as const,
        sourcesTotal: 2,
        ...stamps,
      })),
    );

    // availableAt: the same instant in two Date objects is two values, so it stays an array.
    await insertTasks(recording, [
      { ...task('avr_3', 'src_a'), availableAt: new Date(T0) },
      { ...task('avr_4', 'src_a'), availableAt: later },
      { ...task('avr_3', 'src_b'), availableAt: new Date(T0) },
    ]);

    expect(statements).toHaveLength(1);
    expect(statements[0]?.sql).toContain(
      'select $1::text, "availability_request_id", "source_id", $2::text, $3::integer, $4::integer, "available_at", $5::text,',
    );
    expect(statements[0]?.sql).toContain(
      'from unnest($13::text[], $14::text[], $15::timestamp (3) with time zone[]) with ordinality',
    );
    // instance, status, attempts, lease expiries, the six unset columns, created and updated: one value each.
    expect(statements[0]?.params.slice(0, 12)).toEqual([
      'ins_a',
      'queued',
      0,
      0,
      null,
      null,
      null,
      null,
      null,
      null,
      T1.toISOString(),
      T1.toISOString(),
    ]);
    const stored = await db
      .select({
        instanceId: gatheringTasks.instanceId,
        request: gatheringTasks.availabilityRequestId,
        source: gatheringTasks.sourceId,
        status: gatheringTasks.status,
        attempts: gatheringTasks.attempts,
        availableAt: gatheringTasks.availableAt,
        createdAt: gatheringTasks.createdAt,
        leaseOwner: gatheringTasks.leaseOwner,
      })
      .from(gatheringTasks)
      .where(
        sql`${gatheringTasks.availabilityRequestId} in ('avr_3', 'avr_4') and ${gatheringTasks.createdAt} = ${T1}`,
      )
      .orderBy(asc(gatheringTasks.id));
    const expected = (request: string, source: string, availableAt: Date) => ({
      instanceId: 'ins_a',
      request,
      source,
      status: 'queued',
      attempts: 0,
      availableAt,
      createdAt: T1,
      leaseOwner: null,
    });
    expect(stored).toEqual([
      expected('avr_3', 'src_a', T0),
      expected('avr_4', 'src_a', later),
      expected('avr_3', 'src_b', T0),
    ]);
  });

  it('when one row is inserted, then its first column stays an array to give the row count', async () => {
    const statements: string[] = [];
    const dialect = new PgDialect({ casing: 'snake_case' });
    const insertAddresses = bulkInserter(addresses);

    await insertAddresses(
      {
        execute: (query: SQL) => {
          statements.push(dialect.sqlToQuery(query).sql);
          return db.execute(query);
        },
      } as Pick<PostgresDb, 'execute'>,
      [address('adr_single', 'Rokin', 52.37)],
    );

    expect(statements[0]).toMatch(/from unnest\(\$\d+::text\[\]\) with ordinality as t\("id", ordinality\)/);
    const [stored] = await db.select().from(addresses).where(sql`${addresses.id} = 'adr_single'`);
    expect(stored).toEqual(address('adr_single', 'Rokin', 52.37));
  });

  it('when a row breaks a constraint inside a transaction, then none of the rows is written', async () => {
    const insertAddresses = bulkInserter(addresses);
    const before = await db.execute(sql`select count(*)::int as n from addresses`);

    await expect(
      db.transaction(async (tx) => {
        await insertAddresses(tx, [address('adr_new', 'Damrak', 52.37), address('adr_0', 'Duplicate', null)]);
      }),
    ).rejects.toMatchObject({ cause: { code: '23505', constraint: 'addresses_pkey' } });

    const after = await db.execute(sql`select count(*)::int as n from addresses`);
    expect(after.rows).toEqual(before.rows);
  });

  it('when a written column has an SQL default, then the inserter refuses to be made', () => {
    expect(() => bulkInserter(gatheringTasks)).toThrow(/gathering_tasks\.id has an SQL default/);
  });
});
