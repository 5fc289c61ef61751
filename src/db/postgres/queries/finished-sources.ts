/**
 * A CTE writing the outbox events of requests a statement changed (`EventOperations`, the transactional
 * outbox): one `availabilityRequest:changed` event per row of `source` — a CTE returning a changed request's
 * `id`, `instance_id`, `status`, `sources_finished` and `updated_at` after the change, and the
 * `trace_context` its event keeps (`OutboxEventOf.traceContext`; null for none) — in the same
 * statement, so the events commit with the change or not at all. The version and payload are those of
 * `requestChangeEvents` (src/db/shared/events.ts; the twin-store tests compare the two), written in SQL
 * because these statements run without a transaction of their own: a second statement would need one.
 *
 * Text to place in a `WITH` list after `source` (it begins with a comma).
 */
export function requestEventsCte(name: string, source: string): string {
  return `,
${name} as (
  insert into outbox_events (instance_id, topic, subject_id, version, payload, created_at, trace_context)
  select e.instance_id, 'availabilityRequest:changed', e.id,
         (case e.status when 'pending' then 0 when 'in_progress' then 1 else 2 end) * 1000000
           + e.sources_finished,
         jsonb_build_object('kind', 'updated', 'status', e.status, 'sourcesFinished', e.sources_finished,
                            'updatedAtMs', (extract(epoch from e.updated_at) * 1000)::bigint),
         e.updated_at, e.trace_context
    from ${source} e order by e.id)`;
}

/**
 * The CTEs that count finished sources on their requests, for statements that end tasks: given a CTE
 * `counts(id, count, now, trace_context)` — a request id, how many of its sources finished, when, and the
 * trace context of the change's event (`TaskCompletion.traceContext`, null for none) — they lock those
 * requests in id order (`requests_locked`, the lock order of `gathering-tasks.ts`: tasks first, then
 * requests in id order), then add the counts (`finished`): a request completes when every matching source
 * finished; status and progress only move forward; `updated_at` becomes `now`. `finished` returns each
 * request's `id`, `instance_id`, `status`, `sources_finished` and `updated_at` as they are after it, and
 * `finished_events` writes each change's outbox event ({@link requestEventsCte}).
 *
 * Text to place after `counts` in a `WITH` list (it begins with a comma).
 */
export const FINISHED_SOURCES_CTES = `,
requests_locked as materialized (
  select id from availability_requests where id in (select id from counts) order by id for no key update),
finished as (
  update availability_requests r
     set sources_finished = least(r.sources_finished + c.count, r.sources_total),
         status = case when r.status = 'completed' or r.sources_finished + c.count >= r.sources_total
                       then 'completed' else 'in_progress' end,
         updated_at = c.now
    from counts c
   where r.id = c.id and r.id in (select id from requests_locked)
  returning r.id, r.instance_id, r.status, r.sources_finished, r.updated_at, c.trace_context)${requestEventsCte('finished_events', 'finished')}`;
