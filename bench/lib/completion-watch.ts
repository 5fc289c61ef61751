import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { monotonicMs } from './fanout-subscribers.js';

/*
 * When requests complete, as a client sees it: a graphql-ws subscription to every `availabilityRequestUpdated`
 * of the instance that notes each request's first `COMPLETED` (the gathering scenario's wall time and
 * per-request latency end there), and a poll that waits for a condition on what it saw.
 */

/** Completion times (monotonic ms) of requests seen `COMPLETED` on the subscription, and events seen. */
export interface CompletionWatch {
  completedAt: Map<string, number>;
  events(): number;
  lastEventAt(): number;
  errors(): number;
  close(): void;
}

export async function watchCompletions(url: string, token: string): Promise<CompletionWatch> {
  const completedAt = new Map<string, number>();
  let events = 0;
  let lastEventAt = monotonicMs();
  let errors = 0;
  const client: Client = createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: { authToken: token },
    retryAttempts: 0,
  });
  await new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', () => reject(new Error('the subscription socket closed')));
    client.subscribe<{ availabilityRequestUpdated: { id: string; status: string } }>(
      { query: 'subscription BenchGathering { availabilityRequestUpdated { id status } }' },
      {
        next: ({ data }) => {
          events += 1;
          lastEventAt = monotonicMs();
          const update = data?.availabilityRequestUpdated;
          if (update?.status === 'COMPLETED' && !completedAt.has(update.id))
            completedAt.set(update.id, lastEventAt);
        },
        error: () => {
          errors += 1;
        },
        complete: () => {},
      },
    );
  });
  return {
    completedAt,
    events: () => events,
    lastEventAt: () => lastEventAt,
    errors: () => errors,
    close: () => void client.dispose(),
  };
}

/** Polls `condition` every 50 ms until it holds, `giveUp` says so, or `timeoutMs` passed. */
export async function waitUntil(
  condition: () => boolean,
  timeoutMs: number,
  giveUp: () => boolean = () => false,
) {
  const deadline = monotonicMs() + timeoutMs;
  while (!condition() && !giveUp() && monotonicMs() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
