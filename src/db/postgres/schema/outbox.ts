import { bigint, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import type { StoredOrderChange } from '../../contract/orders.js';
import type { EventTopic, StoredRequestChange } from '../../values.js';
import { instant } from './columns.js';
import { instances } from './tenancy.js';

/**
 * Events written in the transaction of the change they report (the transactional outbox, issue 34), until
 * the relay has published them. Ids come from an identity sequence: ordered as drawn, which for one subject
 * is the order of its commits (its row lock orders them).
 */
export const outboxEvents = pgTable('outbox_events', {
  id: bigint({ mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
  instanceId: text()
    .notNull()
    .references(() => instances.id),
  topic: text({ enum: ['availabilityRequest:changed'] })
    .$type<EventTopic>()
    .notNull(),
  /** What the event is about (a request id). */
  subjectId: text().notNull(),
  /** Where the subject's state stands; grows with every change of it, so a repeat is recognised. */
  version: integer().notNull(),
  payload: jsonb().$type<StoredRequestChange | StoredOrderChange>().notNull(),
  /**
   * The W3C trace context of the event's `create` span, as stored text (`currentTraceContext`'s form:
   * `{"traceparent":"00-…"}`): the relay publishes the event in that trace (issue 37). Null when tracing
   * is off or the write was in no trace.
   */
  traceContext: text(),
  createdAt: instant().notNull(),
});

/** Who relays the outbox now, until when: one relay at a time over every process of a deployment. */
export const relayLeases = pgTable('relay_leases', {
  name: text().primaryKey(),
  owner: text().notNull(),
  expiresAt: instant().notNull(),
});
