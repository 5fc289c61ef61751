import { and, eq, sql } from 'drizzle-orm';
import type { CountedList } from '../values.js';
import type { PostgresDb } from './client.js';
import { preparedQuery } from './prepared.js';
import { prepareNumber } from './prepared-rows.js';
import { listTotals } from './schema/index.js';

const totalOf = preparedQuery('list_total', (db, name) =>
  prepareNumber(
    db,
    name,
    db
      .select({ total: sql<number>`coalesce(sum(${listTotals.total}), 0)::integer` })
      .from(listTotals)
      .where(
        and(
          eq(listTotals.instanceId, sql.placeholder('instanceId')),
          eq(listTotals.list, sql.placeholder('list')),
        ),
      ),
  ),
);

/**
 * The number of rows of an instance's unfiltered `list`, read from `list_totals` (the sum of at most
 * `LIST_TOTAL_SLOTS` rows, one primary-key range) instead of counting them; the table's statement-level
 * triggers keep it in the inserting transaction (migrations 0003 and 0005).
 */
export async function listTotal(db: PostgresDb, instanceId: string, list: CountedList): Promise<number> {
  return (await totalOf(db).get({ instanceId, list })) ?? 0;
}
