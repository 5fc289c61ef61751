/**
 * What both stores share for the outbox (`EventOperations`) that is not SQL: an event's version and the
 * events a transaction writes for the requests it changed.
 */
import type {
  AvailabilityRequestRow,
  NewOutboxEvent,
  OutboxEvent,
  RequestProgress,
} from '../contract/index.js';
import type { AvailabilityRequestStatus, StoredRequestChange } from '../values.js';
import { reviveOrderRecord } from './orders.js';

/** The name of the outbox relay's lease (`relay_leases.name`). */
export const EVENT_RELAY_LEASE = 'events';

const statusRank: Record<AvailabilityRequestStatus, number> = { pending: 0, in_progress: 1, completed: 2 };

/**
 * A request's progress as one number, which only grows over its life: its status's rank
 * (pending < in_progress < completed) times a million, plus its finished sources (fewer than a million:
 * a request matches the sources of one instance).
 */
export function requestVersion(status: AvailabilityRequestStatus, sourcesFinished: number): number {
  return statusRank[status] * 1_000_000 + sourcesFinished;
}

/** A request a transaction created or changed, with its progress as that transaction leaves it. */
export interface RequestChange {
  instanceId: string;
  availabilityRequestId: string;
  kind: StoredRequestChange['kind'];
  progress: RequestProgress;
}

/**
 * The outbox events of one transaction's request changes: one per request, with the last progress given
 * for it (a batch that finishes several of a request's sources reports where the batch left it), in the
 * order the requests first changed; each written at the request's `updatedAt` of that progress.
 */
export function requestChangeEvents(changes: readonly RequestChange[]): NewOutboxEvent[] {
  const last = new Map<string, RequestChange>();
  for (const change of changes) {
    const earlier = last.get(change.availabilityRequestId);
    // A request created in this transaction stays `created` whatever else the transaction did to it.
    last.set(
      change.availabilityRequestId,
      earlier?.kind === 'created' ? { ...change, kind: 'created' } : change,
    );
  }
  return [...last.values()].map(({ instanceId, availabilityRequestId, kind, progress }) => ({
    instanceId,
    topic: 'availabilityRequest:changed',
    subjectId: availabilityRequestId,
    version: requestVersion(progress.status, progress.sourcesFinished),
    payload: {
      kind,
      status: progress.status,
      sourcesFinished: progress.sourcesFinished,
      updatedAtMs: progress.updatedAt.getTime(),
    },
    createdAt: progress.updatedAt,
  }));
}

/** The `created` events of a batch of new requests, each with its progress at creation. */
export function createdRequestEvents(
  records: readonly { request: AvailabilityRequestRow }[],
): NewOutboxEvent[] {
  return requestChangeEvents(
    records.map(({ request }) => ({
      instanceId: request.instanceId,
      availabilityRequestId: request.id,
      kind: 'created',
      progress: request,
    })),
  );
}

/**
 * Outbox rows as read, typed as the events they are: the store writes each topic's payload only with its
 * topic (`requestChangeEvents`, `orderChangeEvent`), which the columns' types cannot say.
 */
export function outboxEventsOf(
  rows: readonly (Omit<OutboxEvent, 'topic' | 'payload'> & { topic: string; payload: unknown })[],
): OutboxEvent[] {
  return (rows as OutboxEvent[]).map((event) =>
    event.topic === 'order:changed'
      ? { ...event, payload: { ...event.payload, record: reviveOrderRecord(event.payload.record) } }
      : event,
  );
}
