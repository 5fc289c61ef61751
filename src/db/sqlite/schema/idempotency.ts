import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { instances } from './tenancy.js';

/**
 * Responses remembered per `Idempotency-Key` (IETF draft "The Idempotency-Key HTTP Header Field"), scoped
 * per instance, kept for 24 hours: a retried request with the same key and body gets the first response.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    key: text().notNull(),
    /** SHA-256 of method, path and body: the same key with another request is refused. */
    requestHash: text().notNull(),
    /** `in_progress` while the first request runs, then `done` with its response. */
    state: text({ enum: ['in_progress', 'done'] }).notNull(),
    responseStatus: integer(),
    responseBody: text(),
    expiresAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.key] })],
);
