import type { Logger } from '../../logger.js';
import { bindOperations, type Store, type StoreOperations } from '../store.js';
import { closeDatabase, openDatabase } from './client.js';
import * as queries from './queries/index.js';
import { sqliteUnavailable } from './unavailable.js';
import { startWalCheckpoints } from './wal-checkpoints.js';

/** Names the SQLite store has that the contract lacks: must stay empty (see `StoreOperations`). */
type OnlyInSqlite = Exclude<keyof typeof queries, keyof StoreOperations>;
const onlyInSqlite: Record<OnlyInSqlite, never> = {};

/**
 * Opens the embedded store on the SQLite file at `path` (`:memory:` allowed), applying its migrations
 * (`openDatabase`), and for a file starts WAL checkpoints on a thread of their own (`startWalCheckpoints`),
 * stopped by `close()`; resolves once that thread answered.
 *
 * @throws as `openDatabase` does (a migration that fails, broken foreign keys).
 */
export async function openSqliteStore(path: string, options: { logger: Logger }): Promise<Store> {
  const db = openDatabase(path);
  const checkpoints = path === ':memory:' ? null : startWalCheckpoints(db, path, { logger: options.logger });
  // Ready once the checkpoint thread answered (or failed, and checkpoints stayed inline).
  await checkpoints?.started;
  const ping = db.$client.prepare('select 1 as ok');
  const operations: StoreOperations = bindOperations(db, queries, sqliteUnavailable);
  void onlyInSqlite;
  return {
    ...operations,
    connection: { dialect: 'sqlite', db },
    ping: async () => {
      try {
        return ping.get() !== undefined;
      } catch {
        return false;
      }
    },
    close: async () => {
      await checkpoints?.stop();
      closeDatabase(db);
    },
  };
}
