/*
 * The claim on PostgreSQL; it implements `claimTasks` as documented in `GatheringOperations`
 * (src/db/contract/gathering.ts).
 */
import { asc, eq, sql } from 'drizzle-orm';
import type { ChangedRequest } from '../../contract/index.js';
import { leaseExpired } from '../../shared/gathering.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { pricingRulesOf } from '../pricing-rules.js';
import { canonicalFilters } from '../request-records.js';
import { addresses, availabilityRequests, gatheringTasks, pricePlans, sources } from '../schema/index.js';
import { FINISHED_SOURCES_CTES, requestEventsCte } from './finished-sources.js';

/** `text` as an SQL string literal, for the constant text of a statement. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The claim as one statement (`claimTasks`), run as a named prepared statement without `BEGIN`/`COMMIT`:
 * a claim was six round trips, and on PostgreSQL each costs the gateway a socket write and a wake-up of the
 * server process (about a tenth of the gathering CPU, profiled in `npm run bench`, pg-gathering).
 *
 * Every step is a CTE of the one statement, so it commits or fails as a whole, and all read one snapshot:
 * 1. `exhausted`: running tasks whose lease expired for the `maxAttempts`-th time, locked `FOR UPDATE
 *    SKIP LOCKED` in id order; `failed` ends them (`LEASE_EXPIRED`), and each counts as a finished source
 *    on its request ({@link FINISHED_SOURCES_CTES}).
 * 2. `expired` then `queued`: two index-ordered reads instead of one OR (which would sort every queued task
 *    on each claim), expired leases first, each locking with SKIP LOCKED only the rows it returns — the
 *    queued read runs only as far as the slots the expired ones left; `leased` writes the lease on them: a
 *    queued task starts an attempt (`attempts` + 1), an expired lease's attempt is taken over
 *    (`lease_expiries` + 1, issue 48).
 * 3. `pending` then `started`: the requests of leased tasks still `pending`, locked in id order and moved to
 *    `in_progress`. A locked row is re-read at its newest version, so a request another claimer started
 *    meanwhile is no longer pending and is left out.
 * `finished` and `started` touch different requests: one with a running task has left `pending`. Each
 * writes its changes' outbox events (`finished_events`, `started_events`), which keep the trace context
 * stored with the request's tasks (`gathering_tasks.trace_context`, null without tracing): a request's
 * tasks were all queued by its creation with that one context, so `min` picks it from any of them.
 * The lock order is the one of `gathering-tasks.ts`: tasks first, then requests in id order.
 *
 * The result is one row per exhausted task (`kind` `exhausted`, its request), started request (`started`)
 * and leased task (`leased`, its id).
 */
const CLAIM_SQL = `
with exhausted as materialized (
  select id, instance_id, availability_request_id, trace_context from gathering_tasks
   where status = 'running' and lease_expires_at <= $1 and lease_expiries + 1 >= $2
   order by id for update skip locked),
failed as (
  update gathering_tasks set status = 'failed', lease_owner = null, lease_expires_at = null,
         lease_expiries = lease_expiries + 1, error_code = ${literal(leaseExpired.code)}, error_message = ${literal(leaseExpired.message)},
         finished_at = $1, updated_at = $1
   where id in (select id from exhausted)),
counts as materialized (
  select availability_request_id as id, count(*)::int as count, $1::timestamptz as now,
         min(trace_context) as trace_context
    from exhausted group by availability_request_id)${FINISHED_SOURCES_CTES},
expired as materialized (
  select id from gathering_tasks
   where status = 'running' and lease_expires_at <= $1 and lease_expiries + 1 < $2
   order by lease_expires_at, id limit $3 for update skip locked),
queued as materialized (
  select id from gathering_tasks where status = 'queued' and available_at <= $1
   order by available_at, id limit greatest($3 - (select count(*) from expired), 0)
     for update skip locked),
leased as (
  update gathering_tasks set status = 'running', lease_owner = $4, lease_expires_at = $5,
         attempts = attempts + (status = 'queued')::int,
         lease_expiries = lease_expiries + (status = 'running')::int, updated_at = $1
   where id in (select id from expired union all select id from queued)
  returning id, availability_request_id, trace_context),
pending as materialized (
  select id from availability_requests
   where id in (select availability_request_id from leased) and status = 'pending'
   order by id for no key update),
started as (
  update availability_requests set status = 'in_progress', updated_at = $1
   where id in (select id from pending) and status = 'pending'
  returning instance_id, id, status, sources_finished, updated_at,
            (select min(l.trace_context) from leased l
              where l.availability_request_id = availability_requests.id) as trace_context)${requestEventsCte('started_events', 'started')}
select 'exhausted' as kind, id::text as task_id, instance_id, availability_request_id from exhausted
union all
select 'started', null, instance_id, id from started
union all
select 'leased', id::text, null, availability_request_id from leased`;

/** The claimed tasks with their source, request, address and price plan, in task id order. */
const claimedRows = preparedQuery('claimed_tasks', (db, name) => {
  const t = gatheringTasks;
  return db
    .select({
      task: t,
      source: sources,
      request: availabilityRequests,
      address: addresses,
      plan: pricePlans,
      rules: pricingRulesOf(pricePlans.id),
    })
    .from(t)
    .innerJoin(sources, eq(sources.id, t.sourceId))
    .innerJoin(availabilityRequests, eq(availabilityRequests.id, t.availabilityRequestId))
    .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId))
    .innerJoin(pricePlans, eq(pricePlans.id, availabilityRequests.pricePlanId))
    .where(sql`${t.id} = any(${sql.placeholder('ids')}::bigint[])`)
    .orderBy(asc(t.id))
    .prepare(name);
});

/** Byte order of ids, as the contract orders `changed`. */
const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * One statement ({@link CLAIM_SQL}), then a read of what it leased, each task with its request's price plan
 * (a read per task was a round trip per task).
 *
 * Race-free across pools and processes: candidates are read with `SELECT … FOR UPDATE SKIP LOCKED` and
 * leased in the same statement, so concurrent claimers each lock a disjoint set of tasks and a task is
 * never leased twice at once; a claimer skips what another one is deciding on. An expired lease is
 * taken over only below `maxAttempts` expiries, so an exhausted task is never run again.
 */
export const claimTasks: Op<'claimTasks'> = async (db, input) => {
  const { now } = input;
  const until = new Date(now.getTime() + input.leaseMs);
  const result = await db.$client.query<{
    kind: 'exhausted' | 'started' | 'leased';
    task_id: string | null;
    instance_id: string | null;
    availability_request_id: string;
  }>({
    name: 'claim_tasks',
    text: CLAIM_SQL,
    values: [now, input.maxAttempts, Math.max(0, input.limit), input.owner, until],
  });
  const exhausted: { taskId: number; change: ChangedRequest }[] = [];
  const started: ChangedRequest[] = [];
  const leased: number[] = [];
  for (const row of result.rows) {
    const change = { instanceId: row.instance_id ?? '', availabilityRequestId: row.availability_request_id };
    if (row.kind === 'exhausted') exhausted.push({ taskId: Number(row.task_id), change });
    else if (row.kind === 'started') started.push(change);
    else leased.push(Number(row.task_id));
  }
  const changed = [
    ...exhausted.sort((a, b) => a.taskId - b.taskId).map((entry) => entry.change),
    ...started.sort((a, b) => byId(a.availabilityRequestId, b.availabilityRequestId)),
  ];
  if (leased.length === 0) return { claimed: [], changed };
  const rows = await claimedRows(db).execute({ ids: leased });
  const claimed = rows.map((row) => ({
    taskId: row.task.id,
    attempts: row.task.attempts,
    source: row.source,
    // Filters with their keys in the service's order (jsonb reorders them), as every read of a record shows them.
    request: { ...row.request, filters: canonicalFilters(row.request.filters) },
    address: row.address,
    pricingPlan: { ...row.plan, rules: row.rules },
    traceContext: row.task.traceContext,
  }));
  return { claimed, changed };
};
