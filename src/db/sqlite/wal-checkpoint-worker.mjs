// @ts-check
/*
 * The thread behind `startWalCheckpoints` (wal-checkpoints.ts): its own connection to the service's
 * database file, checkpointing the WAL every `intervalMs`. A PASSIVE checkpoint copies what no reader
 * still needs into the database file and never waits for, nor blocks, the service's connection
 * (https://sqlite.org/c3ref/wal_checkpoint_v2.html).
 *
 * JavaScript, type-checked through JSDoc: Node 20 does not carry tsx's loader into worker threads, and
 * loading tsx in this one would cost the process about 23 MB of memory for a dozen lines.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** @typedef {import('./wal-checkpoints.js').WalCheckpointWorkerData} WalCheckpointWorkerData */
/** @typedef {import('./wal-checkpoints.js').WalCheckpointWorkerMessage} WalCheckpointWorkerMessage */

const port = parentPort;
if (!port) throw new Error('wal-checkpoint-worker runs only as a worker thread');
const { path, intervalMs, journalSizeLimitBytes, walRestartBytes } = /** @type {WalCheckpointWorkerData} */ (
  workerData
);

/**
 * Reports a failure the service can log, and ends the thread. (SQLite's errors lose their message when
 * cloned across threads; and a message posted before the thread ends reaches the service before `exit`.)
 * @param {unknown} error
 */
function failed(error) {
  port?.postMessage(/** @type {WalCheckpointWorkerMessage} */ ({ type: 'failed', message: String(error) }));
  port?.close();
}

/**
 * Opens the connection, or reports why it cannot and lets the thread end.
 * @returns {Database.Database | null}
 */
function open() {
  try {
    const db = new Database(path, { fileMustExist: true });
    db.pragma(`journal_size_limit = ${journalSizeLimitBytes}`);
    // A checkpoint copies pages without keeping them: the smallest page cache SQLite allows.
    db.pragma('cache_size = 1');
    return db;
  } catch (error) {
    failed(error);
    return null;
  }
}

/**
 * One round: a PASSIVE checkpoint; when the WAL then still holds more than `walRestartBytes` of
 * frames, the service is asked (`walLarge`) to finish the checkpoint on its own connection.
 *
 * PASSIVE alone never lets the WAL start over while the service writes without pause (a burst of batch
 * creates, the worker's completions): each round copies the frames committed before it, more are appended
 * meanwhile, and SQLite starts a WAL over only once every frame was copied. The WAL then grows without end —
 * 580 MB in ten seconds of `rest-create-100` (`npm run bench`, issue 50) — and every page read of the
 * service searches a wal-index that grows with it. The service's connection, between two of its own writes,
 * copies what this round left and lets its next write start the WAL over. (A RESTART checkpoint here would
 * do the same while holding off the service's writes, whose busy handler then sleeps whole milliseconds: it
 * raised the creates' p99 ratio to 1.7–1.9.)
 * @param {Database.Database} db
 */
function checkpoint(db) {
  const [passive] = /** @type {{ log: number }[]} */ (db.pragma('wal_checkpoint(PASSIVE)'));
  if (passive && passive.log * pageSize >= walRestartBytes)
    port?.postMessage(/** @type {WalCheckpointWorkerMessage} */ ({ type: 'walLarge' }));
}

const db = open();
/** Bytes per WAL frame's page. */
const pageSize = db ? Number(db.pragma('page_size', { simple: true })) : 4096;
if (db) {
  const timer = setInterval(() => {
    try {
      checkpoint(db);
    } catch (error) {
      clearInterval(timer);
      db.close();
      failed(error);
    }
  }, intervalMs);
  port.on('message', (message) => {
    if (message !== 'stop') return;
    clearInterval(timer);
    db.close();
    port.close();
  });
  port.postMessage(/** @type {WalCheckpointWorkerMessage} */ ({ type: 'ready' }));
}
