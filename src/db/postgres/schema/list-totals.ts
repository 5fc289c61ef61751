import { integer, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';
import { countedLists } from '../../values.js';
import { instances } from './tenancy.js';

/**
 * How many rows each list total is spread over: an inserting transaction adds its rows to slot
 * `xid % LIST_TOTAL_SLOTS` of its instance's list (migration `0005`), so concurrent creates of one
 * instance seldom wait for each other's row lock.
 */
export const LIST_TOTAL_SLOTS = 16;

/**
 * The number of rows of each counted list (`countedLists`) per instance, as the sum of its slots. Kept by
 * statement-level triggers on the listed tables (migrations `0003` and `0005`), in the transaction that
 * inserts the rows: exact under any concurrency, since each transaction adds its count to one slot row,
 * and transactions on the same slot add theirs one after another. A transaction holds its slot's row lock
 * until it ends; spreading the total over slots keeps concurrent inserting transactions from queueing
 * behind that one lock.
 */
export const listTotals = pgTable(
  'list_totals',
  {
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    list: text({ enum: countedLists }).notNull(),
    /** 0 … {@link LIST_TOTAL_SLOTS} − 1. */
    slot: smallint().notNull().default(0),
    total: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.list, t.slot] })],
);
