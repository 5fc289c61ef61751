import { and, eq, lte, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { PricingPlan } from '../../../gathering/pricing.js';
import { newId } from '../../../ids.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery, preparedRowInsert } from '../prepared.js';
import {
  addresses,
  availabilityRequestProducts,
  availabilityRequests,
  gatheringTasks,
  sources,
} from '../schema/index.js';
import type { AddressRow, AvailabilityRequestRow, ProductRow } from './availability-requests.js';
import type { SourceRow } from './catalog.js';
import { loadPricingPlan } from './price-plans.js';

/** A task this worker holds the lease of, with everything a source adapter needs. */
export interface ClaimedTask {
  /** The task's rowid. */
  taskId: number;
  attempts: number;
  source: SourceRow;
  request: AvailabilityRequestRow;
  address: AddressRow;
  /** The request's price plan with its rules, as it is at the claim: the worker prices the offers with it. */
  pricingPlan: PricingPlan;
}

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

const finishSourceStatement = preparedQuery((db) =>
  db
    .update(availabilityRequests)
    .set({
      sourcesFinished: sql`min(${availabilityRequests.sourcesFinished} + 1, ${availabilityRequests.sourcesTotal})`,
      status: sql`case when ${availabilityRequests.sourcesFinished} + 1 >= ${availabilityRequests.sourcesTotal} then 'completed' else 'in_progress' end`,
      updatedAt: sql`${sql.placeholder('nowMs')}`,
    })
    .where(eq(availabilityRequests.id, sql.placeholder('requestId')))
    .prepare(),
);

/**
 * Counts one more finished source on a request; completes it when every matching source finished.
 * Runs on the connection of `db` — inside the caller's transaction when called from one.
 */
function finishSource(db: SqliteDb, requestId: string, now: Date): void {
  finishSourceStatement(db).run({ requestId, nowMs: now.getTime() });
}

/**
 * Claims up to `limit` runnable tasks for `owner` with a lease until `now + leaseMs`, in one transaction.
 * Runnable: queued and due, or running with an expired lease (its worker died). A task whose lease
 * expired after its last allowed attempt ends as failed instead, so a task that keeps killing its worker
 * cannot loop forever. Requests of claimed tasks move from `pending` to `in_progress`. Each claimed task
 * comes with its request's price plan as it is at the claim (the worker prices the offers with it).
 * @throws Error when a request's price plan is missing, which its foreign key prevents.
 */
export async function claimTasks(
  db: SqliteDb,
  input: { owner: string; now: Date; leaseMs: number; limit: number; maxAttempts: number },
): Promise<{ claimed: ClaimedTask[]; changed: ChangedRequest[] }> {
  const nowMs = input.now.getTime();
  const statements = claimStatements(db);
  const { leased, changed } = db.transaction(
    (): { leased: Omit<ClaimedTask, 'pricingPlan'>[]; changed: ChangedRequest[] } => {
      const changed: ChangedRequest[] = [];
      for (const row of statements.failExhausted.all({ nowMs, maxAttempts: input.maxAttempts })) {
        finishSource(db, row.availabilityRequestId, input.now);
        changed.push(row);
      }
      if (input.limit <= 0) return { leased: [], changed };
      // Two index-ordered reads instead of one OR, which would sort every queued task on each claim.
      const expired = statements.expired.all({ nowMs, limit: input.limit });
      const queued = statements.queued.all({ nowMs, limit: input.limit - expired.length });
      const candidates = JSON.stringify([...expired, ...queued].map((row) => row.id));
      if (candidates === '[]') return { leased: [], changed };
      statements.lease.run({
        ids: candidates,
        owner: input.owner,
        leaseExpiresAtMs: nowMs + input.leaseMs,
        nowMs,
      });
      const rows = statements.leased.all({ ids: candidates });
      const requestIds = JSON.stringify(rows.map((row) => row.request.id));
      const started = statements.startRequests.all({ ids: requestIds, nowMs });
      changed.push(...started);
      // The requests as they are once the claim commits: the ones it started are in progress.
      const startedIds = new Set(started.map((row) => row.availabilityRequestId));
      const leased = rows.map((row) => ({
        taskId: row.task.id,
        attempts: row.task.attempts,
        source: row.source,
        request: startedIds.has(row.request.id)
          ? { ...row.request, status: 'in_progress' as const, updatedAt: input.now }
          : row.request,
        address: row.address,
      }));
      return { leased, changed };
    },
    { behavior: 'immediate' },
  );
  const plans = new Map<string, PricingPlan>();
  for (const task of leased) {
    const id = task.request.pricePlanId;
    if (plans.has(id)) continue;
    const plan = await loadPricingPlan(db, id);
    // A request's plan cannot go while the request refers to it (a foreign key).
    if (!plan) throw new Error(`price plan ${id} of request ${task.request.id} is missing`);
    plans.set(id, plan);
  }
  const claimed = leased.map((task) => ({
    ...task,
    pricingPlan: plans.get(task.request.pricePlanId) as PricingPlan,
  }));
  return { claimed, changed };
}

/** `column in (the ids of a JSON array placeholder)`: one prepared statement for any number of ids. */
const inJsonIds = (column: SQLiteColumn, name: string) =>
  sql`${column} in (select value from json_each(${sql.placeholder(name)}))`;

/** The statements of {@link claimTasks}, prepared once per database. */
const claimStatements = preparedQuery((db) => {
  const t = gatheringTasks;
  const nowMs = sql`${sql.placeholder('nowMs')}`;
  const expired = and(eq(t.status, 'running'), lte(t.leaseExpiresAt, nowMs));
  return {
    failExhausted: db
      .update(t)
      .set({
        status: 'failed',
        leaseOwner: null,
        leaseExpiresAt: null,
        errorCode: 'LEASE_EXPIRED',
        errorMessage: 'The worker running this source stopped responding too often.',
        finishedAt: nowMs,
        updatedAt: nowMs,
      })
      .where(and(expired, sql`${t.attempts} >= ${sql.placeholder('maxAttempts')}`))
      .returning({ instanceId: t.instanceId, availabilityRequestId: t.availabilityRequestId })
      .prepare(),
    expired: db
      .select({ id: t.id })
      .from(t)
      .where(expired)
      .orderBy(t.leaseExpiresAt, t.id)
      .limit(sql.placeholder('limit'))
      .prepare(),
    queued: db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.status, 'queued'), lte(t.availableAt, nowMs)))
      .orderBy(t.availableAt, t.id)
      .limit(sql.placeholder('limit'))
      .prepare(),
    lease: db
      .update(t)
      .set({
        status: 'running',
        leaseOwner: sql`${sql.placeholder('owner')}`,
        leaseExpiresAt: sql`${sql.placeholder('leaseExpiresAtMs')}`,
        attempts: sql`${t.attempts} + 1`,
        updatedAt: nowMs,
      })
      .where(inJsonIds(t.id, 'ids'))
      .prepare(),
    leased: db
      .select({ task: t, source: sources, request: availabilityRequests, address: addresses })
      .from(t)
      .innerJoin(sources, eq(sources.id, t.sourceId))
      .innerJoin(availabilityRequests, eq(availabilityRequests.id, t.availabilityRequestId))
      .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId))
      .where(inJsonIds(t.id, 'ids'))
      .prepare(),
    startRequests: db
      .update(availabilityRequests)
      .set({ status: 'in_progress', updatedAt: nowMs })
      .where(and(eq(availabilityRequests.status, 'pending'), inJsonIds(availabilityRequests.id, 'ids')))
      .returning({
        instanceId: availabilityRequests.instanceId,
        availabilityRequestId: availabilityRequests.id,
      })
      .prepare(),
  };
});

/** A gathered offer as the engine stores it: prices in minor units. */
export type GatheredProduct = Omit<
  ProductRow,
  'id' | 'instanceId' | 'availabilityRequestId' | 'gatheringTaskId' | 'sourceId' | 'createdAt'
>;

/** Lease fence: the task is still running and still leased to `owner`. */
function heldBy(taskId: number, owner: string) {
  return and(
    eq(gatheringTasks.id, taskId),
    eq(gatheringTasks.leaseOwner, owner),
    eq(gatheringTasks.status, 'running'),
  );
}

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
