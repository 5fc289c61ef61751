import type { Server } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import type { Config } from '../config.js';
import type { AppParts } from './app-wiring.js';
import type { DrainState } from './draining.js';
import type { InFlightRequests } from './in-flight.js';

/** What a graceful stop closes, in the order it closes them. */
export interface StoppableParts {
  config: Config;
  server: Server;
  /** Set to draining at once: `/readyz` and the request listener read it. */
  drain: DrainState;
  /** The graphql-ws server, null where the instance serves none (a worker). */
  webSockets: { close(): Promise<void> } | null;
  inFlight: InFlightRequests;
  parts: Pick<AppParts, 'services' | 'mercure' | 'worker' | 'orderWorker' | 'relay' | 'dispose'>;
}

/**
 * Stops an instance gracefully (issue 17), in this order: `/readyz` answers 503 at once; everything is
 * still served for `SHUTDOWN_DRAIN_SECONDS`, each response closing its connection; then the listener takes
 * no new connection and idle ones close; WebSockets close with 1001 (graphql-ws clients reconnect); the
 * Mercure hub and the other event streams end (EventSource reconnects); the worker stops and gives its
 * leases back; requests in flight get up to `SHUTDOWN_TIMEOUT_SECONDS` to finish; the outbox relay publishes
 * what is left and gives its lease back; every connection left is closed; last Redis and the database.
 *
 * @returns a promise resolved once everything is closed; call it once (`App.stop()` keeps its promise).
 * @throws what closing the worker, Redis or the database throws; the steps after it are then not taken.
 */
export async function stopGracefully(stoppable: StoppableParts): Promise<void> {
  const { config, server, drain, webSockets, inFlight, parts } = stoppable;
  // From here `/readyz` answers 503. During the drain window everything is still served, each
  // response closing its connection; then no new connection is taken.
  drain.draining = true;
  if (config.SHUTDOWN_DRAIN_SECONDS > 0) await delay(config.SHUTDOWN_DRAIN_SECONDS * 1000);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await webSockets?.close();
  await parts.mercure.close();
  inFlight.endEventStreams();
  // Gives the leases of running tasks back at once, so workers elsewhere take them.
  await Promise.all([parts.worker.stop(), parts.orderWorker.stop()]);
  const drained = await inFlight.drained(config.SHUTDOWN_TIMEOUT_SECONDS * 1000);
  if (!drained)
    parts.services.logger.warn({ requests: inFlight.count }, 'shutdown: requests cut off after the timeout');
  // What this process committed goes out before it stops; the lease goes to another process at once.
  await parts.relay.stop();
  server.closeAllConnections();
  await closed;
  await parts.dispose();
}
