import type { NewOutboxEvent } from '../../contract/index.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';

/**
 * One event's insert, on better-sqlite3 directly with positional values: drizzle's prepared `run` fills its
 * placeholders at a cost per parameter that a create of 100 requests (100 events) felt (`npm run bench`,
 * rest-create-100), as `preparedRowInsert` explains.
 */
const eventInsert = preparedQuery((db) =>
  db.$client.prepare<[string, string, string, number, string, number, string | null]>(
    'insert into outbox_events (instance_id, topic, subject_id, version, payload, created_at, trace_context) values (?, ?, ?, ?, ?, ?, ?)',
  ),
);

/**
 * Writes `events` to the outbox on the connection of `db` — inside the caller's transaction, which is the
 * point: they commit with the change they report, or not at all.
 */
export function recordEvents(db: SqliteDb, events: readonly NewOutboxEvent[]): void {
  const insert = eventInsert(db);
  for (const event of events) {
    insert.run(
      event.instanceId,
      event.topic,
      event.subjectId,
      event.version,
      JSON.stringify(event.payload),
      event.createdAt.getTime(),
      event.traceContext,
    );
  }
}
