/**
 * The two stores side by side, for the tests that run one query on PostgreSQL and on SQLite and compare:
 * {@link openTwinStores} opens them, {@link withSameIds} runs one call on each with the same ids.
 */
import type pg from 'pg';
import { inject } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import { openDatabase, type SqliteDb } from '../../../src/db/sqlite/client.js';
import { createLinguisticDatabase } from '../../helpers/postgres-server.js';

/** The counter a test file's `newId` mock numbers ids with (`sequential-ids.ts`). */
export interface IdCounter {
  next: number;
}

/** A PostgreSQL database and an in-memory SQLite one; `close()` ends the pool and drops the database. */
export interface TwinStores {
  pool: pg.Pool;
  db: PostgresDb;
  lite: SqliteDb;
  close(): Promise<void>;
}

/**
 * A fresh PostgreSQL database with a linguistic default collation (a pool of `poolSize`), migrated, and an
 * in-memory SQLite database, both seeded by `seed`. When migrating or seeding fails, both are closed and
 * the error thrown.
 */
export async function openTwinStores(
  poolSize: number,
  seed: (stores: TwinStores) => Promise<void>,
): Promise<TwinStores> {
  const database = await createLinguisticDatabase(inject('postgresAdminUrl'));
  const pool = openPostgresPool(database.url, poolSize);
  const lite = openDatabase(':memory:');
  const stores: TwinStores = {
    pool,
    db: postgresDb(pool),
    lite,
    close: async () => {
      await pool.end();
      lite.$client.close();
      await database.drop();
    },
  };
  try {
    await migratePostgres(pool);
    await seed(stores);
  } catch (error) {
    await stores.close();
    throw error;
  }
  return stores;
}

/**
 * Runs `onPostgres`, then `onSqlite` with the id counter set back to where it was, so both draw the same
 * ids. Returns both results, PostgreSQL's first.
 */
export async function withSameIds<R>(
  ids: IdCounter,
  onPostgres: () => Promise<R>,
  onSqlite: () => Promise<R>,
): Promise<[R, R]> {
  const start = ids.next;
  const first = await onPostgres();
  ids.next = start;
  return [first, await onSqlite()];
}
