import { and, asc, eq, gte, inArray, lte, min, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { ChangedRequest, ClaimedTask, GatheredProduct, TaskCompletion } from '../../rows.js';
import { bulkInserter } from '../bulk-insert.js';
import type { PostgresDb } from '../client.js';
import {
  addresses,
  availabilityRequestProducts,
  availabilityRequests,
  gatheringTasks,
  sources,
} from '../schema/index.js';

/** A transaction of {@link PostgresDb}. */
type Tx = Parameters<Parameters<PostgresDb['transaction']>[0]>[0];

/*
 * Lock order, which keeps concurrent workers free of deadlocks: a transaction locks tasks first — claims
 * with `FOR UPDATE SKIP LOCKED` (never waiting), everything else in ascending id order — and only then
 * availability requests, in ascending id order (`FOR NO KEY UPDATE`, which the product rows' foreign-key
 * checks do not conflict with). A claim's second pass over requests locks only `pending` ones, which no
 * other kind of transaction locks (a request leaves `pending` when its first task is leased).
 */

/** Byte order of ids, as SQLite sorts them. */
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Counts finished sources on requests, one per entry (a request may come several times); completes a
 * request when every matching source finished. Status and progress only move forward. Locks the requests
 * in id order first (see the lock order above).
 */
async function finishSources(tx: Tx, finished: { requestId: string; now: Date }[]): Promise<void> {
  const counts = new Map<string, { count: number; now: Date }>();
  for (const { requestId, now } of finished) {
    counts.set(requestId, { count: (counts.get(requestId)?.count ?? 0) + 1, now });
  }
  if (counts.size === 0) return;
  const r = availabilityRequests;
  const ids = [...counts.keys()].sort(byId);
  await tx.select({ id: r.id }).from(r).where(inArray(r.id, ids)).orderBy(asc(r.id)).for('no key update');
  const entries = ids.map((id) => counts.get(id) as { count: number; now: Date });
  // One statement for every request of the batch; its rows are locked already, in id order.
  await tx.execute(sql`update ${r}
      set sources_finished = least(${r.sourcesFinished} + c.count, ${r.sourcesTotal}),
          status = case when ${r.status} = 'completed' or ${r.sourcesFinished} + c.count >= ${r.sourcesTotal}
                        then 'completed' else 'in_progress' end,
          updated_at = c.now
     from unnest(${sql.param(ids)}::text[], ${sql.param(entries.map((entry) => entry.count))}::int[],
                 ${sql.param(entries.map((entry) => entry.now.toISOString()))}::timestamptz[]) as c(id, count, now)
    where ${r.id} = c.id`);
}

/** Running with a lease that expired by `now` (its worker died or stalled). */
const expiredBy = (now: Date) =>
  and(eq(gatheringTasks.status, 'running'), lte(gatheringTasks.leaseExpiresAt, now));

/**
 * Claims up to `limit` runnable tasks for `owner` with a lease until `now + leaseMs`, in one transaction.
 * Runnable: queued and due, or running with an expired lease (its worker died). A task whose lease
 * expired after its last allowed attempt ends as failed instead, so a task that keeps killing its worker
 * cannot loop forever. Requests of claimed tasks move from `pending` to `in_progress`.
 *
 * Race-free on PostgreSQL: candidates are read with `SELECT ... FOR UPDATE SKIP LOCKED` and leased in the
 * same transaction, so concurrent claimers (other pools, other processes) each lock a disjoint set of
 * tasks and a task is never leased twice at once; a claimer skips what another one is deciding on.
 * An expired lease is reclaimed only below `maxAttempts` (re-checked, as the rows may change between the
 * statements of a READ COMMITTED transaction), so an exhausted task is never run again.
 * `claimed` is in task id order, `changed` lists the exhausted tasks' requests (in task id order), then
 * the requests that left `pending` in id byte order — SQLite returns updated rows in rowid order, which is
 * id order for the ids `newId` makes (time-ordered, inserted in order).
 */
export async function claimTasks(
  db: PostgresDb,
  input: { owner: string; now: Date; leaseMs: number; limit: number; maxAttempts: number },
): Promise<{ claimed: ClaimedTask[]; changed: ChangedRequest[] }> {
  const { now, maxAttempts } = input;
  const t = gatheringTasks;
  return db.transaction(async (tx) => {
    const exhausted = await tx
      .select({ id: t.id, instanceId: t.instanceId, availabilityRequestId: t.availabilityRequestId })
      .from(t)
      .where(and(expiredBy(now), gte(t.attempts, maxAttempts)))
      .orderBy(asc(t.id))
      .for('update', { skipLocked: true });
    const changed: ChangedRequest[] = exhausted.map(({ instanceId, availabilityRequestId }) => ({
      instanceId,
      availabilityRequestId,
    }));
    if (exhausted.length > 0) {
      await tx
        .update(t)
        .set({
          status: 'failed',
          leaseOwner: null,
          leaseExpiresAt: null,
          errorCode: 'LEASE_EXPIRED',
          errorMessage: 'The worker running this source stopped responding too often.',
          finishedAt: now,
          updatedAt: now,
        })
        .where(
          inArray(
            t.id,
            exhausted.map((row) => row.id),
          ),
        );
      await finishSources(
        tx,
        exhausted.map((row) => ({ requestId: row.availabilityRequestId, now })),
      );
    }
    if (input.limit <= 0) return { claimed: [], changed };
    // One statement: two index-ordered reads instead of one OR (which would sort every queued task on each
    // claim), expired leases first, each locking with SKIP LOCKED only the rows it returns — the queued read
    // runs only as far as the slots the expired ones left — and the lease written on what they locked.
    const until = new Date(now.getTime() + input.leaseMs);
    const leased = await tx.execute<{ id: string }>(sql`
      with expired as materialized (
        select id from ${t}
         where status = 'running' and lease_expires_at <= ${now} and attempts < ${maxAttempts}
         order by lease_expires_at, id limit ${input.limit} for update skip locked),
      queued as materialized (
        select id from ${t} where status = 'queued' and available_at <= ${now}
         order by available_at, id limit greatest(${input.limit} - (select count(*) from expired), 0)
           for update skip locked)
      update ${t} set status = 'running', lease_owner = ${input.owner}, lease_expires_at = ${until},
             attempts = attempts + 1, updated_at = ${now}
       where id in (select id from expired union all select id from queued)
      returning id`);
    const candidates = leased.rows.map((row) => Number(row.id));
    if (candidates.length === 0) return { claimed: [], changed };
    const rows = await tx
      .select({ task: t, source: sources, request: availabilityRequests, address: addresses })
      .from(t)
      .innerJoin(sources, eq(sources.id, t.sourceId))
      .innerJoin(availabilityRequests, eq(availabilityRequests.id, t.availabilityRequestId))
      .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId))
      .where(inArray(t.id, candidates))
      .orderBy(asc(t.id));
    changed.push(...(await startRequests(tx, [...new Set(rows.map((row) => row.request.id))], now)));
    const claimed = rows.map((row) => ({
      taskId: row.task.id,
      attempts: row.task.attempts,
      source: row.source,
      request: row.request,
      address: row.address,
    }));
    return { claimed, changed };
  });
}

/** Moves the `pending` ones of these requests to `in_progress`, locking them in id order; returns them. */
async function startRequests(tx: Tx, requestIds: string[], now: Date): Promise<ChangedRequest[]> {
  const r = availabilityRequests;
  // One statement: the pending ones are locked in id order (the CTE's rows come sorted, and each is locked
  // as it comes), then updated. A locked row is re-read at its newest version: a request another claimer
  // started meanwhile is no longer pending and is left out.
  const started = await tx.execute<{ instance_id: string; id: string }>(sql`
    with pending as materialized (
      select id from ${r} where id = any(${sql.param(requestIds)}::text[]) and status = 'pending'
       order by id for no key update)
    update ${r} set status = 'in_progress', updated_at = ${now}
     where id in (select id from pending) and status = 'pending'
    returning instance_id, id`);
  return started.rows
    .map((row) => ({ instanceId: row.instance_id, availabilityRequestId: row.id }))
    .sort((a, b) => byId(a.availabilityRequestId, b.availabilityRequestId));
}

/** Lease fence: the task is still running and still leased to `owner`. */
function heldBy(taskId: number, owner: string) {
  return and(
    eq(gatheringTasks.id, taskId),
    eq(gatheringTasks.leaseOwner, owner),
    eq(gatheringTasks.status, 'running'),
  );
}

const insertProductRows = bulkInserter(availabilityRequestProducts);

/**
 * Stores a task's products and marks it succeeded, in one transaction, only while `owner` still holds
 * its lease. A worker whose lease was taken over writes nothing, which is what keeps products from
 * being stored twice after a crash or restart.
 *
 * @returns the changed request, or null when the lease was lost.
 */
export async function completeTask(
  db: PostgresDb,
  input: { taskId: number; owner: string; now: Date; products: GatheredProduct[] },
): Promise<ChangedRequest | null> {
  const [change] = await completeTasks(db, [input]);
  return change ?? null;
}

/**
 * {@link completeTask} for several tasks in one transaction. Each task is still fenced by its own lease;
 * its `note` (see `TaskCompletion`) goes to `error_code` / `error_message`, none clears them.
 *
 * Race-free on PostgreSQL: each task moves from `running` (leased to its owner) to `succeeded` by an
 * `UPDATE ... WHERE lease_owner = owner AND status = 'running' RETURNING`, which waits for a concurrent
 * claimer's or completer's row lock and then re-checks the fence on the newest row — so exactly one
 * transaction wins a task, and only the winner writes its products and counts its source on the request
 * (locked `FOR NO KEY UPDATE`, progress only moving forward), all in the same transaction.
 *
 * @returns per completion, in order: the changed request, or null when that task's lease was lost.
 */
export async function completeTasks(
  db: PostgresDb,
  completions: TaskCompletion[],
): Promise<(ChangedRequest | null)[]> {
  if (completions.length === 0) return [];
  const t = gatheringTasks;
  return db.transaction(async (tx) => {
    type Succeeded = { id: number; instanceId: string; availabilityRequestId: string; sourceId: string };
    const succeeded: (Succeeded | null)[] = completions.map(() => null);
    // Tasks in id order (the lock order); a task listed twice goes to its first completion, as in SQLite.
    const order = completions
      .map((_, index) => index)
      .sort((a, b) => {
        const byTask = (completions[a] as TaskCompletion).taskId - (completions[b] as TaskCompletion).taskId;
        return byTask !== 0 ? byTask : a - b;
      });
    // One statement for the whole batch, after locking its tasks in id order (the lock order above). The
    // fence (still running, still this owner's) is re-checked on each row's newest version after a lock
    // wait, so exactly one transaction wins a task. A task listed twice goes to its first completion.
    const ids = order.map((index) => (completions[index] as TaskCompletion).taskId);
    await tx.execute(
      sql`select id from ${t} where id = any(${sql.param(ids)}::bigint[]) order by id for update`,
    );
    const firsts = new Map<number, number>();
    for (const index of order) {
      const { taskId } = completions[index] as TaskCompletion;
      if (!firsts.has(taskId)) firsts.set(taskId, index);
    }
    const fenced = [...firsts.values()].map((index) => completions[index] as TaskCompletion);
    const won = await tx.execute<{
      id: string;
      instance_id: string;
      availability_request_id: string;
      source_id: string;
    }>(sql`update ${t} set status = 'succeeded', lease_owner = null, lease_expires_at = null,
             error_code = c.note_code, error_message = c.note_message, finished_at = c.now, updated_at = c.now
           from unnest(${sql.param(fenced.map((input) => input.taskId))}::bigint[],
                       ${sql.param(fenced.map((input) => input.owner))}::text[],
                       ${sql.param(fenced.map((input) => input.now.toISOString()))}::timestamptz[],
                       ${sql.param(fenced.map((input) => input.note?.code ?? null))}::text[],
                       ${sql.param(fenced.map((input) => input.note?.message ?? null))}::text[])
             as c(id, owner, now, note_code, note_message)
           where ${t.id} = c.id and ${t.leaseOwner} = c.owner and ${t.status} = 'running'
           returning ${t.id}, ${t.instanceId}, ${t.availabilityRequestId}, ${t.sourceId}`);
    for (const row of won.rows) {
      const index = firsts.get(Number(row.id));
      if (index === undefined) continue;
      succeeded[index] = {
        id: Number(row.id),
        instanceId: row.instance_id,
        availabilityRequestId: row.availability_request_id,
        sourceId: row.source_id,
      };
    }
    const productRows: (typeof availabilityRequestProducts.$inferInsert)[] = [];
    const finished: { requestId: string; now: Date }[] = [];
    completions.forEach((input, index) => {
      const task = succeeded[index];
      if (!task) return;
      for (const product of input.products) {
        productRows.push({
          ...product,
          id: newId('availabilityRequestProduct'),
          instanceId: task.instanceId,
          availabilityRequestId: task.availabilityRequestId,
          gatheringTaskId: task.id,
          sourceId: task.sourceId,
          createdAt: input.now,
        });
      }
      finished.push({ requestId: task.availabilityRequestId, now: input.now });
    });
    await insertProductRows(tx, productRows);
    await finishSources(tx, finished);
    return succeeded.map((task) =>
      task ? { instanceId: task.instanceId, availabilityRequestId: task.availabilityRequestId } : null,
    );
  });
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
