import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { countedLists } from '../../values.js';
import { instances } from './tenancy.js';

/**
 * The number of rows of each counted list (`countedLists`) per instance. Kept by statement-level triggers
 * on the listed tables (migration `0003`), in the transaction that inserts the rows: exact under any
 * concurrency, since concurrent inserts of one instance update its row one after another.
 */
export const listTotals = pgTable(
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
