import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/**
 * Rows of the instance (placeholder `instanceId`) whose `column` is one of the ids of a `text[]`
 * placeholder (`= any($n::text[])`): one prepared statement serves any number of ids.
 */
export function ofInstanceIn(
  table: { instanceId: PgColumn },
  column: PgColumn,
  placeholder: string,
): SQL | undefined {
  return and(
    eq(table.instanceId, sql.placeholder('instanceId')),
    sql`${column} = any(${sql.placeholder(placeholder)}::text[])`,
  );
}
