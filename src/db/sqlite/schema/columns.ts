import { integer, text } from 'drizzle-orm/sqlite-core';

/** Primary key column: a type-prefixed, time-sortable id (see `src/ids.ts`). */
export const idColumn = () => text().primaryKey();

/** Creation and last-change timestamps, stored as integer milliseconds since the epoch (UTC). */
export const timestamps = {
  createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
  updatedAt: integer({ mode: 'timestamp_ms' }).notNull(),
};
