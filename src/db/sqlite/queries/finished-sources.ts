import { eq, sql } from 'drizzle-orm';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { availabilityRequests } from '../schema/index.js';

const finishSourceStatement = preparedQuery((db) =>
  db
    .update(availabilityRequests)
    .set({
      sourcesFinished: sql`min(${availabilityRequests.sourcesFinished} + 1, ${availabilityRequests.sourcesTotal})`,
      status: sql`case when ${availabilityRequests.sourcesFinished} + 1 >= ${availabilityRequests.sourcesTotal} then 'completed' else 'in_progress' end`,
      updatedAt: sql`${sql.placeholder('nowMs')}`,
    })
    .where(eq(availabilityRequests.id, sql.placeholder('requestId')))
    .prepare(),
);

/**
 * Counts one more finished source on a request; completes it when every matching source finished.
 * Runs on the connection of `db` — inside the caller's transaction when called from one.
 */
export function finishSource(db: SqliteDb, requestId: string, now: Date): void {
  finishSourceStatement(db).run({ requestId, nowMs: now.getTime() });
}
