import { and, eq, sql } from 'drizzle-orm';
import type { CountedList } from '../values.js';
import type { PostgresDb } from './client.js';
import { preparedQuery } from './prepared.js';
import { listTotals } from './schema/index.js';

const totalOf = preparedQuery('list_total', (db, name) =>
  db
    .select({ total: listTotals.total })
    .from(listTotals)
    .where(
      and(
        eq(listTotals.instanceId, sql.placeholder('instanceId')),
        eq(listTotals.list, sql.placeholder('list')),
      ),
    )
    .prepare(name),
);

/**
 * The number of rows of an instance's unfiltered `list`, read from `list_totals` (one primary-key lookup)
 * instead of counting them; the table's statement-level triggers keep it in the inserting transaction
 * (migration 0003).
 */
export async function listTotal(db: PostgresDb, instanceId: string, list: CountedList): Promise<number> {
  const [row] = await totalOf(db).execute({ instanceId, list });
  return row?.total ?? 0;
}
