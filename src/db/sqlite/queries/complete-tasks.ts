/*
 * Task completions on SQLite; each function implements the operation of its name documented in
 * `GatheringOperations` (src/db/contract/gathering.ts).
 */
import { and, eq, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import { type RequestChange, requestChangeEvents } from '../../shared/events.js';
import { completeOne } from '../../shared/gathering.js';
import type { Op } from '../operation.js';
import { preparedQuery, preparedRowInsert } from '../prepared.js';
import { availabilityRequestProducts, gatheringTasks } from '../schema/index.js';
import { finishSource } from './finished-sources.js';
import { recordEvents } from './record-events.js';

export const completeTask: Op<'completeTask'> = async (db, completion) =>
  completeOne((completions) => completeTasks(db, completions), completion);

/**
 * One write transaction (`BEGIN IMMEDIATE`, one commit for the batch), prepared statements per task and
 * product. A task listed again fails its fence, since the first completion ended it.
 */
export const completeTasks: Op<'completeTasks'> = async (db, completions) => {
  const succeed = succeedTask(db);
  const insertProduct = productInsert(db);
  const drawn = new Set<number>();
  return db.transaction(
    () => {
      const finished: RequestChange[] = [];
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
        const change = finishSource(db, task.availabilityRequestId, input.now);
        if (change) finished.push({ ...change, traceContext: input.traceContext ?? null });
        return { instanceId: task.instanceId, availabilityRequestId: task.availabilityRequestId };
      });
      recordEvents(db, requestChangeEvents(finished));
      // Where each request stands once the whole batch is stored: its last change in the batch.
      const progress = new Map(finished.map((change) => [change.availabilityRequestId, change.progress]));
      return changes.map((change) => {
        const reached = change && progress.get(change.availabilityRequestId);
        return change && reached ? { ...change, progress: reached } : null;
      });
    },
    { behavior: 'immediate' },
  );
};

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
