/**
 * What both stores share for the outbox (`EventOperations`) that is not SQL: an event's version and the
 * events a transaction writes for the requests it changed.
 *
 * Each event keeps the trace context of its `create` span (issue 37), which the store starts and reads
 * through the leaf module `src/telemetry/trace-context.ts` (`eventTraceContext`; it imports only
 * `@opentelemetry/api` and the tracing flag, so the import arrows still point down). The store decides this
 * rather than its callers because a store operation runs inside its caller's span — the HTTP or GraphQL
 * request's, the gathering task's, the supplier order record's — so the active context is the writer's
 * without a parameter on each of the contract's many writing operations, and only the store knows when it
 * writes an event. Where the active context is not the writer's — a completion batch of tasks from several
 * traces, events the PostgreSQL store writes in SQL, a claim outside any trace (whose events keep the context
 * stored with their tasks) — the caller passes it ({@link RequestChange.traceContext},
 * `TaskCompletion.traceContext`, `FailedAttempt.traceContext`, `gathering_tasks.trace_context`).
 * Tracing off, no span is made and the column stays null, at the cost of one boolean test.
 */

import { type Column, eq, lte, or } from 'drizzle-orm';
import { tracingOn } from '../../telemetry/state.js';
import { eventTraceContext } from '../../telemetry/trace-context.js';
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

/**
 * The upsert of `claimEventRelay` (contract/events.ts), for each dialect's `insert(relayLeases)`: the row
 * `values` and its `onConflictDoUpdate` config, which takes the lease only from no holder, an expired one
 * (`expires_at <= now`) or the same `owner`, and holds it `leaseMs` from `now`.
 */
export function relayLeaseClaim<Name extends Column>(
  t: { name: Name; owner: Column; expiresAt: Column },
  owner: string,
  now: Date,
  leaseMs: number,
) {
  const expiresAt = new Date(now.getTime() + leaseMs);
  return {
    values: { name: EVENT_RELAY_LEASE, owner, expiresAt },
    onConflict: {
      target: t.name,
      set: { owner, expiresAt },
      setWhere: or(eq(t.owner, owner), lte(t.expiresAt, now)),
    },
  };
}

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
  /**
   * The trace context the change's event keeps (a `create` span's, from `eventTraceContext`), when its
   * writer gave one — null for none; absent, the event gets a `create` span in the active trace.
   */
  traceContext?: string | null;
}

/**
 * The outbox events of one transaction's request changes: one per request, with the last progress given
 * for it (a batch that finishes several of a request's sources reports where the batch left it), in the
 * order the requests first changed; each written at the request's `updatedAt` of that progress. The events
 * of changes without a {@link RequestChange.traceContext} share one `create` span in the active trace.
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
  const kept = [...last.values()];
  const traced = tracingOn()
    ? eventTraceContext(
        'availabilityRequest:changed',
        kept
          .filter((change) => change.traceContext === undefined)
          .map((change) => change.availabilityRequestId),
      )
    : null;
  return kept.map(({ instanceId, availabilityRequestId, kind, progress, traceContext }) => ({
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
    traceContext: traceContext === undefined ? traced : traceContext,
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
