import { Repeater } from '@repeaterjs/repeater';
import type { Context, Services } from '../context.js';
import type { AvailabilityRequestRecord, OutboxEvent } from '../db/rows.js';
import { requestVersion } from '../db/shared/events.js';
import { type PublishedEvent, requestEventType } from '../events.js';
import { requireViewer } from './authentication.js';

/**
 * The events to publish for outbox events of `availabilityRequest:changed` (the relay's batch, in order):
 * each request's record as its event's transaction left it — the request as read now (what is shown of it
 * never changes after creation, but its progress) with the progress the event stored. All requests in one
 * read.
 *
 * @returns one entry per event, in order: null where its request is gone (nothing left to tell).
 */
export async function requestEventsOf(
  services: Pick<Services, 'db'>,
  events: readonly OutboxEvent[],
): Promise<(PublishedEvent | null)[]> {
  const ids = [...new Set(events.map((event) => event.subjectId))];
  const records = new Map(
    (await services.db.findAvailabilityRequestsById(ids)).map((record) => [record.request.id, record]),
  );
  return events.map((event) => {
    const current = records.get(event.subjectId);
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
