import { asc, eq } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
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

// Deterministic, ascending ids (reset before each twin call), so both stores' results compare equal.
const ids = vi.hoisted(() => ({ next: 0 }));
vi.mock('../../../src/ids.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../../src/ids.js')>();
  return {
    ...original,
    newId: (kind: keyof typeof original.idPrefixes) =>
      `${original.idPrefixes[kind]}_${String(++ids.next).padStart(6, '0')}`,
  };
});

const T0 = new Date('2026-11-25T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const stamps = { createdAt: T0, updatedAt: T0 };
const noFilters: StoredFilters = {
  bandwidths: [],
  networks: [],
  contractTerms: [],
  connectionTypes: [],
  technologyTypes: [],
};

const source = (id: string) => ({
  id,
  instanceId: 'ins_a',
  key: id,
  name: id,
  network: `net ${id}`,
  type: 'catalog' as const,
  countryCodes: ['NL'],
  ...stamps,
});
const address = (id: string) => ({
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
const request = (id: string, sourcesTotal: number) => ({
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
const task = (id: number, availabilityRequestId: string, sourceId: string, availableAt: Date, more = {}) => ({
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
const product = (downloadKbps: number): GatheredProduct => ({
  network: 'KPN',
  technologyType: 'FTTH',
  connectionType: 'ETH',
  downloadKbps,
  uploadKbps: downloadKbps,
  contractTermMonths: 12,
  purchaseMrcMinor: 1000,
  purchaseNrcMinor: 0,
  mrcMinor: 1250,
  nrcMinor: 0,
  currency: 'EUR',
});

type Fixtures = {
  sources: ReturnType<typeof source>[];
  requests: ReturnType<typeof request>[];
  tasks: ReturnType<typeof task>[];
};

const planRules = [
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

/** The instance, its price plan, and the given sources, requests (with addresses) and tasks. */
async function seedPostgres(db: PostgresDb, fixtures: Fixtures): Promise<void> {
  await db.insert(pgSchema.instances).values({ id: 'ins_a', name: 'A', code: 'AAA', ...stamps });
  await db.insert(pgSchema.pricePlans).values({
    id: 'ppl_a',
    instanceId: 'ins_a',
    name: 'Default',
    mrcMarkupBp: 2500,
    nrcMarkupBp: 0,
    ...stamps,
  });
  await db.insert(pgSchema.pricePlanRules).values(planRules);
  await db.insert(pgSchema.sources).values(fixtures.sources);
  await db.insert(pgSchema.addresses).values(fixtures.requests.map((r) => address(r.addressId)));
  await db.insert(pgSchema.availabilityRequests).values(fixtures.requests);
  for (let start = 0; start < fixtures.tasks.length; start += 500) {
    await db.insert(pgSchema.gatheringTasks).values(fixtures.tasks.slice(start, start + 500));
  }
}

/** A fresh database with the migrations applied and `fixtures` seeded; `pools` extra independent pools. */
async function openSeeded(fixtures: Fixtures, pools = 0) {
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

const requestState = async (db: PostgresDb, id: string) => {
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
const taskRow = async (db: PostgresDb, id: number) =>
  (await db.select().from(pgSchema.gatheringTasks).where(eq(pgSchema.gatheringTasks.id, id)))[0];

describe('gathering tasks on PostgreSQL, call for call as on SQLite', () => {
  // Request ids whose byte order (`Y` < `x`) differs from a linguistic one, inserted in that order (SQLite
  // returns updated requests in insertion order, which is id order for the ids `newId` makes).
  const fixtures: Fixtures = {
    sources: [source('src_a'), source('src_B'), source('src_c')],
    requests: [request('avr_Y', 2), request('avr_x', 3), request('avr_z', 1)],
    tasks: [
      task(1, 'avr_x', 'src_a', at(5)),
      task(2, 'avr_x', 'src_B', at(0)),
      task(3, 'avr_x', 'src_c', at(60)),
      task(4, 'avr_Y', 'src_a', at(0)),
      task(5, 'avr_Y', 'src_B', at(1)),
      task(6, 'avr_z', 'src_a', at(2)),
    ],
  };
  let seeded: Awaited<ReturnType<typeof openSeeded>>;
  let db: PostgresDb;
  let lite: SqliteDb;

  /** Runs one call on both stores with the same ids; expects equal results; returns PostgreSQL's. */
  async function both<R>(
    call: (queries: typeof pgQueries, handle: PostgresDb) => Promise<R>,
    liteCall: (queries: typeof sqliteQueries, handle: SqliteDb) => Promise<R>,
  ): Promise<R> {
    const start = ids.next;
    const onPostgres = await call(pgQueries, db);
    ids.next = start;
    const onSqlite = await liteCall(sqliteQueries, lite);
    expect(onPostgres).toEqual(onSqlite);
    return onPostgres;
  }
  const changed = (...requestIds: string[]) =>
    requestIds.map((availabilityRequestId) => ({ instanceId: 'ins_a', availabilityRequestId }));

  /** Expects both stores to hold the same tasks, requests and products; returns PostgreSQL's. */
  async function expectSameRows() {
    const t = pgSchema.gatheringTasks;
    const r = pgSchema.availabilityRequests;
    const p = pgSchema.availabilityRequestProducts;
    const stored = {
      tasks: await db.select().from(t).orderBy(asc(t.id)),
      requests: await db.select().from(r).orderBy(asc(r.id)),
      products: await db.select().from(p).orderBy(asc(p.id)),
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
    });
    return stored;
  }

  beforeAll(async () => {
    seeded = await openSeeded(fixtures);
    db = seeded.dbs[0] as PostgresDb;
    lite = openDatabase(':memory:');
    await lite.insert(sqliteSchema.instances).values({ id: 'ins_a', name: 'A', code: 'AAA', ...stamps });
    await lite.insert(sqliteSchema.pricePlans).values({
      id: 'ppl_a',
      instanceId: 'ins_a',
      name: 'Default',
      mrcMarkupBp: 2500,
      nrcMarkupBp: 0,
      ...stamps,
    });
    await lite.insert(sqliteSchema.pricePlanRules).values(planRules);
    await lite.insert(sqliteSchema.sources).values(fixtures.sources);
    await lite.insert(sqliteSchema.addresses).values(fixtures.requests.map((r) => address(r.addressId)));
    await lite.insert(sqliteSchema.availabilityRequests).values(fixtures.requests);
    await lite.insert(sqliteSchema.gatheringTasks).values(fixtures.tasks);
  });

  afterAll(async () => {
    lite?.$client.close();
    await seeded?.close();
  });

  it('when tasks are claimed, completed, failed, taken over, released and exhausted, then every result and row is SQLite’s', async () => {
    expect(
      await both(
        (q, h) => q.nextTaskDueAt(h),
        (q, h) => q.nextTaskDueAt(h),
      ),
    ).toEqual(at(0));

    const first = await both(
      (q, h) => q.claimTasks(h, { owner: 'A', now: at(10), leaseMs: 30_000, limit: 2, maxAttempts: 3 }),
      (q, h) => q.claimTasks(h, { owner: 'A', now: at(10), leaseMs: 30_000, limit: 2, maxAttempts: 3 }),
    );
    expect(first.claimed.map((claim) => [claim.taskId, claim.attempts])).toEqual([
      [2, 1],
      [4, 1],
    ]);
    expect(first.claimed[0]).toMatchObject({
      source: { id: 'src_B', countryCodes: ['NL'], enabled: true },
      request: { id: 'avr_x', status: 'in_progress', filters: noFilters },
      address: { id: 'adr_avr_x', latitude: 52.3759, coordinatesPrecision: 'address' },
    });
    // Each task comes with its request's plan and the plan's rules in id order, for pricing its offers.
    expect(first.claimed.map((claim) => claim.pricingPlan)).toEqual(
      [0, 1].map(() => ({
        id: 'ppl_a',
        instanceId: 'ins_a',
        name: 'Default',
        isDefault: false,
        mrcMarkupBp: 2500,
        nrcMarkupBp: 0,
        ...stamps,
        rules: planRules.map(({ id: _id, pricePlanId: _plan, ...rule }) => rule),
      })),
    );
    expect(first.changed).toEqual(changed('avr_Y', 'avr_x'));

    const second = await both(
      (q, h) => q.claimTasks(h, { owner: 'B', now: at(10), leaseMs: 30_000, limit: 10, maxAttempts: 3 }),
      (q, h) => q.claimTasks(h, { owner: 'B', now: at(10), leaseMs: 30_000, limit: 10, maxAttempts: 3 }),
    );
    expect(second.claimed.map((claim) => claim.taskId)).toEqual([1, 5, 6]);
    expect(second.changed).toEqual(changed('avr_z'));

    // Both of avr_x's completions report where the request stands after the whole batch.
    const afterBatch = {
      ...changed('avr_x')[0],
      progress: { status: 'in_progress', sourcesFinished: 2, updatedAt: at(12) },
    };
    const completions = [
      { taskId: 2, owner: 'A', now: at(11), products: [product(100_000), product(50_000)] },
      { taskId: 4, owner: 'B', now: at(11), products: [product(1)] },
      { taskId: 1, owner: 'B', now: at(12), products: [product(20_000)] },
      { taskId: 2, owner: 'A', now: at(13), products: [product(2)] },
    ];
    expect(
      await both(
        (q, h) => q.completeTasks(h, completions),
        (q, h) => q.completeTasks(h, completions),
      ),
    ).toEqual([afterBatch, null, afterBatch, null]);
    expect(await requestState(db, 'avr_x')).toEqual(afterBatch.progress);

    const retry = {
      taskId: 5,
      owner: 'B',
      now: at(14),
      code: 'TIMEOUT',
      message: 'no answer',
      retryAt: at(70),
    };
    expect(
      await both(
        (q, h) => q.failTaskAttempt(h, retry),
        (q, h) => q.failTaskAttempt(h, retry),
      ),
    ).toBeNull();
    const final = { taskId: 6, owner: 'B', now: at(15), code: 'BAD', message: 'refused', retryAt: null };
    expect(
      await both(
        (q, h) => q.failTaskAttempt(h, final),
        (q, h) => q.failTaskAttempt(h, final),
      ),
    ).toEqual(changed('avr_z')[0]);
    expect(
      await both(
        (q, h) => q.failTaskAttempt(h, final),
        (q, h) => q.failTaskAttempt(h, final),
      ),
    ).toBeNull();
    expect(await requestState(db, 'avr_z')).toEqual({
      status: 'completed',
      sourcesFinished: 1,
      updatedAt: at(15),
    });
    expect(
      await both(
        (q, h) => q.nextTaskDueAt(h),
        (q, h) => q.nextTaskDueAt(h),
      ),
    ).toEqual(at(60));

    // A's lease on task 4 ran out at 40 s: C takes it over; A's late completion and failure change nothing.
    const takeover = await both(
      (q, h) => q.claimTasks(h, { owner: 'C', now: at(41), leaseMs: 30_000, limit: 5, maxAttempts: 3 }),
      (q, h) => q.claimTasks(h, { owner: 'C', now: at(41), leaseMs: 30_000, limit: 5, maxAttempts: 3 }),
    );
    expect(takeover.claimed.map((claim) => [claim.taskId, claim.attempts])).toEqual([[4, 2]]);
    const late = { taskId: 4, owner: 'A', now: at(42), products: [product(3)] };
    expect(
      await both(
        (q, h) => q.completeTask(h, late),
        (q, h) => q.completeTask(h, late),
      ),
    ).toBeNull();
    const lateFailure = { ...late, code: 'X', message: 'x', retryAt: null };
    expect(
      await both(
        (q, h) => q.failTaskAttempt(h, lateFailure),
        (q, h) => q.failTaskAttempt(h, lateFailure),
      ),
    ).toBeNull();
    expect(await taskRow(db, 4)).toMatchObject({ status: 'running', leaseOwner: 'C', attempts: 2 });

    expect(
      await both(
        (q, h) => q.releaseTasks(h, 'C', at(42)),
        (q, h) => q.releaseTasks(h, 'C', at(42)),
      ),
    ).toBe(1);
    expect(
      await both(
        (q, h) => q.releaseTasks(h, 'C', at(43)),
        (q, h) => q.releaseTasks(h, 'C', at(43)),
      ),
    ).toBe(0);
    expect(await taskRow(db, 4)).toMatchObject({
      status: 'queued',
      leaseOwner: null,
      attempts: 1,
      availableAt: at(42),
    });

    const third = await both(
      (q, h) => q.claimTasks(h, { owner: 'D', now: at(75), leaseMs: 10_000, limit: 10, maxAttempts: 2 }),
      (q, h) => q.claimTasks(h, { owner: 'D', now: at(75), leaseMs: 10_000, limit: 10, maxAttempts: 2 }),
    );
    expect(third.claimed.map((claim) => [claim.taskId, claim.attempts])).toEqual([
      [3, 1],
      [4, 2],
      [5, 2],
    ]);
    expect(third.changed).toEqual([]);

    // D stopped responding: tasks 4 and 5 had their last attempt and fail; nothing is claimed with limit 0.
    const exhausted = await both(
      (q, h) => q.claimTasks(h, { owner: 'F', now: at(90), leaseMs: 10_000, limit: 0, maxAttempts: 2 }),
      (q, h) => q.claimTasks(h, { owner: 'F', now: at(90), leaseMs: 10_000, limit: 0, maxAttempts: 2 }),
    );
    expect(exhausted).toEqual({ claimed: [], changed: changed('avr_Y', 'avr_Y') });
    expect(await taskRow(db, 5)).toMatchObject({
      status: 'failed',
      leaseOwner: null,
      errorCode: 'LEASE_EXPIRED',
      errorMessage: 'The worker running this source stopped responding too often.',
      finishedAt: at(90),
    });
    expect(await requestState(db, 'avr_Y')).toEqual({
      status: 'completed',
      sourcesFinished: 2,
      updatedAt: at(90),
    });

    const fourth = await both(
      (q, h) => q.claimTasks(h, { owner: 'E', now: at(90), leaseMs: 10_000, limit: 10, maxAttempts: 2 }),
      (q, h) => q.claimTasks(h, { owner: 'E', now: at(90), leaseMs: 10_000, limit: 10, maxAttempts: 2 }),
    );
    expect(fourth.claimed.map((claim) => [claim.taskId, claim.attempts])).toEqual([[3, 2]]);
    const last = { taskId: 3, owner: 'E', now: at(91), products: [product(10_000)] };
    expect(
      await both(
        (q, h) => q.completeTask(h, last),
        (q, h) => q.completeTask(h, last),
      ),
    ).toEqual({
      ...changed('avr_x')[0],
      progress: { status: 'completed', sourcesFinished: 3, updatedAt: at(91) },
    });
    expect(await requestState(db, 'avr_x')).toEqual({
      status: 'completed',
      sourcesFinished: 3,
      updatedAt: at(91),
    });
    expect(
      await both(
        (q, h) => q.nextTaskDueAt(h),
        (q, h) => q.nextTaskDueAt(h),
      ),
    ).toBeNull();
    expect(
      await both(
        (q, h) => q.completeTasks(h, []),
        (q, h) => q.completeTasks(h, []),
      ),
    ).toEqual([]);

    const { tasks: pgTasks, products: pgProducts } = await expectSameRows();
    expect(pgTasks.map((row) => [row.id, row.status, row.attempts])).toEqual([
      [1, 'succeeded', 1],
      [2, 'succeeded', 1],
      [3, 'succeeded', 2],
      [4, 'failed', 2],
      [5, 'failed', 2],
      [6, 'failed', 1],
    ]);
    expect(pgProducts.map((row) => [row.gatheringTaskId, row.downloadKbps, row.sourceId])).toEqual([
      [2, 100_000, 'src_B'],
      [2, 50_000, 'src_B'],
      [1, 20_000, 'src_a'],
      [3, 10_000, 'src_c'],
    ]);
  });

  it('when one claim meets exhausted leases, an expired lease and due tasks, then it fails, reclaims and leases as SQLite does', async () => {
    const more = {
      requests: [
        { ...request('avr_N', 2), status: 'in_progress' as const },
        { ...request('avr_m', 2), status: 'in_progress' as const },
        request('avr_O', 1),
        request('avr_p', 1),
      ],
      tasks: [
        // Exhausted (attempts 2 of 2), due in the opposite order of their ids.
        task(10, 'avr_m', 'src_a', at(99), {
          status: 'running',
          attempts: 2,
          leaseOwner: 'G',
          leaseExpiresAt: at(100),
        }),
        task(11, 'avr_N', 'src_a', at(50), {
          status: 'running',
          attempts: 2,
          leaseOwner: 'G',
          leaseExpiresAt: at(100),
        }),
        task(12, 'avr_N', 'src_B', at(50), {
          status: 'running',
          attempts: 1,
          leaseOwner: 'G',
          leaseExpiresAt: at(100),
        }),
        task(13, 'avr_m', 'src_B', at(100)),
        task(14, 'avr_p', 'src_a', at(100)),
        task(15, 'avr_O', 'src_a', at(100)),
      ],
    };
    for (const [pgTable, liteTable, rows] of [
      [pgSchema.addresses, sqliteSchema.addresses, more.requests.map((r) => address(r.addressId))],
      [pgSchema.availabilityRequests, sqliteSchema.availabilityRequests, more.requests],
      [pgSchema.gatheringTasks, sqliteSchema.gatheringTasks, more.tasks],
    ] as const) {
      await db.insert(pgTable).values(rows as never);
      await lite.insert(liteTable).values(rows as never);
    }
    const claim = { owner: 'H', now: at(101), leaseMs: 10_000, limit: 3, maxAttempts: 2 };
    const result = await both(
      (q, h) => q.claimTasks(h, claim),
      (q, h) => q.claimTasks(h, claim),
    );
    expect(result.claimed.map((c) => [c.taskId, c.attempts, c.request.id])).toEqual([
      [12, 2, 'avr_N'],
      [13, 1, 'avr_m'],
      [14, 1, 'avr_p'],
    ]);
    expect(result.changed).toEqual(changed('avr_m', 'avr_N', 'avr_p'));
    const { requests } = await expectSameRows();
    expect(
      requests
        .filter((r) => more.requests.some((m) => m.id === r.id))
        .map((r) => [r.id, r.status, r.sourcesFinished]),
    ).toEqual([
      ['avr_N', 'in_progress', 1],
      ['avr_O', 'pending', 0],
      ['avr_m', 'in_progress', 1],
      ['avr_p', 'in_progress', 0],
    ]);
  });
});

describe('gathering tasks on PostgreSQL under concurrent workers', () => {
  const sourceIds = Array.from({ length: 10 }, (_, n) => `src_${n}`);
  const requestIds = Array.from({ length: 50 }, (_, n) => `avr_${String(n).padStart(3, '0')}`);

  it('when two pools claim from 500 queued tasks until none is left, then every task is claimed once and completed once', async () => {
    const seeded = await openSeeded(
      {
        sources: sourceIds.map(source),
        requests: requestIds.map((id) => request(id, sourceIds.length)),
        tasks: requestIds.flatMap((requestId, r) =>
          sourceIds.map((sourceId, s) => task(r * 10 + s + 1, requestId, sourceId, at(s % 3))),
        ),
      },
      1,
    );
    try {
      const claims: number[] = [];
      const completed: (string | null)[] = [];
      // Four workers on each of two independent pools, completing what they claim while others claim.
      const worker = async (db: PostgresDb, owner: string) => {
        for (;;) {
          const { claimed } = await pgQueries.claimTasks(db, {
            owner,
            now: at(5),
            leaseMs: 60_000,
            limit: 7,
            maxAttempts: 3,
          });
          if (claimed.length === 0) return;
          claims.push(...claimed.map((claim) => claim.taskId));
          const results = await pgQueries.completeTasks(
            db,
            claimed.map((claim) => ({
              taskId: claim.taskId,
              owner,
              now: at(6),
              products: [product(claim.taskId)],
            })),
          );
          completed.push(...results.map((result) => result?.availabilityRequestId ?? null));
        }
      };
      await Promise.all(
        seeded.dbs.flatMap((db, p) => [0, 1, 2, 3].map((w) => worker(db, `pool${p}-worker${w}`))),
      );
      expect(claims).toHaveLength(500);
      expect(new Set(claims).size).toBe(500);
      expect(completed.filter((result) => result === null)).toEqual([]);
      const { rows } = await seeded.pool.query(
        `SELECT
           (SELECT count(*)::int FROM gathering_tasks WHERE status = 'succeeded' AND attempts = 1) AS succeeded,
           (SELECT count(DISTINCT gathering_task_id)::int FROM availability_request_products) AS tasks_with_products,
           (SELECT count(*)::int FROM availability_request_products) AS products,
           (SELECT count(*)::int FROM availability_requests WHERE status = 'completed' AND sources_finished = 10)
             AS requests_completed`,
      );
      expect(rows[0]).toEqual({
        succeeded: 500,
        tasks_with_products: 500,
        products: 500,
        requests_completed: 50,
      });
    } finally {
      await seeded.close();
    }
  });

  it('when a lease expires, then another owner reclaims the task and the first owner’s late completion is refused', async () => {
    const seeded = await openSeeded(
      {
        sources: [source('src_a')],
        requests: [request('avr_a', 1)],
        tasks: [task(1, 'avr_a', 'src_a', at(0))],
      },
      1,
    );
    const [first, second] = seeded.dbs as [PostgresDb, PostgresDb];
    try {
      const claim = (db: PostgresDb, owner: string, seconds: number) =>
        pgQueries.claimTasks(db, { owner, now: at(seconds), leaseMs: 1000, limit: 5, maxAttempts: 3 });
      expect((await claim(first, 'A', 0)).claimed.map((c) => c.taskId)).toEqual([1]);
      expect((await claim(second, 'B', 0.5)).claimed).toEqual([]);
      const takeover = await claim(second, 'B', 1);
      expect(takeover.claimed.map((c) => [c.taskId, c.attempts])).toEqual([[1, 2]]);
      expect(takeover.changed).toEqual([]);
      const late = { taskId: 1, owner: 'A', now: at(1.5), products: [product(1)] };
      expect(await pgQueries.completeTask(first, late)).toBeNull();
      expect(await requestState(first, 'avr_a')).toEqual({
        status: 'in_progress',
        sourcesFinished: 0,
        updatedAt: at(0),
      });
      const done = { taskId: 1, owner: 'B', now: at(1.6), products: [product(2), product(3)] };
      expect(await pgQueries.completeTask(second, done)).toEqual({
        instanceId: 'ins_a',
        availabilityRequestId: 'avr_a',
        progress: { status: 'completed', sourcesFinished: 1, updatedAt: at(1.6) },
      });
      expect(await pgQueries.completeTask(second, done)).toBeNull();
      expect(await pgQueries.completeTask(first, late)).toBeNull();
      expect(await requestState(first, 'avr_a')).toEqual({
        status: 'completed',
        sourcesFinished: 1,
        updatedAt: at(1.6),
      });
      const { rows } = await seeded.pool.query(
        'SELECT download_kbps FROM availability_request_products ORDER BY id',
      );
      expect(rows).toEqual([{ download_kbps: 2 }, { download_kbps: 3 }]);
      expect(await taskRow(first, 1)).toMatchObject({ status: 'succeeded', leaseOwner: null, attempts: 2 });
    } finally {
      await seeded.close();
    }
  });

  it('when one completion is sent many times at once through two pools, then it is stored once', async () => {
    const seeded = await openSeeded(
      {
        sources: [source('src_a')],
        requests: [request('avr_a', 2)],
        tasks: [task(1, 'avr_a', 'src_a', at(0))],
      },
      1,
    );
    try {
      await pgQueries.claimTasks(seeded.dbs[0] as PostgresDb, {
        owner: 'A',
        now: at(0),
        leaseMs: 60_000,
        limit: 1,
        maxAttempts: 3,
      });
      const completion = { taskId: 1, owner: 'A', now: at(1), products: [product(1), product(2)] };
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, n) =>
          pgQueries.completeTask(seeded.dbs[n % 2] as PostgresDb, completion),
        ),
      );
      expect(results.filter((result) => result !== null)).toEqual([
        {
          instanceId: 'ins_a',
          availabilityRequestId: 'avr_a',
          progress: { status: 'in_progress', sourcesFinished: 1, updatedAt: at(1) },
        },
      ]);
      const { rows } = await seeded.pool.query(
        'SELECT count(*)::int AS n FROM availability_request_products',
      );
      expect(rows[0].n).toBe(2);
      expect(await requestState(seeded.dbs[0] as PostgresDb, 'avr_a')).toEqual({
        status: 'in_progress',
        sourcesFinished: 1,
        updatedAt: at(1),
      });
    } finally {
      await seeded.close();
    }
  });

  it('when claimers on two pools find the same exhausted leases, then each task fails once and counts once', async () => {
    const running = { status: 'running' as const, attempts: 3, leaseOwner: 'dead', leaseExpiresAt: at(1) };
    const seeded = await openSeeded(
      {
        sources: sourceIds.map(source),
        requests: requestIds.slice(0, 4).map((id) => request(id, 12)),
        tasks: requestIds
          .slice(0, 4)
          .flatMap((requestId, r) =>
            sourceIds.map((sourceId, s) => task(r * 10 + s + 1, requestId, sourceId, at(0), running)),
          ),
      },
      1,
    );
    try {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          pgQueries.claimTasks(seeded.dbs[n % 2] as PostgresDb, {
            owner: `claimer${n}`,
            now: at(2),
            leaseMs: 1000,
            limit: 5,
            maxAttempts: 3,
          }),
        ),
      );
      expect(results.flatMap((result) => result.claimed)).toEqual([]);
      const counted = results.flatMap((result) =>
        result.changed.map((change) => change.availabilityRequestId),
      );
      expect(counted.sort()).toEqual(requestIds.slice(0, 4).flatMap((id) => Array(10).fill(id)));
      const { rows } = await seeded.pool.query(
        `SELECT status, sources_finished FROM availability_requests ORDER BY id`,
      );
      expect(rows).toEqual(Array(4).fill({ status: 'in_progress', sources_finished: 10 }));
      const failed = await seeded.pool.query(
        `SELECT count(*)::int AS n FROM gathering_tasks WHERE status = 'failed'`,
      );
      expect(failed.rows[0].n).toBe(40);
    } finally {
      await seeded.close();
    }
  });
});
