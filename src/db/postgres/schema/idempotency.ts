import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { instances } from './tenancy.js';

/**
 * Responses remembered per `Idempotency-Key`, scoped per instance, kept for 24 hours. The response body
 * stays `text`, not `jsonb`: a replay must send the first response's bytes, key order included.
 */
export const idempotencyKeys = pgTable(
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
    expiresAt: instant().notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.key] })],
);
