import { describe, expect, it, vi } from 'vitest';
import type { PostgresDb } from '../../../src/db/postgres/client.js';
import * as pgQueries from '../../../src/db/postgres/queries/index.js';
import { at, openSeeded, product, request, requestState, source, task, taskRow } from './task-fixtures.js';

vi.mock('../../../src/ids.js', () => import('./sequential-ids.js'));

describe('completing gathering tasks on PostgreSQL under concurrent workers', () => {
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
      // Taken over with the attempt it had: an expired lease costs no attempt (issue 48).
      expect(takeover.claimed.map((c) => [c.taskId, c.attempts])).toEqual([[1, 1]]);
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
      expect(await taskRow(first, 1)).toMatchObject({
        status: 'succeeded',
        leaseOwner: null,
        attempts: 1,
        leaseExpiries: 1,
      });
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
});
