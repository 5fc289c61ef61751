import { Worker } from 'node:worker_threads';
import type { Logger } from '../../logger.js';
import type { SqliteDb } from './client.js';

/** What the service passes to the checkpoint thread (`wal-checkpoint-worker.mjs`). */
export interface WalCheckpointWorkerData {
  path: string;
  intervalMs: number;
  journalSizeLimitBytes: number;
  /** WAL size past which the service's connection finishes a checkpoint (`walLarge`). */
  walRestartBytes: number;
}

/**
 * Messages the thread posts: `ready` once its connection is open, `failed` when it cannot go on,
 * `walLarge` when the WAL holds more than the size limit after its checkpoint (the service's connection
 * then finishes the checkpoint, so that its next write starts the WAL over).
 */
export type WalCheckpointWorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'walLarge' };

/** SQLite's default `wal_autocheckpoint`, in pages: what the service's connection goes back to. */
const inlineCheckpointPages = 1000;

/** Background WAL checkpoints of one database file; see {@link startWalCheckpoints}. */
export interface WalCheckpoints {
  /** Resolves with true once checkpoints run on the thread, false when they stay on the connection. */
  readonly started: Promise<boolean>;
  /** Stops the thread (its connection closes) and gives checkpoints back to the service's connection. */
  stop(): Promise<void>;
}

/**
 * Moves WAL checkpoints of the database file at `path` off the event loop.
 *
 * SQLite checkpoints on commit by default: the transaction that grows the WAL past 1000 pages copies
 * them into the database file and syncs it before it returns, so every few batch creates one request
 * waits several milliseconds more (`npm run bench`, rest-create-100). Here a worker thread with its own
 * connection runs a PASSIVE checkpoint every `intervalMs`; once it is running, the service's connection
 * stops checkpointing on commit (`wal_autocheckpoint = 0`). When the WAL still holds more than
 * `walRestartBytes` (default four times `journalSizeLimitBytes`, 256 MB) after the thread's checkpoint, the
 * service's connection runs one PASSIVE checkpoint itself, between two of its writes: it copies what the
 * thread left and syncs the file, and its next write starts the WAL over — under writes without pause, the
 * thread's checkpoints alone let the WAL grow without end (580 MB in ten seconds of batch creates; see
 * `wal-checkpoint-worker.mjs`). That checkpoint holds up the event loop for the copy and the sync: at 64 MB
 * it came every second of `rest-create-100` and raised its p99, at 256 MB it is four times rarer. When the
 * thread cannot start or fails later, the connection checkpoints again as before, and the failure is
 * logged — writes never depend on the thread.
 *
 * Both connections truncate the WAL file to `journalSizeLimitBytes` once it has started over
 * (`journal_size_limit`).
 *
 * @param db the service's connection to `path` (a file; `:memory:` has no WAL).
 */
export function startWalCheckpoints(
  db: SqliteDb,
  path: string,
  options: { logger: Logger; intervalMs?: number; journalSizeLimitBytes?: number; walRestartBytes?: number },
): WalCheckpoints {
  const { logger } = options;
  const journalSizeLimitBytes = options.journalSizeLimitBytes ?? 64 * 1024 * 1024;
  db.$client.pragma(`journal_size_limit = ${journalSizeLimitBytes}`);
  const data: WalCheckpointWorkerData = {
    path,
    intervalMs: options.intervalMs ?? 200,
    journalSizeLimitBytes,
    walRestartBytes: options.walRestartBytes ?? 4 * journalSizeLimitBytes,
  };
  const worker = new Worker(new URL('./wal-checkpoint-worker.mjs', import.meta.url), {
    workerData: data,
    // A pragma every few hundred milliseconds needs next to no heap; V8's defaults would reserve more.
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
  });
  // The thread serves the service; it must not keep a process alive that forgot to stop it.
  worker.unref();
  let stopping = false;
  const checkpointInline = () => {
    if (db.$client.open) db.$client.pragma(`wal_autocheckpoint = ${inlineCheckpointPages}`);
  };
  let settle: (started: boolean) => void = () => {};
  const started = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  let over = false;
  // The first of the failure, `error` and `exit` events settles it; the others say nothing new.
  const fail = (message: string) => {
    if (over) return;
    over = true;
    checkpointInline();
    settle(false);
    if (!stopping) logger.error({ path, reason: message }, 'WAL checkpoints are back on the request path');
  };
  worker.on('message', (message: WalCheckpointWorkerMessage) => {
    if (message.type === 'ready') {
      if (stopping || !db.$client.open) return;
      db.$client.pragma('wal_autocheckpoint = 0');
      settle(true);
    } else if (message.type === 'walLarge') {
      if (stopping || !db.$client.open) return;
      try {
        db.$client.pragma('wal_checkpoint(PASSIVE)');
      } catch (error) {
        // The thread asks again after its next round; the WAL only stays longer.
        logger.warn({ err: error, path }, 'WAL checkpoint on the connection failed');
      }
    } else {
      fail(message.message);
      void worker.terminate();
    }
  });
  // An error thrown in the thread arrives cloned, not always as an Error.
  worker.on('error', (error: unknown) =>
    fail(String((error as { message?: unknown } | null)?.message ?? error)),
  );
  worker.on('exit', (code) => fail(`the checkpoint thread exited (${code})`));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    started,
    stop: async () => {
      if (!stopping) {
        stopping = true;
        checkpointInline();
        // Waiting for the thread must keep the process alive (a CLI command has nothing else left to run).
        worker.ref();
        worker.postMessage('stop');
      }
      await exited;
    },
  };
}
