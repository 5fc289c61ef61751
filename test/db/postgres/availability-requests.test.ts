import { eq, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as pgQueries from '../../../src/db/postgres/queries/index.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import type { NewAvailabilityRequest, StoredFilters } from '../../../src/db/rows.js';
import { openDatabase, type SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqliteQueries from '../../../src/db/sqlite/queries/index.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import { createLinguisticDatabase } from '../../helpers/postgres-server.js';

const T0 = new Date('2026-10-30T08:00:00.000Z');
const T1 = new Date('2026-11-02T09:30:00.123Z');
const T2 = new Date('2026-11-20T12:00:00.456Z');
const NOW = new Date('2026-11-25T10:00:00.789Z');
const MONTH_START = new Date('2026-11-01T00:00:00.000Z');
const stamps = (at: Date) => ({ createdAt: at, updatedAt: at });
const noFilters: StoredFilters = {
  bandwidths: [],
  networks: [],
  contractTerms: [],
  connectionTypes: [],
  technologyTypes: [],
};

const address = (id: string, instanceId: string, street: string, at: Date) => ({
  id,
  instanceId,
  inputKind: 'fields' as const,
  street,
  city: 'Amsterdam',
  houseNumber: '1',
  houseNumberAddition: '',
  postalCode: '1016XA',
  countryCode: 'NL',
  continentCode: 'EU',
  latitude: 52.37,
  longitude: 4.89,
  coordinatesPrecision: 'address' as const,
  ...stamps(at),
});
const request = (id: string, instanceId: string, customerId: string | null, at: Date, sourcesTotal = 0) => ({
  id,
  instanceId,
  addressId: `adr_${id}`,
  createdByUserId: 'usr_a',
  customerId,
  projectId: null,
  pricePlanId: instanceId === 'ins_a' ? 'ppl_a' : 'ppl_b',
  filters: { ...noFilters, networks: [id] },
  status: sourcesTotal === 0 ? ('completed' as const) : ('pending' as const),
  sourcesTotal,
  sourcesFinished: 0,
  ...stamps(at),
});
const customer = (id: string, sequence: number, limit: number | null) => ({
  id,
  instanceId: 'ins_a',
  autoSequence: sequence,
  name: id,
  nameFolded: id,
  monthlyAvailabilityRequestLimit: limit,
  pricePlanId: 'ppl_a',
  accountManagerUserId: 'usr_a',
  ...stamps(T0),
});
const source = (id: string, network: string, name: string) => ({
  id,
  instanceId: 'ins_a',
  key: id,
  name,
  network,
  type: 'catalog' as const,
  countryCodes: ['NL'],
  ...stamps(T0),
});
const task = (id: number, availabilityRequestId: string, sourceId: string, status: string, attempts = 0) => ({
  id,
  instanceId: 'ins_a',
  availabilityRequestId,
  sourceId,
  status,
  attempts,
  availableAt: T1,
  errorCode: status === 'failed' ? 'TIMEOUT' : null,
  errorMessage: status === 'failed' ? 'no answer within 10 s' : null,
  ...stamps(T1),
});
const product = (id: string, requestId: string, taskId: number, network: string, more: object = {}) => ({
  id,
  instanceId: 'ins_a',
  availabilityRequestId: requestId,
  gatheringTaskId: taskId,
  sourceId: 'src_kpn_wba',
  network,
  technologyType: 'FTTH',
  connectionType: 'business',
  downloadKbps: 100_000,
  uploadKbps: 100_000,
  contractTermMonths: 12,
  purchaseMrcMinor: 1000,
  purchaseNrcMinor: 0,
  mrcMinor: 1250,
  nrcMinor: 0,
  currency: 'EUR',
  createdAt: T1,
  ...more,
});

// Ids and names whose bytewise order differs from a linguistic one (`Z` < `_` < `a` in bytes; en-US puts
// `a` before `Z` and `eurofiber` before `Eurofiber`). Seeded task ids stay far above the identity's range.
const seededRequests = [
  request('avr_a1', 'ins_a', 'cus_a', T1, 4),
  request('avr_Z9', 'ins_a', null, T1),
  request('avr_b3', 'ins_a', 'cus_b', T1, 1),
  request('avr_B2', 'ins_a', 'cus_a', T1),
  request('avr_c4', 'ins_a', 'cus_a', T0),
  request('avr_d5', 'ins_a', 'cus_b', T2),
  request('avr_e6', 'ins_a', 'cus_c', T2),
  request('avr_f7', 'ins_b', null, T2),
];
const fixtures: [PgTable, SQLiteTable, object[]][] = [
  [
    pgSchema.instances,
    sqliteSchema.instances,
    [
      { id: 'ins_a', name: 'A', code: 'AAA', ...stamps(T0) },
      { id: 'ins_b', name: 'B', code: 'BBB', ...stamps(T0) },
    ],
  ],
  [
    pgSchema.users,
    sqliteSchema.users,
    [
      {
        id: 'usr_a',
        instanceId: 'ins_a',
        email: 'a@a.example',
        firstName: 'A',
        lastName: 'A',
        ...stamps(T0),
      },
    ],
  ],
  [
    pgSchema.pricePlans,
    sqliteSchema.pricePlans,
    [
      {
        id: 'ppl_a',
        instanceId: 'ins_a',
        name: 'Default',
        isDefault: true,
        mrcMarkupBp: 2500,
        nrcMarkupBp: 0,
        ...stamps(T0),
      },
      {
        id: 'ppl_b',
        instanceId: 'ins_b',
        name: 'Default',
        isDefault: true,
        mrcMarkupBp: 2500,
        nrcMarkupBp: 0,
        ...stamps(T0),
      },
    ],
  ],
  [
    pgSchema.customers,
    sqliteSchema.customers,
    [
      customer('cus_a', 1, 3),
      customer('cus_b', 2, null),
      customer('cus_c', 3, null),
      customer('cus_limited', 4, 50),
      customer('cus_x', 5, 30),
      customer('cus_y', 6, 30),
    ],
  ],
  [
    pgSchema.sources,
    sqliteSchema.sources,
    [
      source('src_kpn_wba', 'KPN', 'KPN WBA'),
      source('src_ef', 'Eurofiber', 'Eurofiber NL'),
      source('src_lc', 'eurofiber', 'alpha'),
      source('src_kpn_glas', 'KPN', 'KPN glas'),
    ],
  ],
  [
    pgSchema.addresses,
    sqliteSchema.addresses,
    seededRequests.map((r) => address(r.addressId, r.instanceId, `Street ${r.id}`, r.createdAt)),
  ],
  [pgSchema.availabilityRequests, sqliteSchema.availabilityRequests, seededRequests],
  [
    pgSchema.gatheringTasks,
    sqliteSchema.gatheringTasks,
    [
      task(1_000_001, 'avr_a1', 'src_kpn_wba', 'succeeded', 1),
      task(1_000_002, 'avr_a1', 'src_ef', 'failed', 3),
      task(1_000_003, 'avr_a1', 'src_lc', 'queued'),
      task(1_000_004, 'avr_a1', 'src_kpn_glas', 'running', 1),
      task(1_000_005, 'avr_b3', 'src_kpn_wba', 'succeeded', 1),
    ],
  ],
  [
    pgSchema.availabilityRequestProducts,
    sqliteSchema.availabilityRequestProducts,
    [
      product('prd_a', 'avr_a1', 1_000_001, 'KPN'),
      product('prd_Z', 'avr_a1', 1_000_001, 'KPN'),
      product('prd_m', 'avr_a1', 1_000_001, 'KPN', { downloadKbps: 50_000 }),
      product('prd_k', 'avr_a1', 1_000_001, 'KPN', { technologyType: 'FTTB' }),
      product('prd_l', 'avr_a1', 1_000_001, 'kpn'),
      product('prd_n', 'avr_b3', 1_000_005, 'KPN', { contractTermMonths: 36 }),
      product('prd_o', 'avr_b3', 1_000_005, 'KPN', { connectionType: 'Business' }),
    ],
  ],
];

const newElement = (
  customerId: string | null,
  sourceIds: string[],
  street = 'Damrak',
): NewAvailabilityRequest => ({
  address: {
    inputKind: 'fields',
    street,
    city: 'Amsterdam',
    houseNumber: '70',
    houseNumberAddition: 'A',
    postalCode: '1012LM',
    countryCode: 'NL',
    continentCode: 'EU',
    latitude: 52.3759,
    longitude: 4.8965,
    coordinatesPrecision: 'address',
  },
  filters: { ...noFilters, contractTerms: [12] },
  customerId,
  projectId: null,
  pricePlanId: 'ppl_a',
  sourceIds,
});

describe('availability requests on PostgreSQL', () => {
  let database: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  let db: PostgresDb;
  let lite: SqliteDb;
  const rowCount = async (table: string, where = 'true') =>
    (await pool.query(`SELECT count(*)::int AS n FROM "${table}" WHERE ${where}`)).rows[0].n as number;

  beforeAll(async () => {
    database = await createLinguisticDatabase(inject('postgresAdminUrl'));
    pool = openPostgresPool(database.url, 20);
    await migratePostgres(pool);
    db = postgresDb(pool);
    lite = openDatabase(':memory:');
    for (const [pgTable, sqliteTable, rows] of fixtures) {
      await db.insert(pgTable).values(rows as never);
      await lite.insert(sqliteTable).values(rows as never);
    }
  });

  afterAll(async () => {
    await pool?.end();
    lite?.$client.close();
    await database?.drop();
  });

  it('when a request is looked up, then its shown columns come back, and nothing for another instance', async () => {
    const found = await pgQueries.findAvailabilityRequest(db, 'ins_a', 'avr_a1');
    expect(found).toEqual({
      request: {
        id: 'avr_a1',
        filters: { ...noFilters, networks: ['avr_a1'] },
        status: 'pending',
        sourcesTotal: 4,
        sourcesFinished: 0,
        createdAt: T1,
        updatedAt: T1,
      },
      address: {
        id: 'adr_avr_a1',
        street: 'Street avr_a1',
        city: 'Amsterdam',
        houseNumber: '1',
        houseNumberAddition: '',
        postalCode: '1016XA',
        countryCode: 'NL',
        continentCode: 'EU',
        latitude: 52.37,
        longitude: 4.89,
        coordinatesPrecision: 'address',
      },
    });
    expect(found).toEqual(await sqliteQueries.findAvailabilityRequest(lite, 'ins_a', 'avr_a1'));
    expect(await pgQueries.findAvailabilityRequest(db, 'ins_b', 'avr_a1')).toBeUndefined();
    expect(await pgQueries.findAvailabilityRequest(db, 'ins_a', 'avr_missing')).toBeUndefined();
  });

  it('when requests are looked up by ids across instances, then each found one comes back once, as SQLite returns it', async () => {
    const ids = ['avr_a1', 'avr_missing', 'avr_B2', 'avr_a1'];
    const byId = (records: { request: { id: string } }[]) =>
      [...records].sort((a, b) => (a.request.id < b.request.id ? -1 : 1));
    const found = byId(await pgQueries.findAvailabilityRequestsById(db, ids));

    expect(found.map((record) => record.request.id)).toEqual(['avr_B2', 'avr_a1']);
    expect(found[1]).toEqual(await pgQueries.findAvailabilityRequest(db, 'ins_a', 'avr_a1'));
    expect(found).toEqual(byId(await sqliteQueries.findAvailabilityRequestsById(lite, ids)));
    const otherInstance = await pgQueries.findAvailabilityRequestsById(db, ['avr_a1', 'avr_f7']);
    expect(otherInstance.map((record) => record.request.id).sort()).toEqual(['avr_a1', 'avr_f7']);
    expect(await pgQueries.findAvailabilityRequestsById(db, [])).toEqual([]);
    expect(await sqliteQueries.findAvailabilityRequestsById(lite, [])).toEqual([]);
  });

  it('when requests are counted, listed, paged and sliced, then the values and order are SQLite’s (bytewise ids)', async () => {
    const ids = (records: { request: { id: string } }[]) => records.map((record) => record.request.id);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_a')).toBe(7);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_a', 'cus_a')).toBe(3);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_a', '')).toBe(7);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_b', 'cus_a')).toBe(0);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_missing')).toBe(0);

    const newestFirst = ['avr_e6', 'avr_d5', 'avr_b3', 'avr_a1', 'avr_Z9', 'avr_B2', 'avr_c4'];
    expect(ids(await pgQueries.listAvailabilityRequestsPage(db, 'ins_a', { offset: 0, limit: 10 }))).toEqual(
      newestFirst,
    );
    expect(ids(await pgQueries.listAvailabilityRequestsPage(db, 'ins_a', { offset: 2, limit: 3 }))).toEqual(
      newestFirst.slice(2, 5),
    );
    for (const page of [
      { offset: 0, limit: 10 },
      { offset: 3, limit: 2 },
      { offset: 9, limit: 2 },
    ]) {
      expect(await pgQueries.listAvailabilityRequestsPage(db, 'ins_a', page)).toEqual(
        await sqliteQueries.listAvailabilityRequestsPage(lite, 'ins_a', page),
      );
    }

    const older = await pgQueries.sliceAvailabilityRequests(db, 'ins_a', {
      from: { createdAt: T1, id: 'avr_a1' },
      direction: 'older',
      limit: 10,
    });
    expect(ids(older)).toEqual(['avr_Z9', 'avr_B2', 'avr_c4']);
    const newer = await pgQueries.sliceAvailabilityRequests(db, 'ins_a', {
      from: { createdAt: T1, id: 'avr_Z9' },
      direction: 'newer',
      limit: 3,
    });
    expect(ids(newer)).toEqual(['avr_a1', 'avr_b3', 'avr_d5']);
    const froms = [
      null,
      { createdAt: T1, id: 'avr_a1' },
      { createdAt: T1, id: 'avr_Z9' },
      { createdAt: T2, id: 'avr_d5' },
    ];
    for (const from of froms) {
      for (const direction of ['older', 'newer'] as const) {
        for (const customerId of [undefined, null, 'cus_a', 'cus_b']) {
          for (const limit of [1, 2, 10]) {
            const slice = { from, direction, limit, customerId };
            expect(await pgQueries.sliceAvailabilityRequests(db, 'ins_a', slice)).toEqual(
              await sqliteQueries.sliceAvailabilityRequests(lite, 'ins_a', slice),
            );
          }
        }
      }
    }
  });

  it('when source outcomes and products are batch-loaded, then their values and order are SQLite’s', async () => {
    const outcomes = await pgQueries.listSourceOutcomes(db, 'ins_a', ['avr_b3', 'avr_a1', 'avr_f7']);
    expect(outcomes).toEqual([
      {
        availabilityRequestId: 'avr_a1',
        sourceId: 'src_ef',
        sourceName: 'Eurofiber NL',
        network: 'Eurofiber',
        status: 'failed',
        attempts: 3,
        errorCode: 'TIMEOUT',
        errorMessage: 'no answer within 10 s',
        productCount: 0,
      },
      expect.objectContaining({ availabilityRequestId: 'avr_a1', sourceId: 'src_kpn_wba', productCount: 5 }),
      expect.objectContaining({ availabilityRequestId: 'avr_b3', sourceId: 'src_kpn_wba', productCount: 2 }),
      expect.objectContaining({
        availabilityRequestId: 'avr_a1',
        sourceId: 'src_kpn_glas',
        status: 'running',
      }),
      expect.objectContaining({ availabilityRequestId: 'avr_a1', sourceId: 'src_lc', network: 'eurofiber' }),
    ]);
    expect(outcomes).toEqual(
      await sqliteQueries.listSourceOutcomes(lite, 'ins_a', ['avr_b3', 'avr_a1', 'avr_f7']),
    );
    expect(await pgQueries.listSourceOutcomes(db, 'ins_b', ['avr_a1'])).toEqual([]);
    expect(await pgQueries.listSourceOutcomes(db, 'ins_a', [])).toEqual([]);

    const products = await pgQueries.listProductsOfRequests(db, 'ins_a', ['avr_a1', 'avr_b3']);
    expect(products.map((row) => row.id)).toEqual([
      'prd_k',
      'prd_o',
      'prd_m',
      'prd_Z',
      'prd_a',
      'prd_n',
      'prd_l',
    ]);
    expect(products[0]).toEqual(product('prd_k', 'avr_a1', 1_000_001, 'KPN', { technologyType: 'FTTB' }));
    expect(products).toEqual(await sqliteQueries.listProductsOfRequests(lite, 'ins_a', ['avr_a1', 'avr_b3']));
    expect(await pgQueries.listProductsOfRequests(db, 'ins_b', ['avr_a1'])).toEqual([]);
    expect(await pgQueries.listProductsOfRequests(db, 'ins_a', [])).toEqual([]);
  });

  it('when customers’ latest requests and counts are read, then they are SQLite’s', async () => {
    const customerIds = ['cus_c', 'cus_a', 'cus_b', 'cus_none'];
    const latest = await pgQueries.listLatestRequestsOfCustomers(db, 'ins_a', customerIds, 2);
    expect(latest.map((record) => [record.customerId, record.request.id])).toEqual([
      ['cus_c', 'avr_e6'],
      ['cus_b', 'avr_d5'],
      ['cus_b', 'avr_b3'],
      ['cus_a', 'avr_a1'],
      ['cus_a', 'avr_B2'],
    ]);
    expect(latest).toEqual(await sqliteQueries.listLatestRequestsOfCustomers(lite, 'ins_a', customerIds, 2));
    expect(await pgQueries.listLatestRequestsOfCustomers(db, 'ins_a', [], 2)).toEqual([]);

    const counts = await pgQueries.countRequestsOfCustomers(db, 'ins_a', customerIds);
    expect([...counts]).toEqual([
      ['cus_a', 3],
      ['cus_b', 2],
      ['cus_c', 1],
    ]);
    expect([...counts]).toEqual([
      ...(await sqliteQueries.countRequestsOfCustomers(lite, 'ins_a', customerIds)),
    ]);
    expect(await pgQueries.countRequestsOfCustomers(db, 'ins_a', [])).toEqual(new Map());
  });

  it('when a batch is created, then its addresses, requests and queued tasks are written as SQLite writes them', async () => {
    const input = {
      instanceId: 'ins_a',
      userId: 'usr_a',
      now: NOW,
      requests: [
        newElement('cus_b', ['src_ef', 'src_kpn_wba'], 'First'),
        newElement(null, [], 'Second'),
        newElement('cus_c', ['src_lc'], 'Third'),
      ],
      limits: [],
      monthStart: MONTH_START,
    };
    const result = await pgQueries.insertAvailabilityRequests(db, input);
    if (!('records' in result)) throw new Error('expected records');
    const [first, second, third] = result.records;
    expect(first).toEqual({
      request: {
        id: expect.stringMatching(/^avr_[0-9a-z]{26}$/),
        instanceId: 'ins_a',
        addressId: first?.address.id,
        createdByUserId: 'usr_a',
        customerId: 'cus_b',
        projectId: null,
        pricePlanId: 'ppl_a',
        filters: { ...noFilters, contractTerms: [12] },
        status: 'pending',
        sourcesTotal: 2,
        sourcesFinished: 0,
        createdAt: NOW,
        updatedAt: NOW,
      },
      address: {
        id: expect.stringMatching(/^adr_[0-9a-z]{26}$/),
        instanceId: 'ins_a',
        ...newElement(null, [], 'First').address,
        createdAt: NOW,
        updatedAt: NOW,
      },
    });
    expect(second?.request).toMatchObject({ status: 'completed', sourcesTotal: 0, customerId: null });
    expect(third?.request).toMatchObject({ status: 'pending', sourcesTotal: 1, customerId: 'cus_c' });

    // Stored exactly as returned, and as SQLite returns the same batch (ids aside).
    for (const record of result.records) {
      const [storedRequest] = await db
        .select()
        .from(pgSchema.availabilityRequests)
        .where(eq(pgSchema.availabilityRequests.id, record.request.id));
      const [storedAddress] = await db
        .select()
        .from(pgSchema.addresses)
        .where(eq(pgSchema.addresses.id, record.address.id));
      expect(storedRequest).toEqual(record.request);
      expect(storedAddress).toEqual(record.address);
    }
    const liteResult = await sqliteQueries.insertAvailabilityRequests(lite, input);
    const withoutIds = (records: typeof result.records) =>
      records.map(({ request, address }) => ({
        request: { ...request, id: '', addressId: '' },
        address: { ...address, id: '' },
      }));
    if (!('records' in liteResult)) throw new Error('expected records');
    expect(withoutIds(result.records)).toEqual(withoutIds(liteResult.records));

    const tasks = await db
      .select({
        id: pgSchema.gatheringTasks.id,
        requestId: pgSchema.gatheringTasks.availabilityRequestId,
        sourceId: pgSchema.gatheringTasks.sourceId,
        status: pgSchema.gatheringTasks.status,
        attempts: pgSchema.gatheringTasks.attempts,
        availableAt: pgSchema.gatheringTasks.availableAt,
        leaseOwner: pgSchema.gatheringTasks.leaseOwner,
        finishedAt: pgSchema.gatheringTasks.finishedAt,
        createdAt: pgSchema.gatheringTasks.createdAt,
      })
      .from(pgSchema.gatheringTasks)
      .where(
        sql`${pgSchema.gatheringTasks.availabilityRequestId} in (${first?.request.id}, ${third?.request.id})`,
      )
      .orderBy(pgSchema.gatheringTasks.id);
    const queued = {
      status: 'queued',
      attempts: 0,
      availableAt: NOW,
      leaseOwner: null,
      finishedAt: null,
      createdAt: NOW,
    };
    expect(tasks.map(({ id: _, ...rest }) => rest)).toEqual([
      { requestId: first?.request.id, sourceId: 'src_ef', ...queued },
      { requestId: first?.request.id, sourceId: 'src_kpn_wba', ...queued },
      { requestId: third?.request.id, sourceId: 'src_lc', ...queued },
    ]);
    expect(await pgQueries.findAvailabilityRequest(db, 'ins_a', second?.request.id ?? '')).toMatchObject({
      request: { status: 'completed' },
      address: { street: 'Second' },
    });
    expect(await pgQueries.insertAvailabilityRequests(db, { ...input, requests: [] })).toEqual({
      records: [],
    });
  });

  it('when one element of a batch cannot be written, then nothing of the batch is', async () => {
    const before = [
      await rowCount('addresses'),
      await rowCount('availability_requests'),
      await rowCount('gathering_tasks'),
    ];
    await expect(
      pgQueries.insertAvailabilityRequests(db, {
        instanceId: 'ins_a',
        userId: null,
        now: NOW,
        requests: [newElement(null, ['src_ef']), newElement(null, ['src_missing'])],
      }),
    ).rejects.toThrow();
    expect([
      await rowCount('addresses'),
      await rowCount('availability_requests'),
      await rowCount('gathering_tasks'),
    ]).toEqual(before);
  });

  it('when a batch would exceed a customer’s monthly limit, then the first exceeded limit comes back and nothing is written', async () => {
    // cus_a: avr_a1 and avr_B2 this month (avr_c4 was last month), a limit of 3.
    const input = (requested: number) => ({
      instanceId: 'ins_a',
      userId: 'usr_a',
      now: NOW,
      requests: Array.from({ length: requested }, () => newElement('cus_a', ['src_ef'])),
      limits: [
        { customerId: 'cus_b', limit: 100, requested: 0 },
        { customerId: 'cus_a', limit: 3, requested },
        { customerId: 'cus_c', limit: 0, requested: 1 },
      ],
      monthStart: MONTH_START,
    });
    const before = await rowCount('availability_requests');
    const exceeded = await pgQueries.insertAvailabilityRequests(db, input(2));
    expect(exceeded).toEqual({ exceeded: { customerId: 'cus_a', limit: 3, used: 2, requested: 2 } });
    expect(exceeded).toEqual(await sqliteQueries.insertAvailabilityRequests(lite, input(2)));
    expect(await rowCount('availability_requests')).toBe(before);
    // Without monthStart the month starts now: nothing counted yet.
    const { monthStart: _, ...fromNow } = input(2);
    const created = await pgQueries.insertAvailabilityRequests(db, {
      ...fromNow,
      limits: fromNow.limits.slice(0, 2),
    });
    expect('records' in created && created.records.length).toBe(2);
  });

  it('when 200 single-request creates for a customer with a limit of 50 race through a pool, then exactly 50 are created', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 200 }, () =>
        pgQueries.insertAvailabilityRequests(db, {
          instanceId: 'ins_a',
          userId: 'usr_a',
          now: NOW,
          requests: [newElement('cus_limited', ['src_kpn_wba'])],
          limits: [{ customerId: 'cus_limited', limit: 50, requested: 1 }],
          monthStart: MONTH_START,
        }),
      ),
    );
    const created = attempts.filter((attempt) => 'records' in attempt);
    const refused = attempts.flatMap((attempt) => ('exceeded' in attempt ? [attempt.exceeded] : []));
    expect(created).toHaveLength(50);
    expect(refused).toHaveLength(150);
    expect(new Set(refused.map((exceeded) => JSON.stringify(exceeded)))).toEqual(
      new Set([JSON.stringify({ customerId: 'cus_limited', limit: 50, requested: 1, used: 50 })]),
    );
    expect(await rowCount('availability_requests', `customer_id = 'cus_limited'`)).toBe(50);
    expect(await pgQueries.countAvailabilityRequests(db, 'ins_a', 'cus_limited')).toBe(50);
  });

  it('when batches for two limited customers race with their limits in either order, then neither limit is passed and none deadlocks', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 100 }, (_, index) => {
        const limits = [
          { customerId: 'cus_x', limit: 30, requested: 1 },
          { customerId: 'cus_y', limit: 30, requested: 1 },
        ];
        return pgQueries.insertAvailabilityRequests(db, {
          instanceId: 'ins_a',
          userId: 'usr_a',
          now: NOW,
          requests: [newElement('cus_x', ['src_ef']), newElement('cus_y', ['src_lc'])],
          limits: index % 2 === 0 ? limits : limits.reverse(),
          monthStart: MONTH_START,
        });
      }),
    );
    expect(attempts.filter((attempt) => 'records' in attempt)).toHaveLength(30);
    expect(await rowCount('availability_requests', `customer_id = 'cus_x'`)).toBe(30);
    expect(await rowCount('availability_requests', `customer_id = 'cus_y'`)).toBe(30);
  });

  it('when 1,000 creates without a limit race through a pool, then exactly 1,000 requests and their tasks are written', async () => {
    const before = [
      await rowCount('availability_requests'),
      await rowCount('gathering_tasks'),
      await rowCount('addresses'),
    ];
    const attempts = await Promise.all(
      Array.from({ length: 1000 }, (_, index) =>
        pgQueries.insertAvailabilityRequests(db, {
          instanceId: 'ins_a',
          userId: 'usr_a',
          now: NOW,
          requests: [newElement(index % 2 === 0 ? 'cus_b' : null, index % 3 === 0 ? [] : ['src_kpn_glas'])],
          limits: [],
          monthStart: MONTH_START,
        }),
      ),
    );
    expect(attempts.every((attempt) => 'records' in attempt && attempt.records.length === 1)).toBe(true);
    const withTasks = Array.from({ length: 1000 }, (_, index) => index).filter(
      (index) => index % 3 !== 0,
    ).length;
    expect([
      await rowCount('availability_requests'),
      await rowCount('gathering_tasks'),
      await rowCount('addresses'),
    ]).toEqual([(before[0] ?? 0) + 1000, (before[1] ?? 0) + withTasks, (before[2] ?? 0) + 1000]);
  });
});
