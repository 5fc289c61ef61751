import { Column, getTableColumns, is, Placeholder, type Query } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Db } from './client.js';

/** One result row of {@link preparedTableRows}: a row object of each selected table, under its key. */
export type TableRows<S extends Record<string, SQLiteTable>> = { [K in keyof S]: S[K]['$inferSelect'] };

/** A prepared read of whole table rows; parameters by placeholder name. */
export interface PreparedTableRows<R> {
  all(parameters: Record<string, unknown>): R[];
  get(parameters: Record<string, unknown>): R | undefined;
}

/**
 * Prepares on `db` a select of whole rows of one or more inner-joined tables (`selection`, e.g.
 * `{ request: availabilityRequests, address: addresses }`), read as arrays and turned into row objects by
 * a mapper built from the tables' columns — the same objects drizzle's `.all()` returns. Keep the result
 * with {@link preparedQuery} or {@link preparedVariants}, like any prepared query.
 *
 * drizzle maps every value through a generic path walk with class checks; on a list page of 25 requests
 * and their addresses that was about a twentieth of the request (`npm run bench`, rest-list). Here a
 * column's own `mapFromDriverValue` runs only where it changes the value (timestamps, JSON, booleans),
 * and placeholders are resolved to positions once.
 *
 * Not for outer joins: a missing joined row would come back as an object of nulls, not null.
 *
 * @param query `db.select(selection)…`, with `sql.placeholder(name)` for the values given per call.
 * @throws Error when the query does not select as many columns as the tables of `selection` have.
 */
export function prepareTableRows<S extends Record<string, SQLiteTable>>(
  db: Db,
  selection: S,
  query: { toSQL(): Query },
): PreparedTableRows<TableRows<S>> {
  const groups = Object.entries(selection).map(([key, table]) => {
    const columns = Object.entries(getTableColumns(table));
    return {
      key,
      names: columns.map(([name]) => name),
      decoders: columns.map(([, column]) =>
        column.mapFromDriverValue === Column.prototype.mapFromDriverValue
          ? null
          : (value: unknown) => column.mapFromDriverValue(value),
      ),
    };
  });
  const width = groups.reduce((sum, group) => sum + group.names.length, 0);
  const toRecord = (row: unknown[]): TableRows<S> => {
    const record: Record<string, Record<string, unknown>> = {};
    let index = 0;
    for (const { key, names, decoders } of groups) {
      const object: Record<string, unknown> = {};
      for (let column = 0; column < names.length; column++) {
        const value = row[index++];
        const decode = decoders[column];
        object[names[column] as string] = value === null || !decode ? value : decode(value);
      }
      record[key] = object;
    }
    return record as TableRows<S>;
  };
  const { sql, params } = query.toSQL();
  const statement = db.$client.prepare(sql).raw(true);
  if (statement.columns().length !== width) {
    throw new Error(`the query selects ${statement.columns().length} columns, its tables have ${width}`);
  }
  // Placeholders are filled per call; any other parameter is a value drizzle already mapped.
  const fillers = params.map((param) =>
    is(param, Placeholder) ? (parameters: Record<string, unknown>) => parameters[param.name] : () => param,
  );
  const values = (parameters: Record<string, unknown>) => fillers.map((fill) => fill(parameters));
  return {
    all: (parameters) => (statement.all(values(parameters)) as unknown[][]).map(toRecord),
    get: (parameters) => {
      const row = statement.get(values(parameters)) as unknown[] | undefined;
      return row === undefined ? undefined : toRecord(row);
    },
  };
}
