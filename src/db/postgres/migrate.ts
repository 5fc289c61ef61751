import { fileURLToPath } from 'node:url';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';

/** The committed PostgreSQL migrations (`npm run db:generate`). */
export const postgresMigrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/**
 * The key of the advisory lock the migrations run under: a constant any instance of the gateway uses
 * (the first 8 bytes of SHA-256("connectivity-gateway migrations"), as a signed 64-bit integer).
 */
export const MIGRATION_LOCK_KEY = '954516801646416005';

/**
 * Applies the migrations a database lacks, holding a session-level advisory lock (`pg_advisory_lock`) for
 * the whole run: instances that start at once wait for one another, and every one after the first finds
 * nothing left to apply, so each migration runs exactly once. drizzle applies the pending migrations in
 * one transaction and records them in `drizzle.__drizzle_migrations`.
 *
 * @throws the database's error when a migration fails; its transaction is rolled back and the lock freed.
 */
export async function migratePostgres(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle({ client }), { migrationsFolder: postgresMigrationsFolder });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}
