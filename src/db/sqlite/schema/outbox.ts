import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import type { StoredOrderChange } from '../../contract/orders.js';
import type { EventTopic, StoredRequestChange } from '../../values.js';
import { instances } from './tenancy.js';

/**
 * Events written in the transaction of the change they report (the transactional outbox, issue 34), until
 * the relay has published them. `AUTOINCREMENT`, so an id is never used twice, also once every row was
 * relayed and deleted.
 */
export const outboxEvents = sqliteTable('outbox_events', {
  id: integer().primaryKey({ autoIncrement: true }),
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
  payload: text({ mode: 'json' }).$type<StoredRequestChange | StoredOrderChange>().notNull(),
  /**
   * The W3C trace context of the event's `create` span, as stored text (`currentTraceContext`'s form:
   * `{"traceparent":"00-…"}`): the relay publishes the event in that trace (issue 37). Null when tracing
   * is off or the write was in no trace.
   */
  traceContext: text(),
  createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
});

/** Who relays the outbox now, until when: one relay at a time over every process of a deployment. */
export const relayLeases = sqliteTable('relay_leases', {
  name: text().primaryKey(),
  owner: text().notNull(),
  expiresAt: integer({ mode: 'timestamp_ms' }).notNull(),
});
