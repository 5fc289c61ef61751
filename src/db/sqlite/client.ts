import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema/index.js';

/** The drizzle handle every `src/db` query function takes. */
export type SqliteDb = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/**
 * Opens (creating when missing) the SQLite database at `path` (`:memory:` allowed), sets the pragmas
 * the service relies on, and applies the committed drizzle-kit migrations.
 *
 * - WAL so readers never wait for the gathering worker's writes; `synchronous=NORMAL` is durable in WAL
 *   mode and set explicitly because a database just switched to WAL still reports FULL until reopened.
 * - `foreign_keys=ON` (SQLite's default is off) once the migrations ran, and a busy timeout so the CLI
 *   and the service can write the same file at once.
 *
 * @throws Error when the migrated database has rows whose foreign keys point nowhere (it is closed).
 */
export function openDatabase(path: string): SqliteDb {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  const db = drizzle(sqlite, { schema, casing: 'snake_case' });
  // A migration that rebuilds a table (drizzle-kit's `__new_` copies) must run with foreign keys off, and
  // the pragma is a no-op inside the migrator's transaction (https://sqlite.org/lang_altertable.html#otheralter).
  sqlite.pragma('foreign_keys = OFF');
  const applied = appliedMigrations(sqlite);
  migrate(db, { migrationsFolder });
  // Checking every key reads every table: only after a start that applied a migration.
  const broken = appliedMigrations(sqlite) > applied ? (sqlite.pragma('foreign_key_check') as unknown[]) : [];
  if (broken.length > 0) {
    sqlite.close();
    throw new Error(
      `The migrated database breaks ${broken.length} foreign keys: ${JSON.stringify(broken.slice(0, 5))}`,
    );
  }
  sqlite.pragma('foreign_keys = ON');
  return db;
}

/** How many migrations drizzle has recorded as applied (0 for a new database). */
function appliedMigrations(sqlite: Database.Database): number {
  const table = sqlite
    .prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'")
    .get();
  return table ? (sqlite.prepare('select count(*) from __drizzle_migrations').pluck().get() as number) : 0;
}

/** Closes the database handle (checkpointing the WAL). */
export function closeDatabase(db: SqliteDb): void {
  if (db.$client.open) db.$client.close();
}
