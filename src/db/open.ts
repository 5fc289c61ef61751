import type { Logger } from '../logger.js';
import { openPostgresStore } from './postgres/store.js';
import { openSqliteStore } from './sqlite/store.js';
import type { Store } from './store.js';

/** Whether `databaseUrl` names a PostgreSQL server (`postgres://…` or `postgresql://…`). */
export function isPostgresUrl(databaseUrl: string): boolean {
  return /^postgres(ql)?:\/\//i.test(databaseUrl);
}

/**
 * The store `DATABASE_URL` selects: a PostgreSQL server for a `postgres://` / `postgresql://` URL
 * (a pool of `DATABASE_POOL_SIZE` connections), else the SQLite file at that path (`:memory:` allowed).
 * Migrations are applied before it returns.
 *
 * @throws when the database cannot be opened or migrated.
 */
export function openStore(
  databaseUrl: string,
  options: { poolSize: number; logger: Logger },
): Promise<Store> {
  return isPostgresUrl(databaseUrl)
    ? openPostgresStore(databaseUrl, options)
    : openSqliteStore(databaseUrl, { logger: options.logger });
}
