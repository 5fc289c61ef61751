import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';

/**
 * `column in (the values of a JSON array placeholder)`: SQLite has no array parameters, so a list of ids
 * goes in as one JSON text (`JSON.stringify(ids)`), and one prepared statement serves any number of them.
 */
export function inJsonIds(column: SQLiteColumn, placeholder: string): SQL {
  return sql`${column} in (select value from json_each(${sql.placeholder(placeholder)}))`;
}

/**
 * Rows of the instance (placeholder `instanceId`) whose `column` is one of a JSON array placeholder's ids
 * ({@link inJsonIds}): a prepared batch read.
 */
export function ofInstanceIn(
  table: { instanceId: SQLiteColumn },
  column: SQLiteColumn,
  placeholder: string,
): SQL | undefined {
  return and(eq(table.instanceId, sql.placeholder('instanceId')), inJsonIds(column, placeholder));
}
