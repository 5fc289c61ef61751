import type { Services } from '../context.js';
import type { SourceType } from '../db/rows.js';
import { createCatalogSource } from '../gathering/sources/catalog.js';
import { createHttpSource } from '../gathering/sources/http.js';
import type { SourceAdapter } from '../gathering/sources/types.js';
import { GatheringWorker } from '../gathering/worker.js';
import type { AppMetrics } from './metrics.js';

/**
 * The gathering worker of an instance, not started: one adapter per source type (the catalog, plain HTTP
 * suppliers and `mef-sonata`), its pace from the configuration, the outbox relay told of
 * the events its changes wrote, and every settled task counted in `metrics`.
 *
 * @returns the worker; `start()` it to gather, `stop()` it to give its leases back.
 */
export function createGatheringWorker(
  services: Services,
  parts: { sonataSource: SourceAdapter; metrics: AppMetrics },
): GatheringWorker {
  const { config } = services;
  return new GatheringWorker({
    db: services.db,
    logger: services.logger.child({ component: 'gathering' }),
    clock: services.clock,
    adapters: new Map<SourceType, SourceAdapter>([
      ['catalog', createCatalogSource(services.db, { latencyScale: config.SOURCE_LATENCY_SCALE })],
      ['http', createHttpSource({ now: () => services.clock.now() })],
      ['mef-sonata', parts.sonataSource],
    ]),
    concurrency: config.GATHERING_CONCURRENCY,
    idlePollMs: config.GATHERING_IDLE_POLL_MS,
    leaseMs: config.GATHERING_LEASE_SECONDS * 1000,
    maxAttempts: config.GATHERING_MAX_ATTEMPTS,
    // The changes' events were written with them; the relay publishes them now.
    onChanges: () => services.events.written(),
    onTaskSettled: parts.metrics.onTaskSettled,
  });
}
