/*
 * Task completions on PostgreSQL; each function implements the operation of its name documented in
 * `GatheringOperations` (src/db/contract/gathering.ts).
 */
import { newId } from '../../../ids.js';
import type {
  CompletedRequest,
  GatheredProduct,
  RequestProgress,
  TaskCompletion,
} from '../../contract/index.js';
import { completeOne } from '../../shared/gathering.js';
import type { Op } from '../operation.js';
import { FINISHED_SOURCES_CTES } from './finished-sources.js';

/**
 * A completion batch as one statement (`completeTasks`), run as a named prepared statement without
 * `BEGIN`/`COMMIT`: it was seven round trips, each a socket write and a wake-up of the server process.
 *
 * Every step is a CTE of the one statement, so it commits or fails as a whole:
 * 1. `input`: the batch, one row per task (`$1`–`$5`: id, owner, now, note code and message; `$20`: the
 *    trace context of its event, `TaskCompletion.traceContext`).
 * 2. `locked`: its tasks, locked in id order (the lock order of `gathering-tasks.ts`: tasks first).
 * 3. `won`: the fence — a task moves to `succeeded` only while still `running` and leased to its owner. A
 *    row another transaction changed meanwhile is re-checked at its newest version (READ COMMITTED), so
 *    exactly one transaction wins a task.
 * 4. `inserted`: the products (`$6`–`$19`, one array per column, in the given order) of the tasks won only,
 *    with the task's instance, request and source and the completion's time.
 * 5. `counts` and {@link FINISHED_SOURCES_CTES}: each won task counts as a finished source on its request,
 *    `updated_at` the time of the request's last completion in the batch.
 * The result is the won tasks with their instance and request, and where the request stands after the
 * batch (`finished`'s returned row).
 */
const COMPLETE_SQL = `
with input as materialized (
  select * from unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $20::text[])
    with ordinality as c(id, owner, now, note_code, note_message, trace_context, ord)),
locked as materialized (
  select id from gathering_tasks where id in (select id from input) order by id for update),
won as (
  update gathering_tasks t
     set status = 'succeeded', lease_owner = null, lease_expires_at = null,
         error_code = c.note_code, error_message = c.note_message, finished_at = c.now, updated_at = c.now
    from input c
   where t.id = c.id and t.id in (select id from locked) and t.lease_owner = c.owner and t.status = 'running'
  returning t.id, t.instance_id, t.availability_request_id, t.source_id, c.now, c.trace_context, c.ord),
inserted as (
  insert into availability_request_products (id, instance_id, availability_request_id, gathering_task_id,
         source_id, network, technology_type, connection_type, download_kbps, upload_kbps,
         contract_term_months, purchase_mrc_minor, purchase_nrc_minor, mrc_minor, nrc_minor, currency,
         order_terms, created_at)
  select p.id, w.instance_id, w.availability_request_id, w.id, w.source_id, p.network, p.technology_type,
         p.connection_type, p.download_kbps, p.upload_kbps, p.contract_term_months, p.purchase_mrc_minor,
         p.purchase_nrc_minor, p.mrc_minor, p.nrc_minor, p.currency, p.order_terms::jsonb, w.now
    from unnest($6::text[], $7::bigint[], $8::text[], $9::text[], $10::text[], $11::int[], $12::int[],
                $13::int[], $14::int[], $15::int[], $16::int[], $17::int[], $18::text[], $19::text[])
         with ordinality as p(id, task_id, network, technology_type, connection_type, download_kbps,
                              upload_kbps, contract_term_months, purchase_mrc_minor, purchase_nrc_minor,
                              mrc_minor, nrc_minor, currency, order_terms, ord)
    join won w on w.id = p.task_id
   order by p.ord),
counts as materialized (
  select availability_request_id as id, count(*)::int as count, (array_agg(now order by ord desc))[1] as now,
         (array_agg(trace_context order by ord desc))[1] as trace_context
    from won group by availability_request_id)${FINISHED_SOURCES_CTES}
select w.id::text as id, w.instance_id, w.availability_request_id, f.status, f.sources_finished, f.updated_at
  from won w join finished f on f.id = w.availability_request_id`;

/** The product columns the batch's arrays carry, in `$7`–`$18` order after the id (`$19`: order terms as JSON text). */
const productColumns = [
  'network',
  'technologyType',
  'connectionType',
  'downloadKbps',
  'uploadKbps',
  'contractTermMonths',
  'purchaseMrcMinor',
  'purchaseNrcMinor',
  'mrcMinor',
  'nrcMinor',
  'currency',
] as const satisfies readonly (keyof GatheredProduct)[];

export const completeTask: Op<'completeTask'> = async (db, completion) =>
  completeOne((completions) => completeTasks(db, completions), completion);

/**
 * One statement ({@link COMPLETE_SQL}). Each task moves from `running` (leased to its owner) to `succeeded`
 * by an `UPDATE … WHERE lease_owner = owner AND status = 'running'` after locking the batch's tasks in id
 * order; the fence is re-checked on the newest row after a lock wait, so exactly one transaction wins a
 * task, and only the winner writes its products and counts its source on the request. A task listed again
 * is left out of the statement: its parts share one snapshot, so both rows would pass the fence.
 */
export const completeTasks: Op<'completeTasks'> = async (db, completions) => {
  if (completions.length === 0) return [];
  const firsts = new Map<number, number>();
  completions.forEach((completion, index) => {
    if (!firsts.has(completion.taskId)) firsts.set(completion.taskId, index);
  });
  const fenced = [...firsts.values()].map((index) => completions[index] as TaskCompletion);
  const productIds: string[] = [];
  const productTasks: number[] = [];
  const columns: unknown[][] = productColumns.map(() => []);
  const orderTerms: (string | null)[] = [];
  for (const completion of fenced) {
    for (const product of completion.products) {
      productIds.push(newId('availabilityRequestProduct'));
      productTasks.push(completion.taskId);
      for (const [index, column] of productColumns.entries()) {
        (columns[index] as unknown[]).push(product[column]);
      }
      orderTerms.push(product.orderTerms ? JSON.stringify(product.orderTerms) : null);
    }
  }
  const won = await db.$client.query<{
    id: string;
    instance_id: string;
    availability_request_id: string;
    status: RequestProgress['status'];
    sources_finished: number;
    updated_at: Date;
  }>({
    name: 'complete_tasks',
    text: COMPLETE_SQL,
    values: [
      fenced.map((completion) => completion.taskId),
      fenced.map((completion) => completion.owner),
      fenced.map((completion) => completion.now.toISOString()),
      fenced.map((completion) => completion.note?.code ?? null),
      fenced.map((completion) => completion.note?.message ?? null),
      productIds,
      productTasks,
      ...columns,
      orderTerms,
      fenced.map((completion) => completion.traceContext ?? null),
    ],
  });
  const changes = new Map<number, CompletedRequest>(
    won.rows.map((row) => [
      Number(row.id),
      {
        instanceId: row.instance_id,
        availabilityRequestId: row.availability_request_id,
        progress: { status: row.status, sourcesFinished: row.sources_finished, updatedAt: row.updated_at },
      },
    ]),
  );
  return completions.map((completion, index) =>
    firsts.get(completion.taskId) === index ? (changes.get(completion.taskId) ?? null) : null,
  );
};
