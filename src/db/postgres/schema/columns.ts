import { text, timestamp } from 'drizzle-orm/pg-core';

/** Primary key column: a type-prefixed, time-sortable id (see `src/ids.ts`), as in the SQLite store. */
export const idColumn = () => text().primaryKey();

/**
 * A point in time: `timestamptz` with millisecond precision, read as a `Date` — the SQLite store's
 * integer milliseconds, without losing or inventing precision when a deployment is copied across.
 */
export const instant = () => timestamp({ withTimezone: true, precision: 3, mode: 'date' });

/** Creation and last-change timestamps. */
export const timestamps = {
  createdAt: instant().notNull(),
  updatedAt: instant().notNull(),
};
