import { integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { countedLists } from '../../values.js';
import { instances } from './tenancy.js';

/**
 * The number of rows of each counted list (`countedLists`) per instance. Kept by triggers on the listed
 * tables (migration `0003`), in the transaction that inserts the rows, so it is exact whatever writes them;
 * an instance with no row for a list has none of it.
 */
export const listTotals = sqliteTable(
  'list_totals',
  {
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    list: text({ enum: countedLists }).notNull(),
    total: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.list] })],
);
