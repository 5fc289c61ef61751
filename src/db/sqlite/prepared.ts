import { getTableColumns, getTableName, type Placeholder, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { SqliteDb } from './client.js';

/**
 * A drizzle query prepared once per database handle instead of once per call.
 *
 * drizzle's query builder rebuilds the SQL text and better-sqlite3 re-prepares the statement on every
 * `.all()`/`.get()`; on a hot read (a list page, the auth-token check) that costs more than SQLite's own
 * work. `build` is called on first use for each handle with `sql.placeholder(...)` in place of values, and
 * its `.prepare()`d query is kept for as long as the handle lives (a WeakMap, so closed test databases are
 * collected).
 *
 * Placeholder values are bound as they are given: drizzle does not apply a column's mapping to them, so
 * pass driver values (milliseconds for `timestamp_ms` columns, JSON text for JSON columns).
 *
 * @example
 *   const byId = preparedQuery((db) =>
 *     db.select().from(users).where(eq(users.id, sql.placeholder('id'))).prepare());
 *   byId(db).get({ id });
 */
export function preparedQuery<T>(build: (db: SqliteDb) => T): (db: SqliteDb) => T {
  const cache = new WeakMap<SqliteDb, T>();
  return (db) => {
    let query = cache.get(db);
    if (query === undefined) {
      query = build(db);
      cache.set(db, query);
    }
    return query;
  };
}

/**
 * Like {@link preparedQuery}, for a query whose shape varies with a few options (a keyset query with or
 * without its bound, ascending or descending): one prepared query per handle and `variant` key.
 * Keep the set of keys small and fixed — each key holds a prepared statement for the handle's lifetime.
 */
export function preparedVariants<K extends string, T>(
  build: (db: SqliteDb, variant: K) => T,
): (db: SqliteDb, variant: K) => T {
  const cache = new WeakMap<SqliteDb, Map<K, T>>();
  return (db, variant) => {
    let queries = cache.get(db);
    if (queries === undefined) {
      queries = new Map();
      cache.set(db, queries);
    }
    let query = queries.get(variant);
    if (query === undefined) {
      query = build(db, variant);
      queries.set(variant, query);
    }
    return query;
  };
}

/**
 * A prepared single-row insert into `table` with one parameter per column: `run(row)` takes the whole
 * row (every column, defaults included — a missing one is stored as null or refused by a NOT NULL
 * constraint), with values as the row type has them: each non-null value is mapped to its driver value
 * by its column (Dates to numbers, JSON columns to text), as drizzle's own inserts do.
 *
 * drizzle writes the SQL; the statement then runs on better-sqlite3 directly with positional values,
 * because drizzle's placeholder filling inspects every parameter's class on every run — the largest cost
 * of storing a batch of rows (`npm run bench`, gathering). In a batch, one prepared row insert per row
 * costs less than building one multi-row statement.
 */
export function preparedRowInsert<T extends SQLiteTable>(table: T) {
  const columns = Object.entries(getTableColumns(table));
  return preparedQuery((db) => {
    const values = Object.fromEntries(columns.map(([key]) => [key, sql`${sql.placeholder(key)}`]));
    // The placeholders stand for every column; drizzle's value type cannot express that.
    const query = db
      .insert(table)
      .values(values as T['$inferInsert'])
      .toSQL();
    const byKey = new Map(columns);
    const order = query.params.map((param) => {
      const key = (param as Placeholder).name;
      const column = byKey.get(key);
      if (!column) throw new Error(`no column ${key} in the insert into ${getTableName(table)}`);
      return [key, column] as const;
    });
    const statement = db.$client.prepare(query.sql);
    return {
      run: (row: T['$inferSelect']) => {
        const record = row as Record<string, unknown>;
        statement.run(
          order.map(([key, column]) => {
            const value = record[key];
            return value === null || value === undefined ? null : column.mapToDriverValue(value);
          }),
        );
      },
    };
  });
}
