import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Services } from '../context.js';
import type { GatheringWorker } from '../gathering/worker.js';
import type { Logger } from '../logger.js';
import type { OrderWorker } from '../ordering/worker.js';
import type { MercureHub } from '../rest/mercure.js';
import { type AppRole, wireApp } from './app-wiring.js';
import { createDispatch } from './dispatch.js';
import type { DrainState } from './draining.js';
import { serveGraphQLOverWebSocket } from './graphql-ws.js';
import { InFlightRequests } from './in-flight.js';
import type { AppMetrics } from './metrics.js';
import { startMetricsListener } from './metrics-listener.js';
import { createReadiness, type Readiness } from './readiness.js';
import { createRequestListener } from './request-listener.js';
import type { SharedSubscriptions } from './shared-subscriptions.js';
import { stopGracefully } from './shutdown.js';

export type { AppRole } from './app-wiring.js';
export type { Readiness } from './readiness.js';

/** A running service: its address, its services, and a `stop()` that really stops it. */
export interface App {
  url: string;
  port: number;
  /** Where `/metrics` is served when `METRICS_PORT` is set (`<metricsUrl>/metrics`); null when it is on {@link url}. */
  metricsUrl: string | null;
  services: Services;
  worker: GatheringWorker;
  /** Places and follows supplier orders where the gathering worker runs (tests stop it to count statements). */
  orderWorker: OrderWorker;
  /** The REST event stream, exposed for its connection count. */
  mercure: MercureHub;
  /** This app's Prometheus metrics (served at `/metrics`). */
  metrics: AppMetrics;
  /** graphql-ws subscriptions, grouped to share one execution per event (for their counts); null for a worker. */
  subscriptions: SharedSubscriptions | null;
  /** What `/readyz` answers right now; `not_ready` from the moment {@link stop} is called. */
  readiness(): Promise<Readiness>;
  /** HTTP requests being answered right now, event streams included. */
  requestsInFlight(): number;
  /**
   * Stops gracefully (issue 17): answers `/readyz` 503 from the first moment, serves on with
   * `Connection: close` for `SHUTDOWN_DRAIN_SECONDS`, then takes no new connection,
   * closes WebSockets with 1001 (graphql-ws clients reconnect), ends the Mercure and GraphQL event streams
   * (EventSource reconnects), stops the worker and gives its leases back, relays the events left and gives
   * the relay's lease back, lets requests in flight finish
   * for up to `SHUTDOWN_TIMEOUT_SECONDS`, then closes what is left, Redis and the database.
   */
  stop(): Promise<void>;
}

/**
 * Starts the whole service on one port: REST routes, `/graphql`, health probes (`/healthz`, `/readyz`),
 * Prometheus metrics (`/metrics`, on a listener of its own when `METRICS_PORT` is set) and the in-process
 * gathering worker, on the store `DATABASE_URL` selects.
 * Every HTTP request is logged once with a request id (see `createRequestLogger`). `PORT=0` picks a free
 * port (tests); `startWorker: false` leaves the worker for the caller to start (tests that must see
 * requests while still pending).
 *
 * @returns the running {@link App}.
 * @throws Error when the store or Redis cannot be opened, or the port cannot be listened on (the store and
 *   Redis are then closed again).
 */
export async function startApp(
  config: Config,
  options: { clock?: Clock; logger?: Logger; startWorker?: boolean; role?: AppRole } = {},
): Promise<App> {
  const parts = await wireApp(config, options);
  const drain: DrainState = { draining: false };
  const readiness = createReadiness(parts, drain);
  const inFlight = new InFlightRequests();
  const server = createServer(
    createRequestListener({
      config,
      logger: parts.services.logger,
      metrics: parts.metrics,
      dispatch: createDispatch(parts, readiness),
      drain,
      inFlight,
    }),
  );
  const metricsListener = await startMetricsListener(config, parts.metrics).catch(async (error: unknown) => {
    await parts.dispose();
    throw error;
  });
  await listen(server, config).catch(async (error: unknown) => {
    await metricsListener?.close();
    await parts.dispose();
    throw error;
  });
  const webSockets =
    parts.role === 'api'
      ? serveGraphQLOverWebSocket(server, parts.yoga, parts.services, {
          onSubscription: parts.metrics.countSubscription,
        })
      : null;
  if (config.EVENT_RELAY === 'on') parts.relay.start();
  if (parts.runsWorker && options.startWorker !== false) {
    parts.worker.start();
    parts.orderWorker.start();
  }
  let stopping: Promise<void> | null = null;
  return {
    ...addressOf(server, config),
    metricsUrl: metricsListener?.url ?? null,
    services: parts.services,
    worker: parts.worker,
    orderWorker: parts.orderWorker,
    mercure: parts.mercure,
    metrics: parts.metrics,
    subscriptions: webSockets?.subscriptions ?? null,
    readiness,
    requestsInFlight: () => inFlight.count,
    stop: () => {
      // The metrics listener is closed last: Prometheus may scrape a draining instance to the end.
      stopping ??= stopGracefully({ config, server, drain, webSockets, inFlight, parts }).finally(() =>
        metricsListener?.close(),
      );
      return stopping;
    },
  };
}

/** Listens on `HOST:PORT`; rejects with the server's error (e.g. `EADDRINUSE`). */
function listen(server: Server, config: Config): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
}

/** The URL and port a listening server is reached at (an IPv6 host in brackets). */
function addressOf(server: Server, config: Config): Pick<App, 'url' | 'port'> {
  const { port } = server.address() as AddressInfo;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return { url: `http://${host}:${port}`, port };
}
