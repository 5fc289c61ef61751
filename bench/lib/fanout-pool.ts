import { Worker } from 'node:worker_threads';
import { LocalSubscribers, type Receipts, type SubscriberSpec } from './fanout-subscribers.js';
import type { WorkerRequest } from './fanout-worker.js';

/** Fan-out subscribers, wherever they run; every method covers all of them. */
export interface SubscriberPool {
  /** Opens every subscriber (in batches); resolves with how many are ready and how many failed. */
  open(): Promise<{ ready: number; failed: number }>;
  /** For each id, how many subscribers have received it so far. */
  deliveredCounts(ids: readonly string[]): Promise<number[]>;
  /** Everything received so far, merged over threads. */
  receipts(): Promise<Receipts>;
  /** Closes every subscriber and stops the worker threads. */
  close(): Promise<void>;
}

/** One share of the subscribers, in this thread or in a worker. */
interface Share {
  call(op: WorkerRequest['op'], ids?: string[]): Promise<unknown>;
  stop(): Promise<void>;
}

function localShare(spec: SubscriberSpec): Share {
  const subscribers = new LocalSubscribers(spec);
  return {
    call: async (op, ids) => {
      switch (op) {
        case 'open':
          return subscribers.open();
        case 'counts':
          return subscribers.deliveredCounts(ids ?? []);
        case 'receipts':
          return subscribers.receipts();
        case 'close':
          return subscribers.close();
      }
    },
    stop: async () => {},
  };
}

function workerShare(spec: SubscriberSpec): Share {
  // Node 20 does not carry tsx's loader hooks into worker threads: the worker loads its entry through
  // tsx's API instead.
  const entry = JSON.stringify(new URL('./fanout-worker.ts', import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const worker = new Worker(`import(${tsx}).then(({ tsImport }) => tsImport(${entry}, ${entry}))`, {
    eval: true,
    workerData: spec,
  });
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let seq = 0;
  worker.on('message', (answer: { seq: number; result?: unknown; error?: string }) => {
    const waiter = pending.get(answer.seq);
    pending.delete(answer.seq);
    if (answer.error !== undefined) waiter?.reject(new Error(answer.error));
    else waiter?.resolve(answer.result);
  });
  const fail = (error: Error) => {
    for (const waiter of pending.values()) waiter.reject(error);
    pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`subscriber worker exited (${code})`)));
  return {
    call: (op, ids) =>
      new Promise((resolve, reject) => {
        seq += 1;
        pending.set(seq, { resolve, reject });
        worker.postMessage({ seq, op, ...(ids ? { ids } : {}) } satisfies WorkerRequest);
      }),
    stop: async () => {
      await worker.terminate();
    },
  };
}

/**
 * Starts `spec.count` subscribers: in this thread when `threads` is 0, else split evenly over `threads`
 * worker threads (so receiving does not delay the publisher's timer on the harness's main thread), thread
 * `k` connecting to `spec.urls[k % spec.urls.length]` when `spec.urls` is given.
 * Nothing is opened before {@link SubscriberPool.open}.
 */
export function startSubscriberPool(spec: SubscriberSpec, threads: number): SubscriberPool {
  const shares: Share[] =
    threads <= 0
      ? [localShare(spec)]
      : Array.from({ length: threads }, (_, index) => {
          const count = Math.floor(spec.count / threads) + (index < spec.count % threads ? 1 : 0);
          const url = spec.urls?.length ? (spec.urls[index % spec.urls.length] ?? spec.url) : spec.url;
          return workerShare({ ...spec, count, url });
        });
  const all = (op: WorkerRequest['op'], ids?: string[]) => Promise.all(shares.map((s) => s.call(op, ids)));
  return {
    open: async () => {
      const outcomes = (await all('open')) as { ready: number; failed: number }[];
      return {
        ready: outcomes.reduce((sum, outcome) => sum + outcome.ready, 0),
        failed: outcomes.reduce((sum, outcome) => sum + outcome.failed, 0),
      };
    },
    deliveredCounts: async (ids) => {
      const counts = (await all('counts', [...ids])) as number[][];
      return ids.map((_, index) => counts.reduce((sum, share) => sum + (share[index] ?? 0), 0));
    },
    receipts: async () => {
      const parts = (await all('receipts')) as Receipts[];
      const byEvent = new Map<string, number[]>();
      for (const part of parts) {
        for (const [id, times] of part.byEvent) byEvent.set(id, [...(byEvent.get(id) ?? []), ...times]);
      }
      return {
        byEvent,
        duplicates: parts.reduce((sum, part) => sum + part.duplicates, 0),
        errors: parts.reduce((sum, part) => sum + part.errors, 0),
      };
    },
    close: async () => {
      await all('close');
      await Promise.all(shares.map((share) => share.stop()));
    },
  };
}
