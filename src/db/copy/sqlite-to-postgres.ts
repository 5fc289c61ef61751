import { createHash } from 'node:crypto';
import { getTableColumns, getTableName, sql } from 'drizzle-orm';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { getTableConfig, type PgTable } from 'drizzle-orm/pg-core';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type pg from 'pg';
import { migratePostgres } from '../postgres/migrate.js';
import { openPostgresPool } from '../postgres/pool.js';
import * as postgresSchema from '../postgres/schema/index.js';
import type { SqliteDb } from '../sqlite/client.js';
import * as sqliteSchema from '../sqlite/schema/index.js';
import type { Store } from '../store.js';

/*
 * The one place that knows both dialects' tables: a tool run by an operator (`npm run cli --
 * copy-to-postgres`), outside the request path, so it lives beside the two dialect folders, not in either.
 */

/**
 * Every table of the two stores, paired, in an order where a row's foreign keys point at rows copied
 * before it — except `list_totals`, which the target's triggers rebuild while the listed rows are copied,
 * and which is then compared with the source's. `test/db/copy/sqlite-to-postgres.test.ts` checks that no
 * table of either schema is left out.
 */
export const copiedTables: readonly { sqlite: SQLiteTable; postgres: PgTable }[] = [
  { sqlite: sqliteSchema.instances, postgres: postgresSchema.instances },
  { sqlite: sqliteSchema.users, postgres: postgresSchema.users },
  { sqlite: sqliteSchema.applications, postgres: postgresSchema.applications },
  { sqlite: sqliteSchema.authTokens, postgres: postgresSchema.authTokens },
  { sqlite: sqliteSchema.serviceSettings, postgres: postgresSchema.serviceSettings },
  { sqlite: sqliteSchema.sources, postgres: postgresSchema.sources },
  { sqlite: sqliteSchema.catalogAreas, postgres: postgresSchema.catalogAreas },
  { sqlite: sqliteSchema.catalogAreaPostalCodeRanges, postgres: postgresSchema.catalogAreaPostalCodeRanges },
  { sqlite: sqliteSchema.catalogAreaCities, postgres: postgresSchema.catalogAreaCities },
  { sqlite: sqliteSchema.catalogOffers, postgres: postgresSchema.catalogOffers },
  { sqlite: sqliteSchema.pricePlans, postgres: postgresSchema.pricePlans },
  { sqlite: sqliteSchema.pricePlanRules, postgres: postgresSchema.pricePlanRules },
  { sqlite: sqliteSchema.customers, postgres: postgresSchema.customers },
  { sqlite: sqliteSchema.customerFinancialDetails, postgres: postgresSchema.customerFinancialDetails },
  { sqlite: sqliteSchema.projects, postgres: postgresSchema.projects },
  { sqlite: sqliteSchema.addresses, postgres: postgresSchema.addresses },
  { sqlite: sqliteSchema.availabilityRequests, postgres: postgresSchema.availabilityRequests },
  { sqlite: sqliteSchema.gatheringTasks, postgres: postgresSchema.gatheringTasks },
  { sqlite: sqliteSchema.availabilityRequestProducts, postgres: postgresSchema.availabilityRequestProducts },
  { sqlite: sqliteSchema.instanceProducts, postgres: postgresSchema.instanceProducts },
  { sqlite: sqliteSchema.quotes, postgres: postgresSchema.quotes },
  { sqlite: sqliteSchema.quoteLines, postgres: postgresSchema.quoteLines },
  { sqlite: sqliteSchema.orders, postgres: postgresSchema.orders },
  { sqlite: sqliteSchema.supplierOrders, postgres: postgresSchema.supplierOrders },
  { sqlite: sqliteSchema.orderLines, postgres: postgresSchema.orderLines },
  { sqlite: sqliteSchema.idempotencyKeys, postgres: postgresSchema.idempotencyKeys },
  // Events not relayed yet: the PostgreSQL deployment relays them once it starts.
  { sqlite: sqliteSchema.outboxEvents, postgres: postgresSchema.outboxEvents },
  { sqlite: sqliteSchema.relayLeases, postgres: postgresSchema.relayLeases },
];

/** What was copied of one table: its rows and their checksum, equal on both sides. */
export interface CopiedTable {
  table: string;
  rows: number;
  /** SHA-256 over the rows' canonical forms, independent of row order (see {@link tableChecksum}). */
  checksum: string;
}

/** The store to copy from is not SQLite (the deployment runs on PostgreSQL already). */
export class SourceNotSqliteError extends Error {
  override readonly name = 'SourceNotSqliteError';
}

/** The target already holds rows: copying would mix two deployments. */
export class TargetNotEmptyError extends Error {
  override readonly name = 'TargetNotEmptyError';
}

/** The copy read back from PostgreSQL differs from the source: nothing was committed. */
export class CopyMismatchError extends Error {
  override readonly name = 'CopyMismatchError';
}

/** Rows read and inserted at a time: under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH_ROWS = 1_000;

/**
 * Copies a SQLite deployment's database into an empty PostgreSQL database (issue 16, "Moving up without
 * losing data"): every table, with ids and timestamps as they are.
 *
 * - The target is migrated first (under the migrations' advisory lock), then must hold no row.
 * - The source is read in one SQLite read transaction, so a service still writing to the file is copied as
 *   of one moment; the target is written in one PostgreSQL transaction, so a failed copy leaves it empty.
 * - Identity columns (task, price-plan rule and catalogue range/city ids) continue after the copied ids.
 * - Before committing, every table is read back and compared with the source by row count and checksum.
 *
 * @param targetUrl the PostgreSQL database, `postgres://…`; a pool of two connections is opened to it for the
 *   copy and ended before this returns.
 * @returns each table's rows and checksum.
 * @throws {SourceNotSqliteError} when `store` is not the SQLite store.
 * @throws {TargetNotEmptyError} when a table of the target has rows.
 * @throws {CopyMismatchError} when a table read back differs from the source (nothing is committed).
 * @throws the driver's error when the target cannot be reached or migrated.
 */
export async function copySqliteToPostgres(store: Store, targetUrl: string): Promise<CopiedTable[]> {
  if (store.connection.dialect !== 'sqlite') {
    throw new SourceNotSqliteError(
      'The running database is PostgreSQL already; only a SQLite store is copied.',
    );
  }
  const pool = openPostgresPool(targetUrl, 2);
  try {
    return await copyInto(store.connection.db, pool);
  } finally {
    await pool.end();
  }
}

async function copyInto(source: SqliteDb, pool: pg.Pool): Promise<CopiedTable[]> {
  await migratePostgres(pool);
  const client = await pool.connect();
  const target = drizzle({ client, casing: 'snake_case' });
  source.$client.exec('BEGIN');
  try {
    await client.query('BEGIN');
    for (const { postgres } of copiedTables) {
      const [found] = await target.select({ count: sql<number>`count(*)::int` }).from(postgres);
      if ((found?.count ?? 0) > 0) {
        throw new TargetNotEmptyError(
          `The PostgreSQL database is not empty: ${getTableName(postgres)} has ${found?.count} rows.`,
        );
      }
    }
    const copied: CopiedTable[] = [];
    for (const { sqlite, postgres } of copiedTables) {
      const hashes: string[] = [];
      for (const rows of sqliteBatches(source, sqlite)) {
        for (const row of rows) hashes.push(rowHash(row));
        await target.insert(postgres).values(rows);
      }
      await continueIdentities(client, postgres);
      const readBack = (await target.select().from(postgres)).map(rowHash);
      const expected = { rows: hashes.length, checksum: tableChecksum(hashes) };
      const actual = { rows: readBack.length, checksum: tableChecksum(readBack) };
      if (expected.rows !== actual.rows || expected.checksum !== actual.checksum) {
        throw new CopyMismatchError(
          `${getTableName(postgres)} differs after the copy: ${expected.rows} rows (${expected.checksum}) ` +
            `in SQLite, ${actual.rows} (${actual.checksum}) in PostgreSQL.`,
        );
      }
      copied.push({ table: getTableName(postgres), ...expected });
    }
    await compareListTotals(source, target);
    await client.query('COMMIT');
    return copied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    if (source.$client.inTransaction) source.$client.exec('ROLLBACK');
    client.release();
  }
}

/**
 * The list totals the target's triggers counted while the rows were copied (summed over their slots) must
 * be the source's.
 * @throws {CopyMismatchError} when they differ.
 */
async function compareListTotals(source: SqliteDb, target: NodePgDatabase): Promise<void> {
  const order = (rows: { instanceId: string; list: string; total: number }[]) =>
    JSON.stringify(rows.map((row) => [row.instanceId, row.list, row.total]).sort());
  const expected = order(source.select().from(sqliteSchema.listTotals).all());
  const { listTotals } = postgresSchema;
  const actual = order(
    await target
      .select({
        instanceId: listTotals.instanceId,
        list: listTotals.list,
        total: sql<number>`sum(${listTotals.total})::integer`,
      })
      .from(listTotals)
      .groupBy(listTotals.instanceId, listTotals.list),
  );
  if (expected !== actual) {
    throw new CopyMismatchError(
      `list_totals differs after the copy: ${expected} in SQLite, ${actual} in PostgreSQL.`,
    );
  }
}

/** The table's rows in rowid order, {@link BATCH_ROWS} at a time, as drizzle maps them (Dates, JSON, booleans). */
function* sqliteBatches(source: SqliteDb, table: SQLiteTable): Generator<Record<string, unknown>[]> {
  const columns = getTableColumns(table);
  let after = 0;
  for (;;) {
    const rows = source
      .select({ rowid: sql<number>`rowid`, ...columns })
      .from(table)
      .where(sql`rowid > ${after}`)
      .orderBy(sql`rowid`)
      .limit(BATCH_ROWS)
      .all() as ({ rowid: number } & Record<string, unknown>)[];
    if (rows.length === 0) return;
    after = rows.at(-1)?.rowid ?? after;
    yield rows.map(({ rowid: _rowid, ...row }) => row);
  }
}

/** Moves each identity column's sequence past the largest copied value, so new rows get new ids. */
async function continueIdentities(client: pg.PoolClient, table: PgTable): Promise<void> {
  const { name, columns } = getTableConfig(table);
  for (const column of columns.filter((candidate) => candidate.generatedIdentity)) {
    await client.query(
      `SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max("${column.name}"), 0) + 1, false) FROM "${name}"`,
      [name, column.name],
    );
  }
}

/**
 * A row as canonical JSON: keys sorted at every level, times as epoch milliseconds — the same text for a
 * row read from either store.
 */
function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, inner]) => [key, canonical(inner)]),
    );
  }
  return value;
}

function rowHash(row: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(row)))
    .digest('hex');
}

/** SHA-256 over the sorted row hashes: equal for equal sets of rows, whatever order they were read in. */
export function tableChecksum(rowHashes: readonly string[]): string {
  const hash = createHash('sha256');
  for (const rowHash of [...rowHashes].sort()) hash.update(rowHash);
  return hash.digest('hex');
}
