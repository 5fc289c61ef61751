import { Repeater } from '@repeaterjs/repeater';
import { LRUCache } from 'lru-cache';
import type { Context, Services } from '../context.js';
import type {
  AvailabilityRequestRecord,
  OutboxEventOf,
  StoredAvailabilityRequestRecord,
} from '../db/rows.js';
import { shownRecord } from '../db/shared/availability.js';
import { requestVersion } from '../db/shared/events.js';
import { type PublishedEvent, requestEventType } from '../events.js';
import { requireViewer } from './authentication.js';

const knownRequests = new WeakMap<Services['db'], LRUCache<string, AvailabilityRequestRecord>>();

/**
 * The records of requests this process created or read for an event lately, by id: one cache per store (a
 * WeakMap, so a closed test store's goes with it), at most 10,000 (least recently used leave first). Exact,
 * not a trade-off of freshness: what is shown of a request never changes after its creation but its
 * progress, which each event brings along.
 */
function knownRequestsOf(db: Services['db']): LRUCache<string, AvailabilityRequestRecord> {
  let known = knownRequests.get(db);
  if (!known) {
    known = new LRUCache({ max: 10_000 });
    knownRequests.set(db, known);
  }
  return known;
}

/**
 * Remembers requests this process just created, so the relay publishing their events (in this process)
 * does not read them back (`npm run bench`, rest-create-100: the read cost a create a third of its speed).
 */
export function rememberRequests(
  services: Pick<Services, 'db'>,
  records: readonly StoredAvailabilityRequestRecord[],
): void {
  const known = knownRequestsOf(services.db);
  for (const { request, address } of records) known.set(request.id, shownRecord(request, address));
}

/**
 * The events to publish for outbox events of `availabilityRequest:changed` (the relay's batch, in order):
 * each request's record as its event's transaction left it — the request as known here or read now (what is
 * shown of it never changes after creation, but its progress) with the progress the event stored. The
 * requests not known here in one read.
 *
 * @returns one entry per event, in order: null where its request is gone (nothing left to tell).
 */
export async function requestEventsOf(
  services: Pick<Services, 'db'>,
  events: readonly OutboxEventOf<'availabilityRequest:changed'>[],
): Promise<(PublishedEvent | null)[]> {
  const known = knownRequestsOf(services.db);
  const unknown = [...new Set(events.map((event) => event.subjectId))].filter((id) => !known.has(id));
  for (const record of unknown.length === 0 ? [] : await services.db.findAvailabilityRequestsById(unknown))
    known.set(record.request.id, record);
  return events.map((event) => {
    const current = known.get(event.subjectId);
    if (!current) return null;
    const { kind, status, sourcesFinished, updatedAtMs } = event.payload;
    const record: AvailabilityRequestRecord = {
      request: { ...current.request, status, sourcesFinished, updatedAt: new Date(updatedAtMs) },
      address: current.address,
    };
    const detail = { instanceId: event.instanceId, kind, record };
    return { type: requestEventType(event.instanceId), detail };
  });
}

/** Progress as one comparable number (the outbox event's version); it only ever grows for a request. */
function progressKey(record: AvailabilityRequestRecord): number {
  return requestVersion(record.request.status, record.request.sourcesFinished);
}

/**
 * Where a payload of `availabilityRequestUpdated` stands — its request and {@link progressKey} — so that
 * shared subscriptions never send a subscriber an older state than it has (`shared-subscriptions.ts`);
 * null for anything that is not an {@link AvailabilityRequestRecord}.
 */
export function requestProgress(payload: unknown): { subject: string; rank: number } | null {
  if (typeof payload !== 'object' || payload === null || !('request' in payload) || !('address' in payload))
    return null;
  const record = payload as AvailabilityRequestRecord;
  return { subject: record.request.id, rank: progressKey(record) };
}

/**
 * The live stream behind `availabilityRequestUpdated`: every create, progress and status change of the
 * caller's instance, or only of `ids`. For `ids`, the first items are their current states. The
 * subscription to the event bus starts before that snapshot is read, so no change falls in between; a
 * change that is not newer than what was already sent is skipped, so progress never goes backwards.
 * Ending the stream (client gone, server stopping) removes its listener at once.
 *
 * With `ctx.subscriptionPhase` (shared subscriptions), `snapshot` gives only the current states and
 * ends, and `live` only the changes.
 *
 * @throws {AppError} `UNAUTHENTICATED` / `FORBIDDEN` as `requireViewer`.
 */
export function availabilityRequestUpdates(
  ctx: Context,
  input: { ids?: readonly string[] | null },
): AsyncIterableIterator<AvailabilityRequestRecord> {
  const viewer = requireViewer(ctx, ['connectivity_check']);
  const ids = input.ids ? new Set(input.ids) : null;
  const phase = ctx.subscriptionPhase;
  if (phase === 'snapshot') {
    return new Repeater<AvailabilityRequestRecord>(async (push, stop) => {
      for (const id of ids ?? []) {
        const record = await ctx.db.findAvailabilityRequest(viewer.instanceId, id);
        if (record) await push(record);
      }
      stop();
    });
  }
  return new Repeater<AvailabilityRequestRecord>(async (push, stop) => {
    const source = ctx.events.subscribe('availabilityRequest:changed', viewer.instanceId);
    let next = source.next(); // attaches the listener now, before the snapshot is read
    const stopped = stop.then(() => ({ done: true as const, value: undefined }));
    void stopped.then(() => source.return?.());
    const sent = new Map<string, number>();
    const send = async (record: AvailabilityRequestRecord) => {
      const key = progressKey(record);
      if ((sent.get(record.request.id) ?? -1) >= key) return;
      sent.set(record.request.id, key);
      await push(record);
    };
    for (const id of phase === 'live' ? [] : (ids ?? [])) {
      const record = await ctx.db.findAvailabilityRequest(viewer.instanceId, id);
      if (record) await send(record);
    }
    for (;;) {
      const result = await Promise.race([next, stopped]);
      if (result.done) break;
      if (!ids || ids.has(result.value.record.request.id)) await send(result.value.record);
      next = source.next();
    }
    await source.return?.();
  });
}
