import type { Logger } from '../../logger.js';
import { bindOperations, type Store, type StoreOperations } from '../store.js';
import { postgresDb } from './client.js';
import { migratePostgres } from './migrate.js';
import { openPostgresPool } from './pool.js';
import * as queries from './queries/index.js';
import { postgresUnavailable } from './unavailable.js';

/** Names the PostgreSQL store has that the contract lacks: must stay empty (see `StoreOperations`). */
type OnlyInPostgres = Exclude<keyof typeof queries, keyof StoreOperations>;
const onlyInPostgres: Record<OnlyInPostgres, never> = {};

/**
 * Opens the PostgreSQL store at `url` (`postgres://…`): a pool of at most `poolSize` connections
 * (`DATABASE_POOL_SIZE`), the committed migrations applied under an advisory lock (`migratePostgres`).
 * A connection's error (the server restarted, a connection killed), idle or in use, is logged, not thrown:
 * the pool drops that connection and opens another on demand; a statement that fails that way is a
 * `DependencyUnavailableError` (`postgresUnavailable`).
 *
 * @throws the driver's error when the server cannot be reached or a migration fails (the pool is ended).
 */
export async function openPostgresStore(
  url: string,
  options: { poolSize: number; logger: Logger },
): Promise<Store> {
  const pool = openPostgresPool(url, options.poolSize);
  pool.on('error', (error) => options.logger.warn({ err: error }, 'an idle database connection failed'));
  // A connection in use (a transaction's) that fails — the server restarted or went away — emits `error` on
  // its client, which the pool listens to only while the client is idle: unheard, the event would end the
  // process (issue 48). Its statement fails anyway (a 503, a paused worker) and the pool drops the client
  // when it comes back, so this only notes it.
  pool.on('connect', (client) =>
    client.on('error', (error) =>
      options.logger.debug({ err: error }, 'a database connection in use failed; the pool drops it'),
    ),
  );
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const db = postgresDb(pool);
  const operations: StoreOperations = bindOperations(db, queries, postgresUnavailable);
  void onlyInPostgres;
  return {
    ...operations,
    connection: { dialect: 'postgres', db, pool },
    ping: async () => {
      try {
        await pool.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    close: async () => {
      if (!pool.ended) await pool.end();
    },
  };
}
