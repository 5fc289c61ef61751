import type { PostgresDb } from './client.js';

/** Statement names in use: each must stand for one SQL text, on every connection. */
const names = new Set<string>();

/**
 * A drizzle query built once per database handle and run as a named, server-side prepared statement.
 *
 * drizzle's query builder rebuilds the SQL text on every call, and node-postgres sends an unnamed statement
 * that PostgreSQL parses and plans again each time; on a hot read (a list page, the auth-token check) the
 * two cost more than the query itself. `build` is called on first use for each handle with
 * `sql.placeholder(...)` in place of values, and must end in `.prepare(name)`; node-postgres then prepares
 * the statement once per pooled connection, on its first use there. The query is kept for as long as the
 * handle lives (a WeakMap, so closed test databases are collected).
 *
 * Only for queries run on the pool's handle, not inside a transaction (a `tx` is another handle each time).
 * Placeholder values are bound as they are given: drizzle does not map them through the column's type, so
 * pass driver values (a `Date` for a `timestamptz`, JSON text for `jsonb`).
 *
 * @param name the statement's name, unique in the process (checked: a second query with the same name
 *   throws at module load, since PostgreSQL refuses two texts under one name on a connection).
 * @example
 *   const byId = preparedQuery('user_by_id', (db, name) =>
 *     db.select().from(users).where(eq(users.id, sql.placeholder('id'))).prepare(name));
 *   const [user] = await byId(db).execute({ id });
 */
export function preparedQuery<T>(
  name: string,
  build: (db: PostgresDb, name: string) => T,
): (db: PostgresDb) => T {
  if (names.has(name)) throw new Error(`two prepared PostgreSQL queries are named ${name}`);
  names.add(name);
  const cache = new WeakMap<PostgresDb, T>();
  return (db) => {
    let query = cache.get(db);
    if (query === undefined) {
      query = build(db, name);
      cache.set(db, query);
    }
    return query;
  };
}

/**
 * Like {@link preparedQuery}, for a query whose shape varies with a few options (a keyset query with or
 * without its bound, ascending or descending): one prepared query per handle and `variant`, named
 * `<name>_<variant>`. Keep the set of variants small and fixed: each holds a statement on every connection.
 */
export function preparedVariants<K extends string, T>(
  name: string,
  variants: readonly K[],
  build: (db: PostgresDb, variant: K, name: string) => T,
): (db: PostgresDb, variant: K) => T {
  const queries = new Map(
    variants.map((variant) => [
      variant,
      preparedQuery(`${name}_${variant}`, (db, statement) => build(db, variant, statement)),
    ]),
  );
  return (db, variant) => {
    const query = queries.get(variant);
    if (!query) throw new Error(`${name} has no variant ${variant}`);
    return query(db);
  };
}
