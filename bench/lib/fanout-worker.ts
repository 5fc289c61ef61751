import { parentPort, workerData } from 'node:worker_threads';
import { LocalSubscribers, type SubscriberSpec } from './fanout-subscribers.js';

/*
 * Worker-thread entry of the fan-out subscribers (`fanout-pool.ts`): holds one share of the subscribers
 * and answers the pool's requests. Each request is `{seq, op, ids?}`; each answer `{seq, result}` or
 * `{seq, error}`.
 */

/** A request from the pool. */
export interface WorkerRequest {
  seq: number;
  op: 'open' | 'counts' | 'receipts' | 'close';
  ids?: string[];
}

const port = parentPort;
if (!port) throw new Error('fanout-worker.ts runs as a worker thread');
const subscribers = new LocalSubscribers(workerData as SubscriberSpec);

port.on('message', (request: WorkerRequest) => {
  const answer = async (): Promise<unknown> => {
    switch (request.op) {
      case 'open':
        return subscribers.open();
      case 'counts':
        return subscribers.deliveredCounts(request.ids ?? []);
      case 'receipts':
        return subscribers.receipts();
      case 'close':
        subscribers.close();
        return null;
    }
  };
  answer().then(
    (result) => port.postMessage({ seq: request.seq, result }),
    (error: unknown) => port.postMessage({ seq: request.seq, error: String(error) }),
  );
});
