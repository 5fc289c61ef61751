import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Services } from '../../src/context.js';
import { DependencyUnavailableError } from '../../src/errors.js';
import { createCatalogSource } from '../../src/gathering/sources/catalog.js';
import type { SourceAdapter } from '../../src/gathering/sources/types.js';
import { GatheringWorker, type GatheringWorkerOptions } from '../../src/gathering/worker.js';
import { createServices } from '../../src/server/services.js';
import { tempDatabasePath, testConfig } from '../helpers/app.js';
import { requestAtExampleAddress } from '../helpers/gathering.js';
import { storedRows } from '../helpers/store.js';

/*
 * The gathering worker's leases are each claim's own (issue 48): an attempt the store's outage interrupted
 * gives its task back once the store answers; when the same worker claimed that task again meanwhile (its
 * lease ran out during the outage), the late give-back must leave the new claim alone, or the task would be
 * queued and run a third time beside the second. A graceful stop gives back every claim's leases.
 */

const LEASE_MS = 10_000;

/** An attempt that runs until its worker stops it. */
const untilStopped = (signal: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason));
  });

/** A worker of 8 slots on `db` whose catalogue sources answer with `fetchOffers`. */
function leaseWorker(
  db: GatheringWorkerOptions['db'],
  clock: GatheringWorkerOptions['clock'],
  logger: GatheringWorkerOptions['logger'],
  fetchOffers: SourceAdapter['fetchOffers'],
): GatheringWorker {
  return new GatheringWorker({
    db,
    logger,
    clock,
    adapters: new Map([['catalog', { type: 'catalog', fetchOffers }]]),
    concurrency: 8,
    leaseMs: LEASE_MS,
    maxAttempts: 3,
    onChanges: () => {},
    idlePollMs: 3_600_000,
  });
}

describe('the gathering worker’s leases, one owner per claim', () => {
  let services: Services;
  let removeDatabase: () => void;
  let worker: GatheringWorker | null = null;

  beforeEach(async () => {
    const database = tempDatabasePath();
    removeDatabase = database.remove;
    services = await createServices(testConfig(database.path));
  });
  afterEach(async () => {
    await worker?.stop();
    await services.db.close();
    removeDatabase();
  });

  it('when an interrupted attempt gives its task back after its own worker claimed the task again, then the give-back is fenced out and the task runs once at a time, its attempt not counted', async () => {
    const { id } = await requestAtExampleAddress(services, 'LSE');
    const catalog = createCatalogSource(services.db, { latencyScale: 0 });
    let now = Date.now();
    let storeUp = true;
    const owners: string[] = [];
    let coltCalls = 0;
    let openGiveBack!: () => void;
    const giveBack = new Promise<void>((resolve) => {
      openGiveBack = resolve;
    });
    const releases: number[] = [];
    worker = leaseWorker(
      {
        ...services.db,
        ping: async () => storeUp,
        claimTasks: async (options) => {
          owners.push(options.owner);
          return services.db.claimTasks(options);
        },
        releaseTasks: async (owner, at, taskIds) => {
          // The interrupted attempt's give-back waits until its task was claimed again.
          if (taskIds) await giveBack;
          const released = await services.db.releaseTasks(owner, at, taskIds);
          if (taskIds) releases.push(released);
          return released;
        },
      },
      { now: () => new Date(now) },
      services.logger,
      async (query) => {
        if (query.source.key !== 'colt') return catalog.fetchOffers(query);
        coltCalls += 1;
        if (coltCalls === 1) {
          // The store goes down under the first attempt (a catalogue source reads it).
          storeUp = false;
          throw new DependencyUnavailableError('store');
        }
        // Later attempts run until the worker stops.
        return untilStopped(query.signal);
      },
    );
    worker.start();
    await vi.waitFor(() => expect([coltCalls, storeUp]).toEqual([1, false]));
    // The outage outlasts the lease; when the store is back the worker looks at the queue again.
    now += LEASE_MS + 1_000;
    storeUp = true;
    await vi.waitFor(async () => {
      worker?.wake();
      expect(coltCalls).toBe(2);
    });
    openGiveBack();
    await vi.waitFor(() => expect(releases).toEqual([0]));
    // Nothing was given back: a look at the queue finds no task to run again.
    const claimsBefore = owners.length;
    worker.wake();
    await vi.waitFor(() => expect(owners.length).toBeGreaterThan(claimsBefore));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(coltCalls).toBe(2);
    const tasks = (await storedRows(services.db, 'gatheringTasks', {
      availabilityRequestId: id,
    })) as { status: string; attempts: number; leaseExpiries: number; leaseOwner: string | null }[];
    const colt = tasks.filter((task) => task.status === 'running');
    expect(colt.map((task) => [task.attempts, task.leaseExpiries])).toEqual([[1, 1]]);
    expect(owners.indexOf(colt[0]?.leaseOwner as string)).toBeGreaterThan(0);
    expect(owners.every((owner) => owner.startsWith(`${worker?.owner}:`))).toBe(true);
  });

  it('when the worker stops with attempts of two claims under way, then it gives back the leases of both, the attempts not counted', async () => {
    const first = await requestAtExampleAddress(services, 'LSA');
    const calls: string[] = [];
    // Every attempt runs until the worker stops.
    worker = leaseWorker(services.db, services.clock, services.logger, async (query) => {
      calls.push(query.request.id);
      return untilStopped(query.signal);
    });
    worker.start();
    await vi.waitFor(() => expect(calls).toHaveLength(7));
    // A second request: its first task takes the one free slot, in a claim of its own.
    const second = await requestAtExampleAddress(services, 'LSB');
    worker.wake();
    await vi.waitFor(() => expect(calls).toHaveLength(8));
    const running = (await storedRows(services.db, 'gatheringTasks', { status: 'running' })) as {
      leaseOwner: string;
    }[];
    expect(new Set(running.map((task) => task.leaseOwner)).size).toBe(2);

    await worker.stop();
    worker = null;
    const tasks = (await storedRows(services.db, 'gatheringTasks')) as {
      availabilityRequestId: string;
      status: string;
      attempts: number;
      leaseOwner: string | null;
    }[];
    expect(tasks.filter((task) => task.availabilityRequestId === first.id)).toHaveLength(7);
    expect(tasks.filter((task) => task.availabilityRequestId === second.id)).toHaveLength(7);
    expect(new Set(tasks.map((task) => `${task.status} ${task.attempts} ${task.leaseOwner}`))).toEqual(
      new Set(['queued 0 null']),
    );
  });
});
