import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema/index.js';

/** The drizzle handle every `src/db` query function takes. */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

const migrationsFolder = fileURLToPath(new URL('./migrations', import.meta.url));

/**
 * Opens (creating when missing) the SQLite database at `path` (`:memory:` allowed), sets the pragmas
 * the service relies on, and applies the committed drizzle-kit migrations.
 *
 * - WAL so readers never wait for the gathering worker's writes; `synchronous=NORMAL` is durable in WAL
 *   mode and set explicitly because a database just switched to WAL still reports FULL until reopened.
 * - `foreign_keys=ON` (SQLite's default is off) and a busy timeout so the CLI and the service can write
 *   the same file at once.
 */
export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = drizzle(sqlite, { schema, casing: 'snake_case' });
  migrate(db, { migrationsFolder });
  return db;
}

/** Closes the database handle (checkpointing the WAL). */
export function closeDatabase(db: Db): void {
  if (db.$client.open) db.$client.close();
}
