import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import * as pgQueries from '../../../src/db/postgres/queries/index.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import type { SqliteDb } from '../../../src/db/sqlite/client.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import { ids } from './sequential-ids.js';
import {
  address,
  at,
  changed,
  type Fixtures,
  openSeeded,
  openTwins,
  product,
  request,
  source,
  type Twins,
  task,
} from './task-fixtures.js';

vi.mock('../../../src/ids.js', () => import('./sequential-ids.js'));

describe('claiming gathering tasks on PostgreSQL, call for call as on SQLite', () => {
  // The sources only: the test adds the requests and tasks it claims from.
  const fixtures: Fixtures = { sources: [source('src_a'), source('src_B')], requests: [], tasks: [] };
  let twins: Twins;
  let db: PostgresDb;
  let lite: SqliteDb;
  let both: Twins['both'];
  let expectSameRows: Twins['expectSameRows'];

  beforeAll(async () => {
    twins = await openTwins(fixtures, ids);
    ({ db, lite, both, expectSameRows } = twins);
  });

  afterAll(async () => {
    await twins?.close();
  });

  it('when one claim meets exhausted leases, an expired lease and due tasks, then it fails, reclaims and leases as SQLite does, and its events keep their tasks’ trace contexts', async () => {
    // The trace contexts stored with each request's tasks (the same for all of a request's tasks); avr_m's none.
    const digits: Record<string, string> = { avr_N: 'a', avr_p: 'b', avr_O: 'c' };
    const contextOf = (id: string) =>
      `{"traceparent":"00-${(digits[id] ?? '0').repeat(32)}-00f067aa0ba902b7-01"}`;
    const traced = (id: string) => ({ traceContext: contextOf(id) });
    const more = {
      requests: [
        { ...request('avr_N', 2), status: 'in_progress' as const },
        { ...request('avr_m', 2), status: 'in_progress' as const },
        request('avr_O', 1),
        request('avr_p', 1),
      ],
      tasks: [
        // Exhausted (their second expired lease of 2 allowed), due in the opposite order of their ids.
        task(10, 'avr_m', 'src_a', at(99), {
          status: 'running',
          attempts: 2,
          leaseExpiries: 1,
          leaseOwner: 'G',
          leaseExpiresAt: at(100),
        }),
        task(11, 'avr_N', 'src_a', at(50), {
          status: 'running',
          attempts: 1,
          leaseExpiries: 1,
          leaseOwner: 'G',
          leaseExpiresAt: at(100),
          ...traced('avr_N'),
        }),
        task(12, 'avr_N', 'src_B', at(50), {
          status: 'running',
          attempts: 1,
          leaseOwner: 'G',
          leaseExpiresAt: at(100),
          ...traced('avr_N'),
        }),
        task(13, 'avr_m', 'src_B', at(100)),
        task(14, 'avr_p', 'src_a', at(100), traced('avr_p')),
        task(15, 'avr_O', 'src_a', at(100), traced('avr_O')),
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
    // Task 12's lease is taken over with the attempt it had (an expired lease costs no attempt, issue 48).
    expect(result.claimed.map((c) => [c.taskId, c.attempts, c.request.id])).toEqual([
      [12, 1, 'avr_N'],
      [13, 1, 'avr_m'],
      [14, 1, 'avr_p'],
    ]);
    expect(result.changed).toEqual(changed('avr_m', 'avr_N', 'avr_p'));
    const { requests, events } = await expectSameRows();
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
    // The exhausted tasks' requests' events and the started request's, each with its tasks' stored context.
    expect(events.map((event) => [event.subjectId, event.version, event.traceContext])).toEqual([
      ['avr_N', 1_000_001, contextOf('avr_N')],
      ['avr_m', 1_000_001, null],
      ['avr_p', 1_000_000, contextOf('avr_p')],
    ]);
  });
});

describe('claiming gathering tasks on PostgreSQL under concurrent workers', () => {
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

  it('when claimers on two pools find the same exhausted leases, then each task fails once and counts once', async () => {
    const running = {
      status: 'running' as const,
      attempts: 1,
      leaseExpiries: 2,
      leaseOwner: 'dead',
      leaseExpiresAt: at(1),
    };
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
