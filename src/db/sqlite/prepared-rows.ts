import { type Column, type GetColumnData, getTableColumns, is, type Query } from 'drizzle-orm';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { fieldCount, parameterValues, recordMapper } from '../shared/row-mapping.js';
import type { SqliteDb } from './client.js';

/** What one key of a selection reads: a whole table, or some of its columns by name (`pickColumns`). */
export type RowSelection = SQLiteTable | Record<string, Column>;

/** The object read for one {@link RowSelection}: the table's row, or the picked columns' values. */
export type SelectedRow<T extends RowSelection> = T extends SQLiteTable
  ? T['$inferSelect']
  : { [C in keyof T]: T[C] extends Column ? GetColumnData<T[C]> : never };

/** One result row of {@link prepareTableRows}: a row object of each selection, under its key. */
export type TableRows<S extends Record<string, RowSelection>> = { [K in keyof S]: SelectedRow<S[K]> };

/** A prepared read of whole table rows; parameters by placeholder name. */
export interface PreparedTableRows<R> {
  all(parameters: Record<string, unknown>): R[];
  get(parameters: Record<string, unknown>): R | undefined;
}

/**
 * Prepares on `db` a select of rows of one or more inner-joined tables (`selection`: whole tables, e.g.
 * `{ request: availabilityRequests, address: addresses }`, or `pickColumns` of them), read as arrays
 * and turned into row objects by a mapper built from the columns — the same objects drizzle's `.all()`
 * returns for that selection. Keep the result with {@link preparedQuery} or {@link preparedVariants}, like
 * any prepared query.
 *
 * drizzle maps every value through a generic path walk with class checks; on a list page of 25 requests
 * and their addresses that was about a twentieth of the request (`npm run bench`, rest-list). Here a
 * column's own `mapFromDriverValue` runs only where it changes the value (timestamps, JSON, booleans),
 * the row objects are made by a mapper generated for the selection (`recordMapper` in
 * `src/db/shared/row-mapping.ts`), and placeholders are resolved to positions once.
 *
 * Not for outer joins: a missing joined row would come back as an object of nulls, not null.
 *
 * @param query `db.select(selection)…`, with `sql.placeholder(name)` for the values given per call.
 * @throws Error when the query does not select as many columns as `selection` names.
 */
export function prepareTableRows<S extends Record<string, RowSelection>>(
  db: SqliteDb,
  selection: S,
  query: { toSQL(): Query },
): PreparedTableRows<TableRows<S>> {
  const groups = Object.entries(selection).map(([key, picked]) => ({
    key,
    fields: Object.entries(is(picked, SQLiteTable) ? getTableColumns(picked) : picked),
  }));
  const width = fieldCount(groups);
  const toRecord = recordMapper<TableRows<S>>(groups);
  const { sql, params } = query.toSQL();
  const statement = db.$client.prepare(sql).raw(true);
  if (statement.columns().length !== width) {
    throw new Error(`the query selects ${statement.columns().length} columns, the selection names ${width}`);
  }
  const values = parameterValues(params);
  return {
    all: (parameters) => (statement.all(values(parameters)) as unknown[][]).map(toRecord),
    get: (parameters) => {
      const row = statement.get(values(parameters)) as unknown[] | undefined;
      return row === undefined ? undefined : toRecord(row);
    },
  };
}

/**
 * Prepares on `db` a read of one number: the first column of the first row of `query`, e.g.
 * `db.select({ n: sql<number>\`count(*)\` })…`, plucked by better-sqlite3 without drizzle's row mapping
 * (about 10 µs of a list request's count, in a CPU profile of `npm run bench`'s rest-list). Keep the
 * result with {@link preparedQuery} or {@link preparedVariants}.
 *
 * @returns `get(parameters)`: the number, or null when there is no row or the value is null.
 * @throws Error when the query does not select exactly one column.
 */
export function prepareNumber(
  db: SqliteDb,
  query: { toSQL(): Query },
): { get(parameters: Record<string, unknown>): number | null } {
  const { sql, params } = query.toSQL();
  const statement = db.$client.prepare(sql).pluck(true);
  if (statement.columns().length !== 1) {
    throw new Error(`the query selects ${statement.columns().length} columns, not one`);
  }
  const values = parameterValues(params);
  return {
    get: (parameters) => {
      const value = statement.get(values(parameters));
      return value === undefined || value === null ? null : Number(value);
    },
  };
}
