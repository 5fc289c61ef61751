import { and, eq, sql } from 'drizzle-orm';
import type { CountedList } from '../values.js';
import type { SqliteDb } from './client.js';
import { preparedQuery } from './prepared.js';
import { prepareNumber } from './prepared-rows.js';
import { listTotals } from './schema/index.js';

const totalOf = preparedQuery((db) =>
  prepareNumber(
    db,
    db
      .select({ total: listTotals.total })
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
 * The number of rows of an instance's unfiltered `list`, read from `list_totals` (one primary-key lookup)
 * instead of counting them; the table's triggers keep it in the inserting transaction (migration 0003).
 */
export function listTotal(db: SqliteDb, instanceId: string, list: CountedList): number {
  return totalOf(db).get({ instanceId, list }) ?? 0;
}
