import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Services } from '../context.js';
import { serveDashboard } from '../dashboard/serve.js';
import type { SourceType } from '../db/rows.js';
import { AppError } from '../errors.js';
import { createCatalogSource } from '../gathering/sources/catalog.js';
import { createHttpSource } from '../gathering/sources/http.js';
import type { SourceAdapter } from '../gathering/sources/types.js';
import { GatheringWorker } from '../gathering/worker.js';
import { fromTrustedProxy } from '../http/client-address.js';
import type { Logger } from '../logger.js';
import { publishRequestsChanged } from '../resolvers/availability-events.js';
import { sendJson } from '../rest/http.js';
import { MercureHub } from '../rest/mercure.js';
import { MERCURE_HUB_PATH } from '../rest/mercure-discovery.js';
import { serveApiDocs } from '../rest/openapi/serve.js';
import { handleRest, matchRestPath, type RestPathMatch, sendProblem } from '../rest/router.js';
import { createGraphQLServer } from './graphql.js';
import { graphqlBodyRefusal, sendGraphQLRefusal } from './graphql-body-limit.js';
import { serveGraphQLOverWebSocket } from './graphql-ws.js';
import { InFlightRequests } from './in-flight.js';
import { AppMetrics } from './metrics.js';
import { createRequestLogger } from './request-log.js';
import { routeLabel } from './route-label.js';
import { createServices } from './services.js';
import type { SharedSubscriptions } from './shared-subscriptions.js';
import { createSonataWiring } from './sonata-callbacks.js';

/**
 * What `/readyz` reports: ready only while the database answers and the worker runs (where this instance
 * runs one: `GATHERING_WORKER=off` makes an API-only instance, whose `worker` is `false` and ready).
 */
export interface Readiness {
  status: 'ready' | 'not_ready';
  /** A `select 1` succeeded. */
  database: boolean;
  /** The gathering worker is started and not stopped. */
  worker: boolean;
}

/**
 * What an instance serves: `api` — everything (the default, with the worker unless `GATHERING_WORKER=off`);
 * `worker` — only the gathering worker, with `/healthz`, `/readyz` and `/metrics` for the operator's probes
 * (`npm run worker`, issue 17).
 */
export type AppRole = 'api' | 'worker';

/** A running service: its address, its services, and a `stop()` that really stops it. */
export interface App {
  url: string;
  port: number;
  services: Services;
  worker: GatheringWorker;
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
   * (EventSource reconnects), stops the worker and gives its leases back, lets requests in flight finish
   * for up to `SHUTDOWN_TIMEOUT_SECONDS`, then closes what is left, Redis and the database.
   */
  stop(): Promise<void>;
}

/**
 * Starts the whole service on one port: REST routes, `/graphql`, health probes (`/healthz`, `/readyz`),
 * Prometheus metrics (`/metrics`) and the in-process gathering worker, on the store `DATABASE_URL` selects. Every HTTP request is logged once
 * with a request id (see `createRequestLogger`). `PORT=0` picks a free port (tests); `startWorker: false`
 * leaves the worker for the caller to start (tests that must see requests while still pending).
 */
export async function startApp(
  config: Config,
  options: { clock?: Clock; logger?: Logger; startWorker?: boolean; role?: AppRole } = {},
): Promise<App> {
  const role = options.role ?? 'api';
  const runsWorker = role === 'worker' || config.GATHERING_WORKER === 'on';
  let worker: GatheringWorker | null = null;
  const services = await createServices(config, { ...options, wakeGathering: () => worker?.wake() });
  const mercure = new MercureHub(services, {
    historySize: config.MERCURE_HISTORY_SIZE,
    keepAliveMs: config.MERCURE_KEEPALIVE_SECONDS * 1000,
  });
  const metrics = new AppMetrics({
    openSubscriptions: () => services.events.target.listenerCount,
    eventStreamConnections: () => mercure.connectionCount,
    rateLimitStoreFailures: () => services.rateLimits.storeFailures,
  });
  const sonata = await createSonataWiring(services);
  worker = new GatheringWorker({
    db: services.db,
    logger: services.logger.child({ component: 'gathering' }),
    clock: services.clock,
    adapters: new Map<SourceType, SourceAdapter>([
      ['catalog', createCatalogSource(services.db, { latencyScale: config.SOURCE_LATENCY_SCALE })],
      ['http', createHttpSource({ now: () => services.clock.now() })],
      ['mef-sonata', sonata.source],
    ]),
    concurrency: config.GATHERING_CONCURRENCY,
    idlePollMs: config.GATHERING_IDLE_POLL_MS,
    leaseMs: config.GATHERING_LEASE_SECONDS * 1000,
    maxAttempts: config.GATHERING_MAX_ATTEMPTS,
    onChanges: (changes) => {
      publishRequestsChanged(services, changes).catch((error: unknown) =>
        services.logger.error({ err: error }, 'could not publish request changes'),
      );
    },
    onTaskSettled: metrics.onTaskSettled,
  });
  const yoga = createGraphQLServer(services, { plugins: [metrics.graphqlPlugin] });
  let stopping: Promise<void> | null = null;
  const readiness = async (): Promise<Readiness> => {
    const database = await services.db.ping();
    const ok = database && (worker.running || !runsWorker) && stopping === null;
    return { status: ok ? 'ready' : 'not_ready', database, worker: worker.running };
  };
  const logRequest = createRequestLogger(services.logger);

  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    restMatch: RestPathMatch,
    log: () => Logger,
  ) => {
    if (url.pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (url.pathname === '/readyz') {
      const state = await readiness();
      return sendJson(res, state.status === 'ready' ? 200 : 503, state);
    }
    if (url.pathname === '/metrics') return metrics.serve(req, res);
    if (role === 'worker')
      return sendProblem(res, new AppError('NOT_FOUND', 'A worker serves only its probes.'));
    if (sonata.serves(url.pathname)) return sonata.handle(req, res, url);
    if (url.pathname === '/graphql') {
      const refusal = graphqlBodyRefusal(req.headers);
      if (refusal) return sendGraphQLRefusal(res, refusal);
      return yoga.requestListener(req, res);
    }
    if (url.pathname === MERCURE_HUB_PATH) return mercure.handle(req, res, url);
    if (serveDashboard(req, res, url.pathname)) return;
    if (serveApiDocs(req, res, url.pathname)) return;
    return handleRest(services, req, res, url, log, restMatch);
  };
  const inFlight = new InFlightRequests();
  let draining = false;
  /*
   * A balancer without active health checks (open-source nginx) sends a draining instance traffic until the
   * listener closes, and connections still in the accept queue then are reset: a POST among them would fail.
   * So reads that came through a trusted balancer are answered 503 while draining: the balancer retries
   * them on another instance and, after a few, takes this one out (nginx `max_fails`), so nothing is on its
   * way when the listener closes. Direct clients, probes and writes are served as before.
   */
  const refuseWhileDraining = (req: IncomingMessage, route: string) =>
    (req.method === 'GET' || req.method === 'HEAD') &&
    route !== '/readyz' &&
    route !== '/healthz' &&
    route !== '/metrics' &&
    fromTrustedProxy(config, req);
  const server = createServer((req, res) => {
    const untrack = inFlight.track(res);
    // Draining: the balancer must not keep a connection that could fail under its next request.
    if (draining) res.setHeader('connection', 'close');
    const url = URL.parse(req.url ?? '/', 'http://localhost');
    // The REST table is matched once, for the route label and for the REST router.
    const restMatch = matchRestPath(url?.pathname ?? '');
    const route = url ? routeLabel(url.pathname, restMatch) : 'other';
    const { log: requestLog, end: logLine } = logRequest(req, res, route);
    const recordMetrics = metrics.observeHttp(req, res, route);
    /*
     * One listener ends the request for the in-flight count, the metrics and the log line: a response emits
     * `close` exactly once, after it finished or when its connection closed first. `error` (e.g. a write
     * after the end) puts the error in the line when it comes first.
     */
    const ended = (error?: Error) => {
      untrack();
      recordMetrics();
      logLine(error);
    };
    res.once('close', ended);
    res.once('error', ended);
    if (draining && refuseWhileDraining(req, route)) {
      res.setHeader('retry-after', String(Math.max(1, Math.ceil(config.SHUTDOWN_DRAIN_SECONDS))));
      return sendProblem(res, new AppError('UNAVAILABLE', 'This instance is shutting down; try another.'));
    }
    if (!url) return sendProblem(res, new AppError('MALFORMED', 'The request target is not a valid URL.'));
    handle(req, res, url, restMatch, requestLog).catch((error: unknown) => {
      if (!res.headersSent) return sendProblem(res, error, requestLog);
      requestLog().error({ err: error }, 'request failed after its response began');
      res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const webSockets =
    role === 'api'
      ? serveGraphQLOverWebSocket(server, yoga, services, { onSubscription: metrics.countSubscription })
      : null;
  if (runsWorker && options.startWorker !== false) worker.start();
  const { port } = server.address() as AddressInfo;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  return {
    url: `http://${host}:${port}`,
    port,
    services,
    worker,
    mercure,
    metrics,
    subscriptions: webSockets?.subscriptions ?? null,
    readiness,
    requestsInFlight: () => inFlight.count,
    stop: () => {
      stopping ??= (async () => {
        // From here `/readyz` answers 503. During the drain window everything is still served, each
        // response closing its connection; then no new connection is taken.
        draining = true;
        if (config.SHUTDOWN_DRAIN_SECONDS > 0) await delay(config.SHUTDOWN_DRAIN_SECONDS * 1000);
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await webSockets?.close();
        await mercure.close();
        inFlight.endEventStreams();
        // Gives the leases of running tasks back at once, so workers elsewhere take them.
        await worker.stop();
        const drained = await inFlight.drained(config.SHUTDOWN_TIMEOUT_SECONDS * 1000);
        if (!drained)
          services.logger.warn({ requests: inFlight.count }, 'shutdown: requests cut off after the timeout');
        server.closeAllConnections();
        await closed;
        await services.redis?.close();
        await services.db.close();
      })();
      return stopping;
    },
  };
}
