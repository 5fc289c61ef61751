import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Services } from '../../src/context.js';
import type { ChangedRequest } from '../../src/db/rows.js';
import { createCatalogSource } from '../../src/gathering/sources/catalog.js';
import { type SourceAdapter, SourceError } from '../../src/gathering/sources/types.js';
import { type GatheringWorker, retryDelayMs } from '../../src/gathering/worker.js';
import { getAvailabilityRequest } from '../../src/resolvers/availability-requests.js';
import { createServices } from '../../src/server/services.js';
import { tempDatabasePath, testConfig, waitFor } from '../helpers/app.js';
import { requestAtExampleAddress as demoRequest, testWorker } from '../helpers/gathering.js';

describe('GatheringWorker', () => {
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
  const requestAtExampleAddress = () => demoRequest(services, 'WRK');
  function startWorker(adapter: SourceAdapter) {
    worker = testWorker(services, adapter);
    worker.start();
  }

  it('when a request is gathered, then each change is told and its event waits in the outbox, in order, the last as a read shows it', async () => {
    const { ctx, id } = await requestAtExampleAddress();
    const told: ChangedRequest[] = [];
    worker = testWorker(
      services,
      createCatalogSource(services.db, { latencyScale: 0 }),
      undefined,
      (changes) => told.push(...changes),
    );
    worker.start();

    await waitFor(
      () => services.db.findAvailabilityRequest(ctx.viewer?.instanceId ?? '', id),
      (record) => record?.request.status === 'completed',
    );
    await waitFor(
      () => Promise.resolve(told.length),
      (count) => count === 8,
    );

    const stored = await services.db.findAvailabilityRequest(ctx.viewer?.instanceId ?? '', id);
    // The claim that started it, then one completion per source.
    expect(told.every((change) => change.availabilityRequestId === id)).toBe(true);
    // No relay runs here: every event the changes wrote is still in the outbox, after the request's creation.
    const events = (await services.db.listOutboxEvents(100)).filter((event) => event.subjectId === id);
    const progress = events.map((event) =>
      event.topic === 'availabilityRequest:changed'
        ? [event.payload.kind, event.payload.status, event.payload.sourcesFinished]
        : [event.topic],
    );
    expect(progress[0]).toEqual(['created', 'pending', 0]);
    expect(progress[1]).toEqual(['updated', 'in_progress', 0]);
    expect(progress.at(-1)).toEqual(['updated', 'completed', 7]);
    // One event per change of a transaction: a completion batch of several sources writes one.
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.length).toBeLessThanOrEqual(9);
    const versions = events.map((event) => event.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(versions.at(-1)).toBe(2_000_007);
    expect(events.at(-1)?.payload.updatedAtMs).toBe(stored?.request.updatedAt.getTime());
  });

  it('when one source fails for good and another fails once, then the request completes with the others’ products and the failure recorded', async () => {
    const { ctx, id } = await requestAtExampleAddress();
    const catalog = createCatalogSource(services.db, { latencyScale: 0 });
    const calls = new Map<string, number>();
    startWorker({
      type: 'catalog',
      async fetchOffers(query) {
        const n = (calls.get(query.source.key) ?? 0) + 1;
        calls.set(query.source.key, n);
        if (query.source.key === 'colt')
          throw new SourceError('UNAUTHORIZED', 'The supplier refused our credentials.', false);
        if (query.source.key === 'tele2' && n === 1)
          throw new SourceError('UPSTREAM_5XX', 'The supplier answered 503.', true);
        return catalog.fetchOffers(query);
      },
    });

    await waitFor(
      () => getAvailabilityRequest(ctx, id),
      (record) => record.request.status === 'completed',
    );

    const outcomes = await services.db.listSourceOutcomes(ctx.viewer?.instanceId ?? '', [id]);
    const byName = Object.fromEntries(outcomes.map((o) => [o.sourceName, o]));
    expect(byName.Colt).toEqual({
      availabilityRequestId: id,
      sourceId: expect.any(String),
      sourceName: 'Colt',
      sourceType: 'catalog',
      network: 'Colt',
      status: 'failed',
      attempts: 1,
      errorCode: 'UNAUTHORIZED',
      errorMessage: 'The supplier refused our credentials.',
      productCount: 0,
    });
    expect([byName.Tele2?.status, byName.Tele2?.attempts, byName.Tele2?.errorCode]).toEqual([
      'succeeded',
      2,
      null,
    ]);
    expect(byName.Tele2?.productCount).toBeGreaterThan(0);
    const record = await getAvailabilityRequest(ctx, id);
    expect([record.request.sourcesFinished, record.request.sourcesTotal]).toEqual([7, 7]);
    const products = await services.db.listProductsOfRequests(ctx.viewer?.instanceId ?? '', [id]);
    expect(products.some((p) => p.network === 'Colt')).toBe(false);
    expect(new Set(products.map((p) => p.network))).toEqual(new Set(['Eurofiber', 'KPN', 'Tele2', 'Ziggo']));
  });

  it('when a source keeps failing with retryable errors, then it ends failed after the last attempt', async () => {
    const { ctx, id } = await requestAtExampleAddress();
    const catalog = createCatalogSource(services.db, { latencyScale: 0 });
    startWorker({
      type: 'catalog',
      async fetchOffers(query) {
        if (query.source.key === 'ziggo')
          throw new SourceError('TIMEOUT', 'The source did not answer in time.', true);
        return catalog.fetchOffers(query);
      },
    });

    await waitFor(
      () => getAvailabilityRequest(ctx, id),
      (record) => record.request.status === 'completed',
    );

    const outcomes = await services.db.listSourceOutcomes(ctx.viewer?.instanceId ?? '', [id]);
    const ziggo = outcomes.find((o) => o.sourceName === 'Ziggo');
    expect([ziggo?.status, ziggo?.attempts, ziggo?.errorCode]).toEqual(['failed', 3, 'TIMEOUT']);
  });

  it('when a source throws something unexpected, then it is recorded without internals', async () => {
    const { ctx, id } = await requestAtExampleAddress();
    startWorker({
      type: 'catalog',
      async fetchOffers() {
        throw new TypeError('cannot read properties of undefined (internal detail)');
      },
    });

    await waitFor(
      () => getAvailabilityRequest(ctx, id),
      (record) => record.request.status === 'completed',
    );

    const outcomes = await services.db.listSourceOutcomes(ctx.viewer?.instanceId ?? '', [id]);
    expect(new Set(outcomes.map((o) => `${o.status} ${o.errorCode} ${o.errorMessage}`))).toEqual(
      new Set(['failed SOURCE_ERROR The source failed unexpectedly.']),
    );
  });
});

describe('retryDelayMs', () => {
  it('when the random draw is at its top, then the delay doubles per attempt from 500 ms and stops at 30 s', () => {
    expect([1, 2, 3, 4, 7, 8, 20].map((attempt) => retryDelayMs(attempt, () => 1))).toEqual([
      500, 1000, 2000, 4000, 30_000, 30_000, 30_000,
    ]);
    expect(retryDelayMs(3, () => 0)).toBe(0);
  });
});
