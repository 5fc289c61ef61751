import { Repeater } from '@repeaterjs/repeater';
import type { Context, Services } from '../context.js';
import type {
  AvailabilityRequestRecord,
  ChangedRequest,
  StoredAvailabilityRequestRecord,
} from '../db/rows.js';
import { requireViewer } from './authentication.js';

/**
 * Publishes the state of each request gathering changed, one event per change in the given order (shared
 * by every subscriber): the change's own `record` where it comes with one (the worker's, see
 * `GatheringChange`), else the request as read now — all those in one read, so a batch of changes costs one
 * query at most. A request no longer found is skipped.
 */
export async function publishRequestsChanged(
  services: Services,
  changes: readonly (ChangedRequest & { record?: AvailabilityRequestRecord })[],
): Promise<void> {
  const unknown = changes.filter((change) => !change.record).map((change) => change.availabilityRequestId);
  const records = new Map(
    unknown.length === 0
      ? []
      : (await services.db.findAvailabilityRequestsById([...new Set(unknown)])).map((record) => [
          record.request.id,
          record,
        ]),
  );
  for (const change of changes) {
    const record = change.record ?? records.get(change.availabilityRequestId);
    if (record)
      services.events.publish('availabilityRequest:changed', change.instanceId, {
        instanceId: change.instanceId,
        kind: 'updated',
        record,
      });
  }
}

/** Publishes newly created requests. */
export function publishRequestsCreated(
  services: Services,
  records: readonly StoredAvailabilityRequestRecord[],
): void {
  for (const record of records) {
    const { instanceId } = record.request;
    services.events.publish('availabilityRequest:changed', instanceId, {
      instanceId,
      kind: 'created',
      record,
    });
  }
}

const statusRank = { pending: 0, in_progress: 1, completed: 2 } as const;

/** Progress as one comparable number; it only ever grows for a request. */
function progressKey(record: AvailabilityRequestRecord): number {
  return statusRank[record.request.status] * 1_000_000 + record.request.sourcesFinished;
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
