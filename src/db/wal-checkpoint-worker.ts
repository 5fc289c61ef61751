import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/*
 * The thread behind `startWalCheckpoints` (wal-checkpoints.ts): its own connection to the service's
 * database file, checkpointing the WAL every `intervalMs`. A PASSIVE checkpoint copies what no reader
 * still needs into the database file and never waits for, nor blocks, the service's connection
 * (https://sqlite.org/c3ref/wal_checkpoint_v2.html).
 */

/** What the service passes to this thread. */
export interface WalCheckpointWorkerData {
  path: string;
  intervalMs: number;
  journalSizeLimitBytes: number;
}

/** Messages this thread posts: `ready` once its connection is open, `failed` when a checkpoint threw. */
export type WalCheckpointWorkerMessage = { type: 'ready' } | { type: 'failed'; message: string };

const port = parentPort;
if (!port) throw new Error('wal-checkpoint-worker runs only as a worker thread');
const { path, intervalMs, journalSizeLimitBytes } = workerData as WalCheckpointWorkerData;

/**
 * Reports a failure the service can log, and ends the thread. (SQLite's errors lose their message when
 * cloned across threads; and a message posted before the thread ends reaches the service before `exit`.)
 */
function failed(error: unknown): void {
  port?.postMessage({ type: 'failed', message: String(error) } satisfies WalCheckpointWorkerMessage);
  port?.close();
}

/** Opens the connection, or reports why it cannot and lets the thread end. */
function open(): Database.Database | null {
  try {
    const db = new Database(path, { fileMustExist: true });
    db.pragma(`journal_size_limit = ${journalSizeLimitBytes}`);
    return db;
  } catch (error) {
    failed(error);
    return null;
  }
}

const db = open();
if (db) {
  const timer = setInterval(() => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch (error) {
      clearInterval(timer);
      db.close();
      failed(error);
    }
  }, intervalMs);
  port.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    clearInterval(timer);
    db.close();
    port.close();
  });
  port.postMessage({ type: 'ready' } satisfies WalCheckpointWorkerMessage);
}
