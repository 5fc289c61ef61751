import type { Query } from 'drizzle-orm';
import pg from 'pg';
import {
  type FieldGroup,
  fieldCount,
  parameterValues,
  recordMapper,
  type SelectedField,
} from '../shared/row-mapping.js';
import type { PostgresDb } from './client.js';

/** A prepared read of records; parameters by placeholder name. */
export interface PreparedRecords<R> {
  execute(parameters: Record<string, unknown>): Promise<R[]>;
}

/**
 * The date and time types node-postgres hands over as text, as drizzle's node-postgres driver does, so that
 * each column's own `mapFromDriverValue` reads them exactly as drizzle would (a `timestamptz` column's
 * `Date`): timestamptz, timestamp, date, interval, their arrays and numeric arrays (drizzle's list).
 */
const TEXT_TYPES = new Set([1184, 1114, 1082, 1186, 1185, 1115, 1182, 1187, 1231]);
const asText = (value: string) => value;
const driverTypes = {
  getTypeParser: (typeId: number, format?: 'text' | 'binary') =>
    TEXT_TYPES.has(typeId) ? asText : pg.types.getTypeParser(typeId, format),
};

/**
 * Prepares a select of records on the pool of `db` as the named server-side statement `name`: the rows
 * come as arrays (`rowMode: 'array'`) and a mapper generated for `selection` turns them into the objects
 * drizzle's `.execute()` returns for that query (`recordMapper`, `src/db/shared/row-mapping.ts`). Keep the result
 * with `preparedQuery`, which also keeps statement names unique.
 *
 * drizzle maps every value through a generic path walk with class checks, and wraps each run in tracing
 * and cache layers: on PostgreSQL's GraphQL list (25 requests with their addresses) that was about a tenth
 * of the gateway's CPU (`perf record` of `npm run bench`'s pg-graphql-list; BENCHMARKS.md).
 *
 * Only for queries run on the pool, not inside a transaction. Placeholder values are bound as they are given
 * (as with drizzle's prepared queries): pass driver values (a `Date` for a `timestamptz`, JSON text for
 * `jsonb`).
 *
 * @param selection the query's selection, `{ key: { field: column or SQL } }`, as given to `db.select()`.
 * @param query `db.select(selection)…`, with `sql.placeholder(name)` for the values given per call.
 * @throws Error (from `execute`) when the statement returns another number of columns than `selection`
 *   names; PostgreSQL's and node-postgres's errors as they come.
 */
export function prepareRecords<R>(
  db: PostgresDb,
  name: string,
  selection: Record<string, Record<string, SelectedField>>,
  query: { toSQL(): Query; _: { result: R[] } },
): PreparedRecords<R> {
  const groups: FieldGroup[] = Object.entries(selection).map(([key, fields]) => ({
    key,
    fields: Object.entries(fields),
  }));
  const width = fieldCount(groups);
  const toRecord = recordMapper<R>(groups);
  const { sql: text, params } = query.toSQL();
  const values = parameterValues(params);
  const pool = db.$client;
  return {
    execute: async (parameters) => {
      const result = await pool.query<unknown[]>({
        name,
        text,
        values: values(parameters),
        rowMode: 'array',
        types: driverTypes,
      });
      if (result.fields.length !== width) {
        throw new Error(`${name} returned ${result.fields.length} columns, the selection names ${width}`);
      }
      return result.rows.map(toRecord);
    },
  };
}

/**
 * Prepares a read of one number on the pool of `db` as the named statement `name`: the first column of the
 * first row of `query`, e.g. `db.select({ n: sql<number>\`count(*)::int\` })…`, without drizzle's row mapping.
 * Keep the result with `preparedQuery`.
 *
 * @returns `get(parameters)`: the number, or null when there is no row or the value is null.
 * @throws Error (from `get`) when the statement returns another number of columns than one.
 */
export function prepareNumber(
  db: PostgresDb,
  name: string,
  query: { toSQL(): Query },
): { get(parameters: Record<string, unknown>): Promise<number | null> } {
  const { sql: text, params } = query.toSQL();
  const values = parameterValues(params);
  const pool = db.$client;
  return {
    get: async (parameters) => {
      const result = await pool.query<unknown[]>({
        name,
        text,
        values: values(parameters),
        rowMode: 'array',
      });
      if (result.fields.length !== 1)
        throw new Error(`${name} returned ${result.fields.length} columns, not one`);
      const value = result.rows[0]?.[0];
      return value === undefined || value === null ? null : Number(value);
    },
  };
}
