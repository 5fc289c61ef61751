import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { monotonicMs } from './fanout-subscribers.js';

/*
 * Orders as a client follows them (issue 36): a graphql-ws subscription to every `orderUpdated` of the
 * instance, opened before the orders are placed, noting when each order was first seen and when it was seen
 * in a final state (the order scenario's wall time and per-order latency end at `COMPLETED`).
 */

/** Order statuses after which an order changes no more (`OrderStatus`). */
const finalStatuses = new Set(['COMPLETED', 'PARTIALLY_COMPLETED', 'FAILED', 'CANCELLED']);

/** What the subscription saw so far; times are monotonic ms. */
export interface OrderWatch {
  /** When each order was first seen ended, and in which final status. */
  endedAt: Map<string, { at: number; status: string }>;
  /** Events received per order. */
  eventsOf: Map<string, number>;
  events(): number;
  lastEventAt(): number;
  errors(): number;
  close(): void;
}

/** Subscribes at `url` (graphql-ws) with `token`; resolves once the socket is acknowledged. */
export async function watchOrders(url: string, token: string): Promise<OrderWatch> {
  const endedAt = new Map<string, { at: number; status: string }>();
  const eventsOf = new Map<string, number>();
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
    client.subscribe<{ orderUpdated: { id: string; status: string } }>(
      { query: 'subscription BenchOrders { orderUpdated { id status } }' },
      {
        next: ({ data, errors: failures }) => {
          if (failures?.length) errors += 1;
          const update = data?.orderUpdated;
          if (!update) return;
          events += 1;
          lastEventAt = monotonicMs();
          eventsOf.set(update.id, (eventsOf.get(update.id) ?? 0) + 1);
          if (finalStatuses.has(update.status) && !endedAt.has(update.id))
            endedAt.set(update.id, { at: lastEventAt, status: update.status });
        },
        error: () => {
          errors += 1;
        },
        complete: () => {},
      },
    );
  });
  return {
    endedAt,
    eventsOf,
    events: () => events,
    lastEventAt: () => lastEventAt,
    errors: () => errors,
    close: () => void client.dispose(),
  };
}
