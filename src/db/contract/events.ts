/**
 * The store's contract for events written with the changes they report (the transactional outbox, issue
 * 34). Every operation that changes what a subscriber is shown of a request — creating it, starting it,
 * counting a finished source — writes an event in its own transaction; the relay (`src/event-relay.ts`)
 * publishes the events after commit, at least once and in order, and deletes them once published. An event
 * is therefore never lost to a process that dies between its commit and its publish: it waits in the store.
 */
import type { EventTopic, StoredRequestChange } from '../values.js';
import type { StoredOrderChange } from './orders.js';

/** What an event of each topic stores. */
export interface EventPayloads {
  'availabilityRequest:changed': StoredRequestChange;
  'order:changed': StoredOrderChange;
}

/** An event waiting in the outbox: {@link OutboxEventOf} of one of the topics. */
export type OutboxEvent = { [T in EventTopic]: OutboxEventOf<T> }[EventTopic];

/** An event of one topic waiting in the outbox. */
export interface OutboxEventOf<T extends EventTopic> {
  /** Ordered as written; for one subject, the order of its commits (the subject's row lock orders them). */
  id: number;
  instanceId: string;
  topic: T;
  /** What the event is about: a request id for `availabilityRequest:changed`, an order id for `order:changed`. */
  subjectId: string;
  /**
   * Where the subject's state stands; strictly greater for each later change of the subject, so a relay
   * that publishes an event again (it died before deleting it) is recognised and dropped.
   */
  version: number;
  payload: EventPayloads[T];
  createdAt: Date;
  /**
   * The W3C trace context of the event's `create` span as stored text (`eventTraceContext`,
   * src/telemetry/trace-context.ts), which the relay publishes the event in (issue 37); null when tracing
   * is off or the change was made in no trace.
   */
  traceContext: string | null;
}

/** An event to write; its id comes from the store. */
export type NewOutboxEvent = { [T in EventTopic]: Omit<OutboxEventOf<T>, 'id'> }[EventTopic];

/**
 * The outbox and its relay's lease. One relay at a time publishes, over every process of a deployment: it
 * holds the lease `events` until its expiry and renews it while it works, and another process takes it over
 * once it expired (its holder died or froze).
 */
export interface EventOperations {
  /**
   * Takes or renews the relay lease for `owner` until `now + leaseMs`, atomically: only when no one holds
   * it, its holder's lease expired at `now`, or `owner` holds it already.
   *
   * @returns whether `owner` holds the lease now.
   */
  claimEventRelay: (owner: string, now: Date, leaseMs: number) => Promise<boolean>;
  /** Gives the relay lease back when `owner` holds it (graceful stop), so another process takes over at once. */
  releaseEventRelay: (owner: string) => Promise<void>;
  /** The oldest `limit` events of the outbox, in id order. Reads only. */
  listOutboxEvents: (limit: number) => Promise<OutboxEvent[]>;
  /**
   * Deletes published events (unknown ids are skipped), in one statement.
   *
   * @returns how many were deleted.
   */
  deleteOutboxEvents: (ids: readonly number[]) => Promise<number>;
  /** How many events wait in the outbox: the relay's backlog, for an operator's or a test's look. Reads only. */
  countOutboxEvents: () => Promise<number>;
}
