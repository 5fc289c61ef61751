import { and, eq, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery, preparedRowInsert } from '../prepared.js';
import { availabilityRequestProducts, availabilityRequests, gatheringTasks } from '../schema/index.js';
import type { ProductRow } from './availability-requests.js';
import { finishSource } from './finished-sources.js';
import type { CompletedRequest, RequestProgress } from './gathering-tasks.js';

/** A gathered offer as the engine stores it: prices in minor units. */
export type GatheredProduct = Omit<
  ProductRow,
  'id' | 'instanceId' | 'availabilityRequestId' | 'gatheringTaskId' | 'sourceId' | 'createdAt'
>;

/**
 * Stores a task's products and marks it succeeded, in one transaction, only while `owner` still holds
 * its lease. A worker whose lease was taken over writes nothing, which is what keeps products from
 * being stored twice after a crash or restart.
 *
 * @returns the changed request, or null when the lease was lost.
 */
export async function completeTask(
  db: SqliteDb,
  input: { taskId: number; owner: string; now: Date; products: GatheredProduct[] },
): Promise<CompletedRequest | null> {
  const [change] = await completeTasks(db, [input]);
  return change ?? null;
}

/** One finished task for {@link completeTasks}. */
export interface TaskCompletion {
  taskId: number;
  owner: string;
  now: Date;
  products: GatheredProduct[];
  /**
   * What the source left out of a successful answer (e.g. items a Sonata seller declined), kept in the
   * task's `error_code` / `error_message` so the request's source outcome shows it beside the products;
   * absent or null clears them.
   */
  note?: { code: string; message: string } | null;
}

/**
 * {@link completeTask} for several tasks in one transaction — one commit for all of them, which is most
 * of what storing a task's few products costs. Each task is still fenced by its own lease.
 *
 * @returns per completion, in order: the changed request with its progress once the batch is stored, or
 *   null when that task's lease was lost.
 */
export async function completeTasks(
  db: SqliteDb,
  completions: TaskCompletion[],
): Promise<(CompletedRequest | null)[]> {
  const succeed = succeedTask(db);
  const insertProduct = productInsert(db);
  const progressOf = requestProgress(db);
  const drawn = new Set<number>();
  return db.transaction(
    () => {
      const changes = completions.map((input) => {
        // Ids are drawn for a task's products before its fence is checked, once per task, as the
        // PostgreSQL store draws them for its one statement: a lost lease only wastes them.
        const ids = drawn.has(input.taskId)
          ? []
          : input.products.map(() => newId('availabilityRequestProduct'));
        drawn.add(input.taskId);
        const nowMs = input.now.getTime();
        const task = succeed.get({
          taskId: input.taskId,
          owner: input.owner,
          nowMs,
          noteCode: input.note?.code ?? null,
          noteMessage: input.note?.message ?? null,
        });
        if (!task) return null;
        for (const [index, product] of input.products.entries()) {
          insertProduct.run({
            ...product,
            id: ids[index] as string,
            instanceId: task.instanceId,
            availabilityRequestId: task.availabilityRequestId,
            gatheringTaskId: task.id,
            sourceId: task.sourceId,
            createdAt: input.now,
          });
        }
        finishSource(db, task.availabilityRequestId, input.now);
        return { instanceId: task.instanceId, availabilityRequestId: task.availabilityRequestId };
      });
      const progress = new Map<string, RequestProgress>();
      return changes.map((change) => {
        if (!change) return null;
        const id = change.availabilityRequestId;
        if (!progress.has(id)) progress.set(id, progressOf.get({ id }) as RequestProgress);
        return { ...change, progress: progress.get(id) as RequestProgress };
      });
    },
    { behavior: 'immediate' },
  );
}

/** Where a request stands ({@link RequestProgress}), by id. */
const requestProgress = preparedQuery((db) =>
  db
    .select({
      status: availabilityRequests.status,
      sourcesFinished: availabilityRequests.sourcesFinished,
      updatedAt: availabilityRequests.updatedAt,
    })
    .from(availabilityRequests)
    .where(eq(availabilityRequests.id, sql.placeholder('id')))
    .prepare(),
);

/**
 * Marks a task succeeded while `owner` holds its lease, with its note (or none); returns the task, or
 * nothing when the lease is lost.
 */
const succeedTask = preparedQuery((db) =>
  db
    .update(gatheringTasks)
    .set({
      status: 'succeeded',
      leaseOwner: null,
      leaseExpiresAt: null,
      errorCode: sql`${sql.placeholder('noteCode')}`,
      errorMessage: sql`${sql.placeholder('noteMessage')}`,
      finishedAt: sql`${sql.placeholder('nowMs')}`,
      updatedAt: sql`${sql.placeholder('nowMs')}`,
    })
    .where(
      and(
        eq(gatheringTasks.id, sql.placeholder('taskId')),
        eq(gatheringTasks.leaseOwner, sql.placeholder('owner')),
        eq(gatheringTasks.status, 'running'),
      ),
    )
    .returning({
      id: gatheringTasks.id,
      instanceId: gatheringTasks.instanceId,
      availabilityRequestId: gatheringTasks.availabilityRequestId,
      sourceId: gatheringTasks.sourceId,
    })
    .prepare(),
);

/** Inserts one gathered product (run per product inside the task's transaction). */
const productInsert = preparedRowInsert(availabilityRequestProducts);
