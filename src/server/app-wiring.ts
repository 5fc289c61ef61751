import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Services } from '../context.js';
import type { EventRelay } from '../event-relay.js';
import type { GatheringWorker } from '../gathering/worker.js';
import type { Logger } from '../logger.js';
import type { OrderWorker } from '../ordering/worker.js';
import { MercureHub } from '../rest/mercure.js';
import { redisReady, storeAnswers } from './dependency-health.js';
import { createEventRelay } from './event-relay.js';
import { createGatheringWorker } from './gathering-worker.js';
import { createGraphQLServer } from './graphql.js';
import { AppMetrics } from './metrics.js';
import { createOrderWorker } from './order-worker.js';
import { createServices } from './services.js';
import { createSonataWiring, type SonataWiring } from './sonata-callbacks.js';

/**
 * What an instance serves: `api` — everything (the default, with the worker unless `GATHERING_WORKER=off`);
 * `worker` — only the gathering worker, with `/healthz`, `/readyz` and `/metrics` for the operator's probes
 * (`npm run worker`, issue 17).
 */
export type AppRole = 'api' | 'worker';

/** An instance's parts, wired but serving nothing yet: no port is open and the worker is not started. */
export interface AppParts {
  role: AppRole;
  /** Whether this instance runs the gathering worker (and `/readyz` waits for it). */
  runsWorker: boolean;
  services: Services;
  mercure: MercureHub;
  metrics: AppMetrics;
  sonata: SonataWiring;
  worker: GatheringWorker;
  /** Places and follows supplier orders; runs where the gathering worker runs. */
  orderWorker: OrderWorker;
  /** The outbox relay: publishes the events the store wrote, on whichever process holds its lease. */
  relay: EventRelay;
  yoga: ReturnType<typeof createGraphQLServer>;
  /**
   * Closes what the services opened: Redis, then the database. Call it last, once the worker is stopped
   * and no request is left, since both still use them.
   */
  dispose(): Promise<void>;
}

/**
 * Wires an instance from its configuration: the services on the store `DATABASE_URL` selects, the REST
 * event stream (Mercure), the metrics, the MEF Sonata callbacks, the gathering worker with its source
 * adapters, and the Yoga server with the metrics plugin.
 *
 * @returns the parts, with a `dispose()` that closes Redis and the database.
 * @throws Error when the store or Redis cannot be opened (see `createServices`).
 */
export async function wireApp(
  config: Config,
  options: { clock?: Clock; logger?: Logger; role?: AppRole } = {},
): Promise<AppParts> {
  const role = options.role ?? 'api';
  // The services wake the worker, which needs the services: it is bound once built, below.
  let worker: GatheringWorker | null = null;
  const services = await createServices(config, { ...options, wakeGathering: () => worker?.wake() });
  const mercure = new MercureHub(services, {
    keepAliveMs: config.MERCURE_KEEPALIVE_SECONDS * 1000,
  });
  const metrics = new AppMetrics({
    openSubscriptions: () => services.events.target.listenerCount,
    eventStreamConnections: () => mercure.connectionCount,
    rateLimitStoreFailures: () => services.rateLimits.storeFailures,
    storeUp: () => storeAnswers(services.db),
    redisUp: () => redisReady(services.redis),
  });
  const sonata = await createSonataWiring(services);
  worker = createGatheringWorker(services, { sonataSource: sonata.source, metrics });
  const orderWorker = createOrderWorker(services, sonata);
  const relay = createEventRelay(services);
  return {
    role,
    runsWorker: role === 'worker' || config.GATHERING_WORKER === 'on',
    services,
    mercure,
    metrics,
    sonata,
    worker,
    orderWorker,
    relay,
    yoga: createGraphQLServer(services, { plugins: [metrics.graphqlPlugin] }),
    dispose: async () => {
      await services.redis?.close();
      await services.db.close();
    },
  };
}
