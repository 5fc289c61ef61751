import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Services } from '../context.js';
import { serveDashboard } from '../dashboard/serve.js';
import { closeDatabase } from '../db/client.js';
import type { SourceType } from '../db/schema/index.js';
import { createCatalogSource } from '../gathering/sources/catalog.js';
import { createHttpSource } from '../gathering/sources/http.js';
import type { SourceAdapter } from '../gathering/sources/types.js';
import { GatheringWorker } from '../gathering/worker.js';
import type { Logger } from '../logger.js';
import { publishRequestChanged } from '../resolvers/availability-events.js';
import { sendJson } from '../rest/http.js';
import { MercureHub } from '../rest/mercure.js';
import { handleRest } from '../rest/router.js';
import { createGraphQLServer } from './graphql.js';
import { serveGraphQLOverWebSocket } from './graphql-ws.js';
import { createServices } from './services.js';

/** A running service: its address, its services, and a `stop()` that really stops it. */
export interface App {
  url: string;
  port: number;
  services: Services;
  worker: GatheringWorker;
  /** The REST event stream, exposed for its connection count. */
  mercure: MercureHub;
  stop(): Promise<void>;
}

/**
 * Starts the whole service on one port: REST routes, `/graphql`, health probes, and the in-process
 * gathering worker. `PORT=0` picks a free port (tests); `startWorker: false` leaves the worker for the
 * caller to start (tests that must see requests while still pending).
 */
export async function startApp(
  config: Config,
  options: { clock?: Clock; logger?: Logger; startWorker?: boolean } = {},
): Promise<App> {
  let worker: GatheringWorker | null = null;
  const services = await createServices(config, { ...options, wakeGathering: () => worker?.wake() });
  worker = new GatheringWorker({
    db: services.db,
    logger: services.logger.child({ component: 'gathering' }),
    clock: services.clock,
    adapters: new Map<SourceType, SourceAdapter>([
      ['catalog', createCatalogSource(services.db, { latencyScale: config.SOURCE_LATENCY_SCALE })],
      ['http', createHttpSource({ now: () => services.clock.now() })],
    ]),
    concurrency: config.GATHERING_CONCURRENCY,
    leaseMs: config.GATHERING_LEASE_SECONDS * 1000,
    maxAttempts: config.GATHERING_MAX_ATTEMPTS,
    onChange: (change) => {
      publishRequestChanged(services, change).catch((error: unknown) =>
        services.logger.error({ err: error }, 'could not publish a request change'),
      );
    },
  });
  const yoga = createGraphQLServer(services);
  const mercure = new MercureHub(services, {
    historySize: config.MERCURE_HISTORY_SIZE,
    keepAliveMs: config.MERCURE_KEEPALIVE_SECONDS * 1000,
  });
  let ready = true;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/graphql') return yoga.requestListener(req, res);
    if (url.pathname === '/.well-known/mercure') return mercure.handle(req, res, url);
    if (url.pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (url.pathname === '/readyz') {
      const databaseOk = (() => {
        try {
          return services.db.$client.prepare('select 1 as ok').get() !== undefined;
        } catch {
          return false;
        }
      })();
      const ok = ready && databaseOk;
      return sendJson(res, ok ? 200 : 503, {
        status: ok ? 'ready' : 'not_ready',
        database: databaseOk,
        worker: ready,
      });
    }
    if (serveDashboard(req, res, url.pathname)) return;
    return handleRest(services, req, res, url);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      services.logger.error({ err: error }, 'request failed');
      if (!res.headersSent) sendJson(res, 500, { status: 500, title: 'Internal server error' });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => resolve());
  });
  const closeWebSockets = serveGraphQLOverWebSocket(server, yoga, services);
  if (options.startWorker !== false) worker.start();
  const { port } = server.address() as AddressInfo;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
  let stopping: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    port,
    services,
    worker,
    mercure,
    stop: () => {
      stopping ??= (async () => {
        ready = false;
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await closeWebSockets();
        await mercure.close();
        await worker.stop();
        server.closeAllConnections();
        await closed;
        closeDatabase(services.db);
      })();
      return stopping;
    },
  };
}
