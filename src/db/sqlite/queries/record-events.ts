import { sql } from 'drizzle-orm';
import type { NewOutboxEvent } from '../../contract/index.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { outboxEvents } from '../schema/index.js';

const eventInsert = preparedQuery((db) =>
  db
    .insert(outboxEvents)
    .values({
      instanceId: sql`${sql.placeholder('instanceId')}`,
      topic: sql`${sql.placeholder('topic')}`,
      subjectId: sql`${sql.placeholder('subjectId')}`,
      version: sql`${sql.placeholder('version')}`,
      payload: sql`${sql.placeholder('payload')}`,
      createdAt: sql`${sql.placeholder('createdAtMs')}`,
    })
    .prepare(),
);

/**
 * Writes `events` to the outbox on the connection of `db` — inside the caller's transaction, which is the
 * point: they commit with the change they report, or not at all.
 */
export function recordEvents(db: SqliteDb, events: readonly NewOutboxEvent[]): void {
  const insert = eventInsert(db);
  for (const event of events) {
    insert.run({
      instanceId: event.instanceId,
      topic: event.topic,
      subjectId: event.subjectId,
      version: event.version,
      payload: JSON.stringify(event.payload),
      createdAtMs: event.createdAt.getTime(),
    });
  }
}
