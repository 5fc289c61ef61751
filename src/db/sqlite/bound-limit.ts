import { type Placeholder, sql } from 'drizzle-orm';

/**
 * The `LIMIT` of a select on the SQLite store — a placeholder bound per call, or a number — written as
 * `cast(? as integer)`, so that the statement is compiled once and not again on every run.
 *
 * SQLite's planner reads the value bound to a bare `LIMIT ?` (`sqlite3ExprIsInteger` with its `Parse`
 * argument, in SQLite 3.53 as better-sqlite3 12 bundles it) and marks the statement as depending on that
 * parameter (`sqlite3VdbeSetVarmask`). Binding the parameter again then expires the statement, and
 * better-sqlite3 binds every parameter on every run, so each run compiled the statement anew; drizzle binds
 * a number given to `.limit()` as a parameter too. A list page of 25 requests took 68 µs with `LIMIT ?` and
 * 51 µs with `LIMIT cast(? as integer)`, whose value the planner does not read (`npm run bench`, rest-list;
 * BENCHMARKS.md, "A LIMIT compiled on every run"). Each read keeps the plan SQLite makes for it with a
 * fixed LIMIT (`test/db/sqlite/bound-limit.test.ts` asserts it for the store's reads). `OFFSET ?` is not
 * read by the planner and stays as it is.
 *
 * @param limit what `.limit()` would take: `sql.placeholder(name)` or a whole number.
 * @returns a chunk for `.limit()` (typed as drizzle's `Placeholder`, see the cast below).
 */
export function boundLimit(limit: number | Placeholder): Placeholder {
  // drizzle types `.limit()` as `number | Placeholder`, but writes any SQL chunk given there as it is
  // (`SQLiteDialect.buildLimit` takes every object); the test above proves the SQL it writes.
  return sql`cast(${limit} as integer)` as unknown as Placeholder;
}
