import { eq, sql } from 'drizzle-orm';
import type { RequestChange } from '../../shared/events.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { availabilityRequests } from '../schema/index.js';

const t = availabilityRequests;

const finishSourceStatement = preparedQuery((db) =>
  db
    .update(t)
    .set({
      sourcesFinished: sql`min(${t.sourcesFinished} + 1, ${t.sourcesTotal})`,
      status: sql`case when ${t.sourcesFinished} + 1 >= ${t.sourcesTotal} then 'completed' else 'in_progress' end`,
      updatedAt: sql`${sql.placeholder('nowMs')}`,
    })
    .where(eq(t.id, sql.placeholder('requestId')))
    .returning({
      instanceId: t.instanceId,
      availabilityRequestId: t.id,
      status: t.status,
      sourcesFinished: t.sourcesFinished,
      updatedAt: t.updatedAt,
    })
    .prepare(),
);

/**
 * Counts one more finished source on a request; completes it when every matching source finished.
 * Runs on the connection of `db` — inside the caller's transaction when called from one.
 *
 * @returns the change to record in the outbox (`recordEvents`), or null when the request is gone.
 */
export function finishSource(db: SqliteDb, requestId: string, now: Date): RequestChange | null {
  const row = finishSourceStatement(db).get({ requestId, nowMs: now.getTime() });
  if (!row) return null;
  const { instanceId, availabilityRequestId, ...progress } = row;
  return { instanceId, availabilityRequestId, kind: 'updated', progress };
}
