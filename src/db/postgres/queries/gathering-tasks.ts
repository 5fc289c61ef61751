/*
 * The gathering operations on PostgreSQL that end or release tasks; each function implements the operation
 * of its name documented in `GatheringOperations` (src/db/contract/gathering.ts). What follows is how they
 * keep concurrent workers safe.
 */
import { and, asc, eq, inArray, min, sql } from 'drizzle-orm';
import { failedAttemptChanges, heldByOwner } from '../../shared/gathering.js';
import type { PostgresDb } from '../client.js';
import type { Op } from '../operation.js';
import { gatheringTasks } from '../schema/index.js';
import { FINISHED_SOURCES_CTES } from './finished-sources.js';

/** A transaction of {@link PostgresDb}. */
type Tx = Parameters<Parameters<PostgresDb['transaction']>[0]>[0];

/*
 * Lock order, which keeps concurrent workers free of deadlocks: a transaction locks tasks first — claims
 * with `FOR UPDATE SKIP LOCKED` (never waiting), everything else in ascending id order — and only then
 * availability requests, in ascending id order (`FOR NO KEY UPDATE`, which the product rows' foreign-key
 * checks do not conflict with). A claim's second pass over requests locks only `pending` ones, which no
 * other kind of transaction locks (a request leaves `pending` when its first task is leased).
 */

/**
 * Counts finished sources on requests, one per entry (a request may come several times), in one statement
 * ({@link FINISHED_SOURCES_CTES}: the requests locked in id order first, status and progress only moving
 * forward).
 */
async function finishSources(
  tx: Tx,
  finished: { requestId: string; now: Date; traceContext: string | null }[],
): Promise<void> {
  type Count = { count: number; now: Date; traceContext: string | null };
  const counts = new Map<string, Count>();
  for (const { requestId, now, traceContext } of finished) {
    counts.set(requestId, { count: (counts.get(requestId)?.count ?? 0) + 1, now, traceContext });
  }
  if (counts.size === 0) return;
  const ids = [...counts.keys()];
  const entries = ids.map((id) => counts.get(id) as Count);
  await tx.execute(sql`with counts as (
      select * from unnest(${sql.param(ids)}::text[], ${sql.param(entries.map((entry) => entry.count))}::int[],
                           ${sql.param(entries.map((entry) => entry.now.toISOString()))}::timestamptz[],
                           ${sql.param(entries.map((entry) => entry.traceContext))}::text[])
        as c(id, count, now, trace_context))${sql.raw(FINISHED_SOURCES_CTES)}
    select 1`);
}

/** Lease fence: the task is still running and still leased to `owner`. */
function heldBy(taskId: number, owner: string) {
  const t = gatheringTasks;
  return and(eq(t.id, taskId), eq(t.leaseOwner, owner), eq(t.status, 'running'));
}

/**
 * The fence is an `UPDATE … WHERE` owner and `running`, re-checked on the newest row after a lock wait
 * (READ COMMITTED), so a stale owner changes nothing. A retry is that one statement; an ended task also
 * counts its source, in the same transaction.
 */
export const failTaskAttempt: Op<'failTaskAttempt'> = async (db, attempt) => {
  const t = gatheringTasks;
  const fail = (on: Pick<PostgresDb, 'update'>) =>
    on
      .update(t)
      .set(failedAttemptChanges(attempt))
      .where(heldBy(attempt.taskId, attempt.owner))
      .returning({ instanceId: t.instanceId, availabilityRequestId: t.availabilityRequestId });
  if (attempt.retryAt) {
    await fail(db);
    return null;
  }
  return db.transaction(async (tx) => {
    const [task] = await fail(tx);
    if (!task) return null;
    await finishSources(tx, [
      { requestId: task.availabilityRequestId, now: attempt.now, traceContext: attempt.traceContext ?? null },
    ]);
    return task;
  });
};

/** Locks the owner's running tasks in id order first (`FOR UPDATE`), then updates those still its own. */
export const releaseTasks: Op<'releaseTasks'> = async (db, owner, now, taskIds) => {
  const t = gatheringTasks;
  const held = and(
    heldByOwner(t.leaseOwner, owner),
    eq(t.status, 'running'),
    taskIds ? inArray(t.id, [...taskIds]) : undefined,
  );
  return db.transaction(async (tx) => {
    const locked = await tx.select({ id: t.id }).from(t).where(held).orderBy(asc(t.id)).for('update');
    if (locked.length === 0) return 0;
    const released = await tx
      .update(t)
      .set({
        status: 'queued',
        leaseOwner: null,
        leaseExpiresAt: null,
        attempts: sql`greatest(${t.attempts} - 1, 0)`,
        availableAt: now,
        updatedAt: now,
      })
      .where(
        and(
          inArray(
            t.id,
            locked.map((row) => row.id),
          ),
          held,
        ),
      )
      .returning({ id: t.id });
    return released.length;
  });
};

export const nextTaskDueAt: Op<'nextTaskDueAt'> = async (db) => {
  const [row] = await db
    .select({ at: min(gatheringTasks.availableAt) })
    .from(gatheringTasks)
    .where(eq(gatheringTasks.status, 'queued'));
  return row?.at ?? null;
};
