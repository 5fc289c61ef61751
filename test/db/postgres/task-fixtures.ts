/**
 * Shared by the gathering-task tests of the PostgreSQL store (`claim-tasks`, `complete-tasks`,
 * `gathering-tasks`): rows, seeding, and twin calls that run each query on PostgreSQL and SQLite alike.
 *
 * Each test file mocks `newId` itself (a mock registers for the file that declares it) with a counter it
 * hands to {@link openTwins}, which resets it before each twin call.
 */
import { asc, eq } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type pg from 'pg';
import { expect, inject } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as pgQueries from '../../../src/db/postgres/queries/index.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import type { GatheredProduct, StoredFilters } from '../../../src/db/rows.js';
import { openDatabase, type SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqliteQueries from '../../../src/db/sqlite/queries/index.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';
import { type IdCounter, withSameIds } from './twin-stores.js';

const T0 = new Date('2026-11-25T10:00:00.000Z');
export const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
export const stamps = { createdAt: T0, updatedAt: T0 };
export const noFilters: StoredFilters = {
  bandwidths: [],
  networks: [],
  contractTerms: [],
  connectionTypes: [],
  technologyTypes: [],
};

export const source = (id: string) => ({
  id,
  instanceId: 'ins_a',
  key: id,
  name: id,
  network: `net ${id}`,
  type: 'catalog' as const,
  countryCodes: ['NL'],
  ...stamps,
});
export const address = (id: string) => ({
  id,
  instanceId: 'ins_a',
  inputKind: 'fields' as const,
  street: 'Damrak',
  city: 'Amsterdam',
  houseNumber: '70',
  houseNumberAddition: '',
  postalCode: '1012LM',
  countryCode: 'NL',
  continentCode: 'EU',
  latitude: 52.3759,
  longitude: 4.8965,
  coordinatesPrecision: 'address' as const,
  ...stamps,
});
export const request = (id: string, sourcesTotal: number) => ({
  id,
  instanceId: 'ins_a',
  addressId: `adr_${id}`,
  createdByUserId: null,
  customerId: null,
  projectId: null,
  pricePlanId: 'ppl_a',
  filters: noFilters,
  status: 'pending' as const,
  sourcesTotal,
  sourcesFinished: 0,
  ...stamps,
});
export const task = (
  id: number,
  availabilityRequestId: string,
  sourceId: string,
  availableAt: Date,
  more = {},
) => ({
  id,
  instanceId: 'ins_a',
  availabilityRequestId,
  sourceId,
  status: 'queued' as const,
  attempts: 0,
  availableAt,
  ...stamps,
  ...more,
});
export const product = (downloadKbps: number): GatheredProduct => ({
  network: 'KPN',
  technologyType: 'FTTH',
  connectionType: 'ETH',
  downloadKbps,
  uploadKbps: downloadKbps,
  contractTermMonths: 12,
  orderTerms: null,
  purchaseMrcMinor: 1000,
  purchaseNrcMinor: 0,
  mrcMinor: 1250,
  nrcMinor: 0,
  currency: 'EUR',
});

export type Fixtures = {
  sources: ReturnType<typeof source>[];
  requests: ReturnType<typeof request>[];
  tasks: ReturnType<typeof task>[];
};

export const planRules = [
  {
    id: 1,
    pricePlanId: 'ppl_a',
    network: 'KPN',
    technologyType: null,
    connectionType: null,
    mrcMarkupBp: 1000,
    nrcMarkupBp: 500,
  },
  {
    id: 2,
    pricePlanId: 'ppl_a',
    network: null,
    technologyType: 'FTTH',
    connectionType: 'shared',
    mrcMarkupBp: 3000,
    nrcMarkupBp: 0,
  },
];

/** The instance, its price plan, and the given sources, requests (with addresses) and tasks, table by table. */
function seedRows(fixtures: Fixtures): [PgTable, SQLiteTable, object[]][] {
  const plan = { id: 'ppl_a', instanceId: 'ins_a', name: 'Default', mrcMarkupBp: 2500, nrcMarkupBp: 0 };
  return [
    [pgSchema.instances, sqliteSchema.instances, [{ id: 'ins_a', name: 'A', code: 'AAA', ...stamps }]],
    [pgSchema.pricePlans, sqliteSchema.pricePlans, [{ ...plan, ...stamps }]],
    [pgSchema.pricePlanRules, sqliteSchema.pricePlanRules, planRules],
    [pgSchema.sources, sqliteSchema.sources, fixtures.sources],
    [pgSchema.addresses, sqliteSchema.addresses, fixtures.requests.map((r) => address(r.addressId))],
    [pgSchema.availabilityRequests, sqliteSchema.availabilityRequests, fixtures.requests],
    [pgSchema.gatheringTasks, sqliteSchema.gatheringTasks, fixtures.tasks],
  ];
}

async function seedPostgres(db: PostgresDb, fixtures: Fixtures): Promise<void> {
  for (const [table, , rows] of seedRows(fixtures)) {
    // 500 rows a statement keeps it well under PostgreSQL's 65,535 parameters.
    for (let start = 0; start < rows.length; start += 500) {
      await db.insert(table).values(rows.slice(start, start + 500) as never);
    }
  }
}

async function seedSqlite(lite: SqliteDb, fixtures: Fixtures): Promise<void> {
  for (const [, table, rows] of seedRows(fixtures)) {
    if (rows.length > 0) await lite.insert(table).values(rows as never);
  }
}

/** A fresh database with the migrations applied and `fixtures` seeded; `pools` extra independent pools. */
export async function openSeeded(fixtures: Fixtures, pools = 0) {
  const database = await createTestDatabase(inject('postgresAdminUrl'));
  const all = [openPostgresPool(database.url, 5)];
  for (let n = 0; n < pools; n++) all.push(openPostgresPool(database.url, 5));
  await migratePostgres(all[0] as pg.Pool);
  const dbs = all.map((pool) => postgresDb(pool));
  await seedPostgres(dbs[0] as PostgresDb, fixtures);
  return {
    dbs,
    pool: all[0] as pg.Pool,
    async close() {
      await Promise.all(all.map((pool) => pool.end()));
      await database.drop();
    },
  };
}

export const requestState = async (db: PostgresDb, id: string) => {
  const [row] = await db
    .select({
      status: pgSchema.availabilityRequests.status,
      sourcesFinished: pgSchema.availabilityRequests.sourcesFinished,
      updatedAt: pgSchema.availabilityRequests.updatedAt,
    })
    .from(pgSchema.availabilityRequests)
    .where(eq(pgSchema.availabilityRequests.id, id));
  return row;
};
export const taskRow = async (db: PostgresDb, id: number) =>
  (await db.select().from(pgSchema.gatheringTasks).where(eq(pgSchema.gatheringTasks.id, id)))[0];

/** What a call reports for requests whose progress it changed, in this order. */
export const changed = (...requestIds: string[]) =>
  requestIds.map((availabilityRequestId) => ({ instanceId: 'ins_a', availabilityRequestId }));

export type Twins = Awaited<ReturnType<typeof openTwins>>;

/**
 * A PostgreSQL database ({@link openSeeded}) and an in-memory SQLite one, both seeded with `fixtures`, and
 * what compares them call for call; `ids` is the counter of the test file's `newId` mock.
 */
export async function openTwins(fixtures: Fixtures, ids: IdCounter) {
  const seeded = await openSeeded(fixtures);
  const db = seeded.dbs[0] as PostgresDb;
  const lite = openDatabase(':memory:');
  const close = async () => {
    lite.$client.close();
    await seeded.close();
  };
  try {
    await seedSqlite(lite, fixtures);
  } catch (error) {
    await close();
    throw error;
  }

  /** Runs one call on both stores with the same ids; expects equal results; returns PostgreSQL's. */
  async function both<R>(
    call: (queries: typeof pgQueries, handle: PostgresDb) => Promise<R>,
    liteCall: (queries: typeof sqliteQueries, handle: SqliteDb) => Promise<R>,
  ): Promise<R> {
    const [onPostgres, onSqlite] = await withSameIds(
      ids,
      () => call(pgQueries, db),
      () => liteCall(sqliteQueries, lite),
    );
    expect(onPostgres).toEqual(onSqlite);
    return onPostgres;
  }

  /**
   * Expects both stores to hold the same tasks, requests, products and outbox events (without their ids,
   * ordered by subject and version: PostgreSQL draws the ids of one statement's events in no set order);
   * returns PostgreSQL's.
   */
  async function expectSameRows() {
    const t = pgSchema.gatheringTasks;
    const r = pgSchema.availabilityRequests;
    const p = pgSchema.availabilityRequestProducts;
    const e = pgSchema.outboxEvents;
    const le = sqliteSchema.outboxEvents;
    const withoutId = <T extends { id: number }>(rows: T[]) => rows.map(({ id: _id, ...row }) => row);
    const stored = {
      tasks: await db.select().from(t).orderBy(asc(t.id)),
      requests: await db.select().from(r).orderBy(asc(r.id)),
      products: await db.select().from(p).orderBy(asc(p.id)),
      events: withoutId(await db.select().from(e).orderBy(asc(e.subjectId), asc(e.version))),
    };
    expect(stored).toEqual({
      tasks: lite.select().from(sqliteSchema.gatheringTasks).orderBy(sqliteSchema.gatheringTasks.id).all(),
      requests: lite
        .select()
        .from(sqliteSchema.availabilityRequests)
        .orderBy(sqliteSchema.availabilityRequests.id)
        .all(),
      products: lite
        .select()
        .from(sqliteSchema.availabilityRequestProducts)
        .orderBy(sqliteSchema.availabilityRequestProducts.id)
        .all(),
      events: withoutId(lite.select().from(le).orderBy(le.subjectId, le.version).all()),
    });
    return stored;
  }

  return { db, lite, both, expectSameRows, close };
}
