import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Services } from '../../src/context.js';
import { createCatalogSource } from '../../src/gathering/sources/catalog.js';
import { type SourceAdapter, SourceError } from '../../src/gathering/sources/types.js';
import type { GatheringTaskSettled, GatheringWorker } from '../../src/gathering/worker.js';
import { getAvailabilityRequest } from '../../src/resolvers/availability-requests.js';
import { createServices } from '../../src/server/services.js';
import { tempDatabasePath, testConfig, waitFor } from '../helpers/app.js';
import { requestAtExampleAddress as demoRequest, testWorker } from '../helpers/gathering.js';

describe('GatheringWorker observers', () => {
  let services: Services;
  let removeDatabase: () => void;
  let worker: GatheringWorker | null;

  beforeEach(async () => {
    const database = tempDatabasePath();
    removeDatabase = database.remove;
    services = await createServices(testConfig(database.path));
    worker = null;
  });
  afterEach(async () => {
    await worker?.stop();
    await services.db.close();
    removeDatabase();
  });
  const requestAtExampleAddress = () => demoRequest(services, 'OBS');
  function createWorker(adapter: SourceAdapter, onTaskSettled: (info: GatheringTaskSettled) => void) {
    worker = testWorker(services, adapter, onTaskSettled);
    return worker;
  }

  it('when attempts succeed, fail for good and fail once, then the observer hears each with its source and fetch time', async () => {
    const { ctx, id } = await requestAtExampleAddress();
    const catalog = createCatalogSource(services.db, { latencyScale: 0 });
    const settled: GatheringTaskSettled[] = [];
    let tele2Calls = 0;
    const started = createWorker(
      {
        type: 'catalog',
        async fetchOffers(query) {
          if (query.source.key === 'colt') throw new SourceError('UNAUTHORIZED', 'Refused.', false);
          if (query.source.key === 'tele2' && ++tele2Calls === 1)
            throw new SourceError('UPSTREAM_5XX', 'The supplier answered 503.', true);
          if (query.source.key === 'zayo') await new Promise((resolve) => setTimeout(resolve, 50));
          return catalog.fetchOffers(query);
        },
      },
      (info) => settled.push(info),
    );
    expect(started.running).toBe(false);

    started.start();
    await waitFor(
      () => getAvailabilityRequest(ctx, id),
      (record) => record.request.status === 'completed',
    );

    expect(started.running).toBe(true);
    // The observer hears of a task after its completion is stored, so the last may come just after the
    // request reads as completed.
    await waitFor(
      () => Promise.resolve(settled.length),
      (count) => count >= 8,
    );
    const outcomes = settled
      .map(({ sourceKey, outcome }) => `${sourceKey}:${outcome}`)
      .sort((a, b) => a.localeCompare(b));
    expect(outcomes).toEqual([
      'colt:failed',
      'eurofiber:succeeded',
      'kpn-wba:succeeded',
      'kpn-weas:succeeded',
      'tele2:retried',
      'tele2:succeeded',
      'zayo:succeeded',
      'ziggo:succeeded',
    ]);
    expect(settled.find((info) => info.sourceKey === 'zayo')?.durationMs).toBeGreaterThanOrEqual(45);
    await started.stop();
    expect(started.running).toBe(false);
  });

  it('when the observer throws, then gathering goes on as if it were not there', async () => {
    const { ctx, id } = await requestAtExampleAddress();
    const catalog = createCatalogSource(services.db, { latencyScale: 0 });
    createWorker(catalog, () => {
      throw new Error('observer broke');
    }).start();

    const done = await waitFor(
      () => getAvailabilityRequest(ctx, id),
      (record) => record.request.status === 'completed',
    );

    expect([done.request.sourcesFinished, done.request.sourcesTotal]).toEqual([7, 7]);
  });

  it('when the change observer throws, then every task still runs and settles and the request completes', async () => {
    const { ctx, id } = await requestAtExampleAddress();
    const settled: GatheringTaskSettled['outcome'][] = [];
    let told = 0;
    worker = testWorker(
      services,
      createCatalogSource(services.db, { latencyScale: 0 }),
      (info) => settled.push(info.outcome),
      () => {
        told += 1;
        throw new Error('change observer broke');
      },
    );
    worker.start();

    const done = await waitFor(
      () => getAvailabilityRequest(ctx, id),
      (record) => record.request.status === 'completed',
    );

    expect([done.request.sourcesFinished, done.request.sourcesTotal]).toEqual([7, 7]);
    await waitFor(
      () => Promise.resolve(settled.length),
      (count) => count === 7,
    );
    expect(settled).toEqual(Array(7).fill('succeeded'));
    expect(told).toBeGreaterThanOrEqual(2);
  });
});
