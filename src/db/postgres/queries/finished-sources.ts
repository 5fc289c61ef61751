/**
 * The CTEs that count finished sources on their requests, for statements that end tasks: given a CTE
 * `counts(id, count, now)` — a request id, how many of its sources finished, and when — they lock those
 * requests in id order (`requests_locked`, the lock order of `gathering-tasks.ts`: tasks first, then
 * requests in id order), then add the counts (`finished`): a request completes when every matching source
 * finished; status and progress only move forward; `updated_at` becomes `now`. `finished` returns each
 * request's `id`, `status`, `sources_finished` and `updated_at` as they are after it.
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
  returning r.id, r.status, r.sources_finished, r.updated_at)`;
