import { and, asc, eq, inArray, min, sql } from 'drizzle-orm';
import type { ChangedRequest } from '../../rows.js';
import type { PostgresDb } from '../client.js';
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
async function finishSources(tx: Tx, finished: { requestId: string; now: Date }[]): Promise<void> {
  const counts = new Map<string, { count: number; now: Date }>();
  for (const { requestId, now } of finished) {
    counts.set(requestId, { count: (counts.get(requestId)?.count ?? 0) + 1, now });
  }
  if (counts.size === 0) return;
  const ids = [...counts.keys()];
  const entries = ids.map((id) => counts.get(id) as { count: number; now: Date });
  await tx.execute(sql`with counts as (
      select * from unnest(${sql.param(ids)}::text[], ${sql.param(entries.map((entry) => entry.count))}::int[],
                           ${sql.param(entries.map((entry) => entry.now.toISOString()))}::timestamptz[])
        as c(id, count, now))${sql.raw(FINISHED_SOURCES_CTES)}
    select 1`);
}

/** Lease fence: the task is still running and still leased to `owner`. */
function heldBy(taskId: number, owner: string) {
  return and(
    eq(gatheringTasks.id, taskId),
    eq(gatheringTasks.leaseOwner, owner),
    eq(gatheringTasks.status, 'running'),
  );
}

/**
 * Records a failed attempt. With `retryAt` the task goes back to the queue until then; without it the
 * task ends as failed and counts as a finished source (its error stays visible on the request). Fenced by
 * the lease like {@link completeTasks} (`UPDATE ... WHERE` owner and `running`, re-checked after a row
 * lock wait), so a stale owner changes nothing.
 *
 * @returns the changed request when the task ended, else null (also when the lease was lost).
 */
export async function failTaskAttempt(
  db: PostgresDb,
  input: { taskId: number; owner: string; now: Date; code: string; message: string; retryAt: Date | null },
): Promise<ChangedRequest | null> {
  const { now } = input;
  const error = {
    errorCode: input.code,
    errorMessage: input.message,
    leaseOwner: null,
    leaseExpiresAt: null,
  };
  if (input.retryAt) {
    await db
      .update(gatheringTasks)
      .set({ ...error, status: 'queued', availableAt: input.retryAt, updatedAt: now })
      .where(heldBy(input.taskId, input.owner));
    return null;
  }
  return db.transaction(async (tx) => {
    const [task] = await tx
      .update(gatheringTasks)
      .set({ ...error, status: 'failed', finishedAt: now, updatedAt: now })
      .where(heldBy(input.taskId, input.owner))
      .returning({
        instanceId: gatheringTasks.instanceId,
        availabilityRequestId: gatheringTasks.availabilityRequestId,
      });
    if (!task) return null;
    await finishSources(tx, [{ requestId: task.availabilityRequestId, now }]);
    return { instanceId: task.instanceId, availabilityRequestId: task.availabilityRequestId };
  });
}

/**
 * Gives back the leases `owner` holds (graceful shutdown): its running tasks return to the queue
 * without counting the interrupted attempt, so another worker picks them up at once. Locks them in id
 * order first (`FOR UPDATE`), then updates only those still leased to `owner`.
 *
 * @returns how many tasks were released.
 */
export async function releaseTasks(db: PostgresDb, owner: string, now: Date): Promise<number> {
  const t = gatheringTasks;
  const held = and(eq(t.leaseOwner, owner), eq(t.status, 'running'));
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
}

/** Earliest time a queued task becomes due, or null when none is queued (lets the worker sleep exactly). */
export async function nextTaskDueAt(db: PostgresDb): Promise<Date | null> {
  const [row] = await db
    .select({ at: min(gatheringTasks.availableAt) })
    .from(gatheringTasks)
    .where(eq(gatheringTasks.status, 'queued'));
  return row?.at ?? null;
}
