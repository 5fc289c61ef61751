import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import { ids } from './sequential-ids.js';
import {
  at,
  changed,
  type Fixtures,
  noFilters,
  openTwins,
  planRules,
  product,
  request,
  requestState,
  source,
  stamps,
  type Twins,
  task,
  taskRow,
} from './task-fixtures.js';

vi.mock('../../../src/ids.js', () => import('./sequential-ids.js'));

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
  let twins: Twins;
  let db: PostgresDb;
  let both: Twins['both'];
  let expectSameRows: Twins['expectSameRows'];

  beforeAll(async () => {
    twins = await openTwins(fixtures, ids);
    ({ db, both, expectSameRows } = twins);
  });

  afterAll(async () => {
    await twins?.close();
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

    // A's lease on task 4 ran out at 40 s: C takes it over, going on with its attempt (issue 48: a lease lost,
    // say to a store outage, costs no attempt); A's late completion and failure change nothing.
    const takeover = await both(
      (q, h) => q.claimTasks(h, { owner: 'C', now: at(41), leaseMs: 30_000, limit: 5, maxAttempts: 3 }),
      (q, h) => q.claimTasks(h, { owner: 'C', now: at(41), leaseMs: 30_000, limit: 5, maxAttempts: 3 }),
    );
    expect(takeover.claimed.map((claim) => [claim.taskId, claim.attempts])).toEqual([[4, 1]]);
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
    expect(await taskRow(db, 4)).toMatchObject({
      status: 'running',
      leaseOwner: 'C',
      attempts: 1,
      leaseExpiries: 1,
    });

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
      attempts: 0,
      leaseExpiries: 1,
      availableAt: at(42),
    });

    const third = await both(
      (q, h) => q.claimTasks(h, { owner: 'D', now: at(75), leaseMs: 10_000, limit: 10, maxAttempts: 2 }),
      (q, h) => q.claimTasks(h, { owner: 'D', now: at(75), leaseMs: 10_000, limit: 10, maxAttempts: 2 }),
    );
    expect(third.claimed.map((claim) => [claim.taskId, claim.attempts])).toEqual([
      [3, 1],
      [4, 1],
      [5, 2],
    ]);
    expect(third.changed).toEqual([]);

    // D stopped responding: task 4's lease expired for the second time (maxAttempts) and it fails; tasks 3
    // and 5 lost their first lease only. Nothing is claimed with limit 0.
    const exhausted = await both(
      (q, h) => q.claimTasks(h, { owner: 'F', now: at(90), leaseMs: 10_000, limit: 0, maxAttempts: 2 }),
      (q, h) => q.claimTasks(h, { owner: 'F', now: at(90), leaseMs: 10_000, limit: 0, maxAttempts: 2 }),
    );
    expect(exhausted).toEqual({ claimed: [], changed: changed('avr_Y') });
    expect(await taskRow(db, 4)).toMatchObject({
      status: 'failed',
      leaseOwner: null,
      leaseExpiries: 2,
      errorCode: 'LEASE_EXPIRED',
      errorMessage: 'The worker running this source stopped responding too often.',
      finishedAt: at(90),
    });
    expect(await requestState(db, 'avr_Y')).toEqual({
      status: 'in_progress',
      sourcesFinished: 1,
      updatedAt: at(90),
    });

    const fourth = await both(
      (q, h) => q.claimTasks(h, { owner: 'E', now: at(90), leaseMs: 10_000, limit: 10, maxAttempts: 2 }),
      (q, h) => q.claimTasks(h, { owner: 'E', now: at(90), leaseMs: 10_000, limit: 10, maxAttempts: 2 }),
    );
    expect(fourth.claimed.map((claim) => [claim.taskId, claim.attempts])).toEqual([
      [3, 1],
      [5, 2],
    ]);
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
    const lastFailure = {
      taskId: 5,
      owner: 'E',
      now: at(92),
      code: 'BAD',
      message: 'refused',
      retryAt: null,
    };
    expect(
      await both(
        (q, h) => q.failTaskAttempt(h, lastFailure),
        (q, h) => q.failTaskAttempt(h, lastFailure),
      ),
    ).toEqual(changed('avr_Y')[0]);
    expect(await requestState(db, 'avr_Y')).toEqual({
      status: 'completed',
      sourcesFinished: 2,
      updatedAt: at(92),
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
    expect(pgTasks.map((row) => [row.id, row.status, row.attempts, row.leaseExpiries])).toEqual([
      [1, 'succeeded', 1, 0],
      [2, 'succeeded', 1, 0],
      [3, 'succeeded', 1, 1],
      [4, 'failed', 1, 2],
      [5, 'failed', 2, 1],
      [6, 'failed', 1, 0],
    ]);
    expect(pgProducts.map((row) => [row.gatheringTaskId, row.downloadKbps, row.sourceId])).toEqual([
      [2, 100_000, 'src_B'],
      [2, 50_000, 'src_B'],
      [1, 20_000, 'src_a'],
      [3, 10_000, 'src_c'],
    ]);
  });
});
