/*
 * The gathering operations on SQLite that end or release tasks; each function implements the operation of
 * its name documented in `GatheringOperations` (src/db/contract/gathering.ts). Writes run in write
 * transactions (`BEGIN IMMEDIATE`): SQLite's one writer at a time is the whole of the locking.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { requestChangeEvents } from '../../shared/events.js';
import { failedAttemptChanges, heldByOwner } from '../../shared/gathering.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { gatheringTasks } from '../schema/index.js';
import { finishSource } from './finished-sources.js';
import { recordEvents } from './record-events.js';

/** Lease fence: the task is still running and still leased to `owner`. */
function heldBy(taskId: number, owner: string) {
  const t = gatheringTasks;
  return and(eq(t.id, taskId), eq(t.leaseOwner, owner), eq(t.status, 'running'));
}

export const failTaskAttempt: Op<'failTaskAttempt'> = async (db, attempt) => {
  const t = gatheringTasks;
  return db.transaction(
    (tx) => {
      const task = tx
        .update(t)
        .set(failedAttemptChanges(attempt))
        .where(heldBy(attempt.taskId, attempt.owner))
        .returning({ instanceId: t.instanceId, availabilityRequestId: t.availabilityRequestId })
        .get();
      if (!task || attempt.retryAt) return null;
      const change = finishSource(db, task.availabilityRequestId, attempt.now);
      if (change)
        recordEvents(db, requestChangeEvents([{ ...change, traceContext: attempt.traceContext ?? null }]));
      return task;
    },
    { behavior: 'immediate' },
  );
};

export const releaseTasks: Op<'releaseTasks'> = async (db, owner, now, taskIds) => {
  const t = gatheringTasks;
  const result = db
    .update(t)
    .set({
      status: 'queued',
      leaseOwner: null,
      leaseExpiresAt: null,
      attempts: sql`max(${t.attempts} - 1, 0)`,
      availableAt: now,
      updatedAt: now,
    })
    .where(
      and(
        heldByOwner(t.leaseOwner, owner),
        eq(t.status, 'running'),
        taskIds ? inArray(t.id, [...taskIds]) : undefined,
      ),
    )
    .run();
  return result.changes;
};

export const nextTaskDueAt: Op<'nextTaskDueAt'> = async (db) => {
  const row = nextDue(db).get();
  return row?.at == null ? null : new Date(row.at);
};

const nextDue = preparedQuery((db) =>
  db
    .select({ at: sql<number | null>`min(${gatheringTasks.availableAt})` })
    .from(gatheringTasks)
    .where(eq(gatheringTasks.status, 'queued'))
    .prepare(),
);
