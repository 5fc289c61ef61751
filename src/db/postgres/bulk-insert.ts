import { getTableColumns, getTableName, is, SQL, sql } from 'drizzle-orm';
import { toSnakeCase } from 'drizzle-orm/casing';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { PostgresDb } from './client.js';

/** A database handle or a transaction of one: anything that can `execute` a statement. */
type Executor = Pick<PostgresDb, 'execute'>;

/**
 * Builds one statement inserting rows of `table`, whose size does not grow with the rows:
 * `INSERT INTO t (c1, c2, …) SELECT c1, $2::type2, … FROM unnest($1::type1[], …) WITH ORDINALITY …
 * ORDER BY ordinality`, one array parameter per column whose value differs between rows. drizzle's multi-row
 * `values()` builds one parameter per cell — 1,500 for a create of 100 addresses, over 10,000 for a
 * gathering batch's products — and building that SQL cost more CPU than PostgreSQL spent inserting. Rows
 * are inserted in the given order, so an identity column numbers them as a multi-row `VALUES` would.
 *
 * A column holding the same value in every row (`===`: the same string, number or `Date` object, e.g. a
 * batch's instance and timestamps) is one scalar parameter, mapped once: a create of 100 requests gives 700
 * gathering tasks, and sending their instance, status and three timestamps as arrays cost the gateway an
 * ISO string and an escaped array element per cell, and PostgreSQL a parse of each (`npm run bench`,
 * pg-rest-create-100). At least one column stays an array, to give the number of rows.
 *
 * Every column but those in `omit` is written: a value missing from a row is the column's JavaScript default
 * (`.default(value)`, `$defaultFn`), else NULL — so omit a column whose default is SQL (an identity,
 * `defaultNow()`), which then takes it. Values go through the column's own mapping (`jsonb` → JSON text,
 * `timestamptz` → ISO text), as drizzle's insert does.
 *
 * @returns a function building that statement for `rows` (undefined for none), to run alone
 *   ({@link bulkInserter}) or as a part of one statement ({@link oneStatement}).
 * @throws at creation when a written column has an SQL default or is an identity (it would be written as
 *   NULL).
 */
export function bulkInsert<TTable extends PgTable, TOmit extends keyof TTable['$inferInsert'] = never>(
  table: TTable,
  omit: readonly TOmit[] = [],
): (rows: readonly Omit<TTable['$inferInsert'], TOmit>[]) => SQL | undefined {
  const columns = Object.entries(getTableColumns(table) as Record<string, PgColumn>).filter(
    ([key]) => !(omit as readonly string[]).includes(key),
  );
  for (const [key, column] of columns) {
    // An identity has a default without a value; `defaultNow()` and `default(sql…)` have an SQL value.
    const sqlDefault =
      column.hasDefault && !column.defaultFn && (column.default === undefined || is(column.default, SQL));
    if (sqlDefault) {
      throw new Error(`${getTableName(table)}.${key} has an SQL default: omit it from the bulk insert`);
    }
  }
  const quote = (name: string) => `"${name}"`;
  const names = columns.map(([, column]) => quote(column.keyAsName ? toSnakeCase(column.name) : column.name));
  const into = sql.raw(`insert into ${quote(getTableName(table))} (${names.join(', ')}) select `);
  const types = columns.map(([, column]) => column.getSQLType());
  const driverValue = (column: PgColumn, value: unknown): unknown => {
    const given = value === undefined ? (column.defaultFn?.() ?? column.default) : value;
    return given === undefined || given === null ? null : column.mapToDriverValue(given);
  };
  return (rows) => {
    if (rows.length === 0) return undefined;
    const plan = columns.map(([key, column], index) => {
      const values = rows.map((row) => (row as Record<string, unknown>)[key]);
      const first = values[0];
      // A `$defaultFn` (an id, say) gives a new value per row, so a column left to it is never one value.
      const one = !(column.defaultFn && first === undefined) && values.every((value) => value === first);
      return { column, values, one, name: names[index] ?? '', type: types[index] ?? '' };
    });
    const [head] = plan;
    if (head && plan.every((entry) => entry.one)) head.one = false;
    const selected = plan.map(({ column, values, one, name, type }) =>
      one ? sql`${sql.param(driverValue(column, values[0]))}${sql.raw(`::${type}`)}` : sql.raw(name),
    );
    const arrays = plan.filter((entry) => !entry.one);
    const unnested = arrays.map(
      ({ column, values, type }) =>
        sql`${sql.param(values.map((value) => driverValue(column, value)))}${sql.raw(`::${type}[]`)}`,
    );
    const aliases = arrays.map((entry) => entry.name).join(', ');
    return sql`${into}${sql.join(selected, sql`, `)} from unnest(${sql.join(unnested, sql`, `)})${sql.raw(
      ` with ordinality as t(${aliases}, ordinality) order by ordinality`,
    )}`;
  };
}

/**
 * {@link bulkInsert}'s statement, run: inserts `rows` on `db` (a pool handle or a transaction).
 * @returns a function inserting `rows`; no statement for none.
 * @throws at creation as {@link bulkInsert} does.
 */
export function bulkInserter<TTable extends PgTable, TOmit extends keyof TTable['$inferInsert'] = never>(
  table: TTable,
  omit: readonly TOmit[] = [],
): (db: Executor, rows: readonly Omit<TTable['$inferInsert'], TOmit>[]) => Promise<void> {
  const build = bulkInsert(table, omit);
  return async (db, rows) => {
    const statement = build(rows);
    if (statement) await db.execute(statement);
  };
}

/**
 * Joins data-modifying statements (`INSERT`s without `RETURNING`, say) into one, run in one round trip:
 * `WITH s1 AS (first), s2 AS (second) last`. PostgreSQL runs every statement of a `WITH` exactly once and to
 * completion, whether or not the main statement reads it, and one statement is atomic on its own — outside
 * a transaction it is one: all its rows are written, or none. Foreign keys are checked at the end of the
 * whole statement, so a later part may reference rows an earlier part inserts. The parts share one snapshot
 * and cannot see each other's rows, so none may read what another writes.
 * (PostgreSQL 15 documentation, 7.8.4 "Data-Modifying Statements in WITH".)
 *
 * @param statements the statements, in order; undefined entries (a {@link bulkInsert} of no rows) are
 *   left out.
 * @returns the one statement, or undefined when no statement is left.
 */
export function oneStatement(statements: readonly (SQL | undefined)[]): SQL | undefined {
  const parts = statements.filter((statement): statement is SQL => statement !== undefined);
  const last = parts.pop();
  if (!last) return undefined;
  if (parts.length === 0) return last;
  const clauses = parts.map((part, index) => sql`${sql.raw(`s${index + 1}`)} as (${part})`);
  return sql`with ${sql.join(clauses, sql`, `)} ${last}`;
}
