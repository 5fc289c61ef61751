import { and, eq, sql } from 'drizzle-orm';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { gatheringTasks } from '../schema/index.js';
import type { AvailabilityRequestRow } from './availability-requests.js';
import { finishSource } from './finished-sources.js';

/** A request whose status or progress a task operation changed (to publish as an event). */
export interface ChangedRequest {
  instanceId: string;
  availabilityRequestId: string;
}

/** Where a request stands: its status, how many of its sources finished, and when it last changed. */
export interface RequestProgress {
  status: AvailabilityRequestRow['status'];
  sourcesFinished: number;
  updatedAt: Date;
}

/**
 * A request a completion batch changed, with where it stands once the whole batch is stored (the same for
 * every task of the request in the batch): with the request and address the worker holds from the claim,
 * that is the request's state to publish, without reading it again.
 */
export interface CompletedRequest extends ChangedRequest {
  progress: RequestProgress;
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
 * task ends as failed and counts as a finished source (its error stays visible on the request).
 *
 * @returns the changed request when the task ended, else null (also when the lease was lost).
 */
export async function failTaskAttempt(
  db: SqliteDb,
  input: { taskId: number; owner: string; now: Date; code: string; message: string; retryAt: Date | null },
): Promise<ChangedRequest | null> {
  const { now } = input;
  return db.transaction(
    (tx) => {
      const error = {
        errorCode: input.code,
        errorMessage: input.message,
        leaseOwner: null,
        leaseExpiresAt: null,
      };
      if (input.retryAt) {
        tx.update(gatheringTasks)
          .set({ ...error, status: 'queued', availableAt: input.retryAt, updatedAt: now })
          .where(heldBy(input.taskId, input.owner))
          .run();
        return null;
      }
      const task = tx
        .update(gatheringTasks)
        .set({ ...error, status: 'failed', finishedAt: now, updatedAt: now })
        .where(heldBy(input.taskId, input.owner))
        .returning()
        .get();
      if (!task) return null;
      finishSource(db, task.availabilityRequestId, now);
      return { instanceId: task.instanceId, availabilityRequestId: task.availabilityRequestId };
    },
    { behavior: 'immediate' },
  );
}

/**
 * Gives back the leases `owner` holds (graceful shutdown): its running tasks return to the queue
 * without counting the interrupted attempt, so another worker picks them up at once.
 *
 * @returns how many tasks were released.
 */
export async function releaseTasks(db: SqliteDb, owner: string, now: Date): Promise<number> {
  const result = db
    .update(gatheringTasks)
    .set({
      status: 'queued',
      leaseOwner: null,
      leaseExpiresAt: null,
      attempts: sql`max(${gatheringTasks.attempts} - 1, 0)`,
      availableAt: now,
      updatedAt: now,
    })
    .where(and(eq(gatheringTasks.leaseOwner, owner), eq(gatheringTasks.status, 'running')))
    .run();
  return result.changes;
}

/** Earliest time a queued task becomes due, or null when none is queued (lets the worker sleep exactly). */
export async function nextTaskDueAt(db: SqliteDb): Promise<Date | null> {
  const row = nextDue(db).get();
  return row?.at == null ? null : new Date(row.at);
}

const nextDue = preparedQuery((db) =>
  db
    .select({ at: sql<number | null>`min(${gatheringTasks.availableAt})` })
    .from(gatheringTasks)
    .where(eq(gatheringTasks.status, 'queued'))
    .prepare(),
);
