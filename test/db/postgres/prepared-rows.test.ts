import { asc, count, eq, sql } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import { prepareNumber, prepareRecords } from '../../../src/db/postgres/prepared-rows.js';
import { recordColumns, recordQuery } from '../../../src/db/postgres/request-records.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';

const { addresses, availabilityRequests, instances, pricePlans } = pgSchema;
const at = new Date('2026-11-22T10:00:00.250Z');
const stamps = { createdAt: at, updatedAt: at };

let database: { url: string; drop(): Promise<void> };
let pool: pg.Pool;
let db: PostgresDb;

// One instance with two price plans and two requests: one with coordinates and filters, one with neither.
beforeAll(async () => {
  database = await createTestDatabase(inject('postgresAdminUrl'));
  pool = openPostgresPool(database.url, 2);
  await migratePostgres(pool);
  db = postgresDb(pool);
  await db.insert(instances).values({ id: 'ins_1', name: 'Rows B.V.', code: 'ROW', ...stamps });
  const plan = { instanceId: 'ins_1', mrcMarkupBp: 0, nrcMarkupBp: 0, ...stamps };
  await db.insert(pricePlans).values([
    { ...plan, id: 'ppl_1', name: 'Standard', isDefault: true },
    { ...plan, id: 'ppl_2', name: 'Partner', isDefault: false },
  ]);
  const address = {
    instanceId: 'ins_1',
    inputKind: 'fields' as const,
    street: 'Coolsingel',
    city: 'Rotterdam',
    houseNumberAddition: '',
    postalCode: '3011AD',
    countryCode: 'NL',
    continentCode: 'EU',
    ...stamps,
  };
  await db.insert(addresses).values([
    {
      ...address,
      id: 'adr_1',
      houseNumber: '40',
      latitude: 51.9225,
      longitude: 4.47917,
      coordinatesPrecision: 'city',
    },
    { ...address, id: 'adr_2', houseNumber: '41' },
  ]);
  const request = { instanceId: 'ins_1', pricePlanId: 'ppl_1', sourcesTotal: 2, ...stamps };
  await db.insert(availabilityRequests).values([
    {
      ...request,
      id: 'avr_1',
      addressId: 'adr_1',
      status: 'completed',
      filters: {
        bandwidths: [{ download: 1_000_000, upload: 500_000 }],
        networks: ['KPN'],
        contractTerms: [36],
        connectionTypes: [],
        technologyTypes: ['FTTH'],
      },
    },
    {
      ...request,
      id: 'avr_2',
      addressId: 'adr_2',
      status: 'pending',
      filters: { bandwidths: [], networks: [], contractTerms: [], connectionTypes: [], technologyTypes: [] },
    },
  ]);
});

afterAll(async () => {
  await pool.end();
  await database.drop();
});

describe('prepareRecords', () => {
  const page = () =>
    recordQuery(db)
      .where(eq(availabilityRequests.instanceId, sql.placeholder('instanceId')))
      .orderBy(asc(addresses.houseNumber));

  it('when joined records are read, then they equal what drizzle maps: Dates, canonical filters, numbers and nulls', async () => {
    const records = await prepareRecords(db, 'test_records_page', recordColumns, page()).execute({
      instanceId: 'ins_1',
    });

    expect(records).toEqual(await page().execute({ instanceId: 'ins_1' }));
    expect(records.map(({ request }) => [request.id, request.status, request.sourcesTotal])).toEqual([
      ['avr_1', 'completed', 2],
      ['avr_2', 'pending', 2],
    ]);
    const [first, second] = records;
    expect(first?.request.createdAt).toEqual(at);
    // The bandwidth in the order it was written, not jsonb's (`{upload, download}`).
    expect(JSON.stringify(first?.request.filters.bandwidths)).toBe('[{"download":1000000,"upload":500000}]');
    expect(first?.address).toMatchObject({
      houseNumber: '40',
      latitude: 51.9225,
      coordinatesPrecision: 'city',
    });
    expect(second?.address).toMatchObject({ houseNumber: '41', latitude: null, coordinatesPrecision: null });
  });

  it('when run again with other parameters, then the named statement answers for them', async () => {
    const statement = prepareRecords(db, 'test_records_again', recordColumns, page());

    expect(await statement.execute({ instanceId: 'ins_1' })).toHaveLength(2);
    expect(await statement.execute({ instanceId: 'ins_other' })).toEqual([]);
  });

  it('when keys are not identifiers (quotes, spaces, a backslash), then records carry them as written', async () => {
    const picked = {
      "the request's": {
        'id "quoted"': availabilityRequests.id,
        'created\\at': availabilityRequests.createdAt,
      },
      'an address': { 'house number': addresses.houseNumber },
    };
    const query = db
      .select(picked)
      .from(availabilityRequests)
      .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId))
      .orderBy(asc(addresses.houseNumber));

    const records = await prepareRecords(db, 'test_records_keys', picked, query).execute({});

    expect(records).toEqual(await query);
    expect(records.map((record) => record['an address'])).toEqual([
      { 'house number': '40' },
      { 'house number': '41' },
    ]);
    expect(records[0]?.["the request's"]['created\\at']).toEqual(at);
  });

  it('when the query selects other columns than the selection names, then executing it throws', async () => {
    const query = db.select({ id: pricePlans.id }).from(pricePlans);

    await expect(
      prepareRecords(db, 'test_records_width', recordColumns, query as never).execute({}),
    ).rejects.toThrow('test_records_width returned 1 columns, the selection names 18');
  });
});

describe('prepareNumber', () => {
  it('when a count is read, then it answers the number drizzle reads; a missing row or null answers null', async () => {
    const countQuery = db
      .select({ n: count() })
      .from(pricePlans)
      .where(eq(pricePlans.instanceId, sql.placeholder('instanceId')));
    const maxQuery = db
      .select({ n: sql<number>`max(${pricePlans.mrcMarkupBp})` })
      .from(pricePlans)
      .where(eq(pricePlans.instanceId, 'ins_none'));
    const noRow = db.select({ n: pricePlans.mrcMarkupBp }).from(pricePlans).where(sql`false`);
    const counted = prepareNumber(db, 'test_number_count', countQuery);

    expect(await counted.get({ instanceId: 'ins_1' })).toBe(2);
    expect(await countQuery.execute({ instanceId: 'ins_1' })).toEqual([{ n: 2 }]);
    expect(await counted.get({ instanceId: 'ins_none' })).toBe(0);
    expect(await prepareNumber(db, 'test_number_max', maxQuery).get({})).toBeNull();
    expect(await prepareNumber(db, 'test_number_none', noRow).get({})).toBeNull();
  });

  it('when the query selects more than one column, then reading it throws', async () => {
    const query = db.select({ id: pricePlans.id, name: pricePlans.name }).from(pricePlans);

    await expect(prepareNumber(db, 'test_number_width', query).get({})).rejects.toThrow(
      'test_number_width returned 2 columns, not one',
    );
  });
});
