import { execFileSync } from 'node:child_process';
import type Database from 'better-sqlite3';
import { and, count, eq, getTableName, is, type SQL, Table } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import pg from 'pg';
import { inject } from 'vitest';
import * as postgresSchema from '../../src/db/postgres/schema/index.js';
import type { SqliteDb } from '../../src/db/sqlite/client.js';
import * as sqliteSchema from '../../src/db/sqlite/schema/index.js';
import type { Store } from '../../src/db/store.js';

/**
 * The store this test run proves: `TEST_DATABASE=postgres` (the `postgres` project of vitest.config.ts)
 * or SQLite, the default.
 */
export const testStore: 'sqlite' | 'postgres' =
  process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';

/** The tables both stores have, by their TypeScript name (`customers`, `quoteLines`, …). */
export type TableName = {
  [K in keyof typeof sqliteSchema & keyof typeof postgresSchema]: (typeof sqliteSchema)[K] extends SQLiteTable
    ? K
    : never;
}[keyof typeof sqliteSchema & keyof typeof postgresSchema];

// Plain objects, read by table name at run time.
const sqliteTables: Record<string, unknown> = { ...sqliteSchema };
const postgresTables: Record<string, unknown> = { ...postgresSchema };

/** A column-by-column equality filter: `{ instanceId: 'ins_…' }`. */
export type RowFilter = Record<string, string | number | boolean | null>;

function where(table: SQLiteTable | PgTable, filter: RowFilter): SQL | undefined {
  const columns = table as unknown as Record<string, Parameters<typeof eq>[0]>;
  return and(
    ...Object.entries(filter).map(([key, value]) => eq(columns[key] as Parameters<typeof eq>[0], value)),
  );
}

/**
 * The rows of `table` (optionally those equal to `filter`), read through the store's own connection and
 * tables, in primary-key order: the same `Date`s, JSON values and booleans on both stores.
 */
export async function storedRows(store: Store, table: TableName, filter: RowFilter = {}): Promise<unknown[]> {
  const { connection } = store;
  if (connection.dialect === 'sqlite') {
    const t = sqliteTables[table] as SQLiteTable;
    return connection.db.select().from(t).where(where(t, filter)).all();
  }
  const t = postgresTables[table] as PgTable;
  return connection.db.select().from(t).where(where(t, filter));
}

/** How many rows `table` holds (optionally those equal to `filter`). */
export async function countStoredRows(
  store: Store,
  table: TableName,
  filter: RowFilter = {},
): Promise<number> {
  const { connection } = store;
  if (connection.dialect === 'sqlite') {
    const t = sqliteTables[table] as SQLiteTable;
    return connection.db.select({ n: count() }).from(t).where(where(t, filter)).get()?.n ?? 0;
  }
  const t = postgresTables[table] as PgTable;
  const [row] = await connection.db.select({ n: count() }).from(t).where(where(t, filter));
  return Number(row?.n ?? 0);
}

/** Runs one SQL statement as is (DDL in failure tests: renaming a table away and back). */
export async function executeSql(store: Store, statement: string): Promise<void> {
  const { connection } = store;
  if (connection.dialect === 'sqlite') connection.db.$client.exec(statement);
  else await connection.pool.query(statement);
}

/** The SQL table name of `table`, as both stores name it. */
export function tableName(table: TableName): string {
  return getTableName(sqliteTables[table] as SQLiteTable);
}

type Execute = 'all' | 'get' | 'run' | 'iterate';
const executes: Execute[] = ['all', 'get', 'run', 'iterate'];

/**
 * The statements, with their parameters, that node-postgres sends while `act` runs: every `query` on any
 * client (pooled or in a transaction), `BEGIN` and `COMMIT` included. The client is watched, not replaced.
 */
export async function statementsOf(
  act: () => Promise<unknown>,
): Promise<{ text: string; values: unknown[] }[]> {
  const statements: { text: string; values: unknown[] }[] = [];
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function (this: pg.Client, ...args: unknown[]) {
    // `query(text, values)` or `query({ text, values? }, values?)`, as drizzle and our prepared reads call it.
    const [config, values] = args as [
      string | { text?: string; values?: unknown[] } | undefined,
      unknown[] | undefined,
    ];
    const text = typeof config === 'string' ? config : (config?.text ?? '');
    const given = typeof config === 'string' ? undefined : config?.values;
    statements.push({ text, values: given ?? values ?? [] });
    return original.apply(this, args);
  };
  try {
    await act();
  } finally {
    prototype.query = original;
  }
  return statements;
}

/**
 * Runs `act` and records the SQL of every statement the store executed meanwhile.
 *
 * - SQLite: `all`, `get`, `run`, `iterate` on any statement, prepared now or long before — the store keeps
 *   hot statements prepared, so counting `prepare` calls would miss them. Statements share one prototype,
 *   which is patched for the duration.
 * - PostgreSQL: every `query` on a node-postgres client (pooled or in a transaction), `BEGIN`/`COMMIT`
 *   left out so both stores count the statements that read or write.
 */
export async function recordStatements<T>(
  store: Store,
  act: () => Promise<T>,
): Promise<{ result: T; sql: string[] }> {
  const { connection } = store;
  if (connection.dialect === 'postgres') {
    let result: T | undefined;
    const statements = await statementsOf(async () => {
      result = await act();
    });
    const sql = statements
      .map(({ text }) => text)
      .filter((text) => text && !/^(begin|commit|rollback)\b/i.test(text));
    return { result: result as T, sql };
  }
  const sql: string[] = [];
  const client = connection.db.$client;
  const prototype = Object.getPrototypeOf(client.prepare('select 1')) as Record<Execute, unknown>;
  const originals = new Map(executes.map((name) => [name, prototype[name]]));
  for (const name of executes) {
    const original = originals.get(name) as (this: Database.Statement, ...args: unknown[]) => unknown;
    prototype[name] = function (this: Database.Statement, ...args: unknown[]) {
      sql.push(this.source);
      return original.apply(this, args);
    };
  }
  try {
    return { result: await act(), sql };
  } finally {
    for (const name of executes) prototype[name] = originals.get(name);
  }
}

/**
 * A fresh PostgreSQL database of this run's server, copied from the migrated template the global setup
 * made (`CREATE DATABASE … TEMPLATE`, a file copy: no migration per test). Synchronous, through `psql`, so
 * that it can stand where a test takes a temporary SQLite path. `drop()` ends its connections and drops it.
 */
export function createTemplateDatabase(): { url: string; drop(): void } {
  const adminUrl = inject('postgresAdminUrl');
  const template = inject('postgresTemplate');
  const name = `gateway_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const psql = (statement: string) =>
    execFileSync('psql', [adminUrl, '-qAtX', '-c', statement], { stdio: 'pipe' });
  psql(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => psql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** The SQLite handle of `store`, for tests of the SQLite store's own machinery (prepared statements, WAL). */
export function sqliteConnection(store: Store): SqliteDb {
  if (store.connection.dialect !== 'sqlite') throw new Error('this test needs the SQLite store');
  return store.connection.db;
}

/** Every table the stores have, by TypeScript name. */
export const tableNames = (Object.keys(sqliteTables) as TableName[]).filter(
  (key): key is TableName => is(sqliteTables[key], Table) && key in postgresTables,
);

/**
 * The tables the outbox relay changes on its own, in the background (it deletes events once published and
 * renews its lease): their counts say nothing of one write. An event is only ever written in the
 * transaction of the change it reports, which the other tables' counts show.
 */
const relayTables: readonly TableName[] = ['outboxEvents', 'relayLeases'];

/**
 * Rows in every table but the relay's, by SQL table name: a write refused whole leaves these as they were.
 */
export async function countEveryTable(store: Store): Promise<Record<string, number>> {
  const counted = tableNames.filter((table) => !relayTables.includes(table));
  const counts = await Promise.all(counted.map((table) => countStoredRows(store, table)));
  return Object.fromEntries(counted.map((table, index) => [tableName(table), counts[index] ?? 0]));
}

/** Sets columns of the rows of `table` equal to `filter` (a test making a state no API offers). */
export async function updateStoredRows(
  store: Store,
  table: TableName,
  values: Record<string, unknown>,
  filter: RowFilter,
): Promise<void> {
  const { connection } = store;
  if (connection.dialect === 'sqlite') {
    const t = sqliteTables[table] as SQLiteTable;
    connection.db.update(t).set(values).where(where(t, filter)).run();
  } else {
    const t = postgresTables[table] as PgTable;
    await connection.db.update(t).set(values).where(where(t, filter));
  }
}

/** Closes the store's connection under the running service (SQLite: the handle; PostgreSQL: the pool). */
export async function closeConnection(store: Store): Promise<void> {
  const { connection } = store;
  if (connection.dialect === 'sqlite') connection.db.$client.close();
  else await connection.pool.end();
}
