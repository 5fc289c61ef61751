import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';
import { afterEach, describe, expect, it } from 'vitest';
import { simulatedOffers } from '../../src/gathering/simulator/offers.js';
import { startSupplierSimulator } from '../../src/gathering/simulator/server.js';
import { demoCatalogPath, readCatalogFile } from '../../src/gathering/sources/catalog-file.js';
import { startTestServer, tempDatabasePath, waitFor } from '../helpers/app.js';
import { countStoredRows, storedRows } from '../helpers/store.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const catalog = readCatalogFile(demoCatalogPath);

/** Five demo suppliers with offers at 1016XA; 100 requests there make 500 gathering tasks. */
const supplierKeys = ['colt', 'eurofiber', 'kpn-wba', 'tele2', 'ziggo'];
const requestCount = 100;

/** How many offers the simulator answers a supplier for an address at 1016XA (the same for every house). */
function offerCountAt1016XA(key: string): number {
  return simulatedOffers(catalog, key, {
    request_id: 'avr_test',
    address: {
      country_code: 'NL',
      postal_code: '1016XA',
      house_number: '1',
      house_number_addition: '',
      street: '',
      city: 'Amsterdam',
      coordinates: null,
    },
    filters: { bandwidths: [], networks: [], contract_terms: [], connection_types: [], technology_types: [] },
  }).length;
}

/** A gateway process (`src/main.ts`) on `databaseUrl`, with no demo seed: here only its worker matters. */
async function spawnGateway(databaseUrl: string) {
  const port = await getPort({ host: '127.0.0.1' });
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'silent',
      NODE_ENV: 'test',
      SEED_DEMO: 'false',
      GATHERING_CONCURRENCY: '8',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    healthy: () =>
      fetch(`${url}/healthz`).then(
        (response) => response.status === 200,
        () => false,
      ),
  };
}

/** `gathering_tasks_total` of one process's `/metrics`, as `source/outcome` → count. */
async function gatheringAttempts(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^gathering_tasks_total\{([^}]*)\} (\d+)$/gm)) {
    const labels = Object.fromEntries(
      [...(match[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((label) => [label[1], label[2]]),
    );
    counts[`${labels.source}/${labels.outcome}`] = Number(match[2]);
  }
  return counts;
}

describe('two gateway processes on one queue', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('when two worker processes gather 500 tasks from one database, then each task runs and succeeds exactly once and both processes take part', async () => {
    const database = tempDatabasePath();
    cleanups.push(database.remove);
    // At 8 tasks per process and 50–150 ms per answer, one process needs seconds for all 500 tasks, while an
    // idle worker looks at the queue at least once a second: both processes find tasks to claim.
    const simulator = await startSupplierSimulator({ behaviour: { latencyMinMs: 50, latencyMaxMs: 150 } });
    cleanups.push(() => simulator.stop());
    // The API the test uses runs no worker: every task goes to one of the two processes.
    const server = await startTestServer({ databasePath: database.path, startWorker: false });
    cleanups.push(() => server.close());
    const admin = await server.tenant({
      demoCatalog: false,
      roles: ['instance_admin', 'connectivity_check'],
    });
    for (const key of supplierKeys) {
      const { name, network } = catalog.sources.find((source) => source.key === key) ?? {};
      const registered = await admin.api.graphql(
        'mutation ($input: RegisterSourceInput!) { registerSource(input: $input) { source { id } } }',
        {
          input: { key, name, network, countryCodes: ['NL'], endpointUrl: simulator.endpoint(key) },
        },
      );
      expect(registered.errors).toBeUndefined();
    }
    const workers = [await spawnGateway(database.path), await spawnGateway(database.path)];
    for (const worker of workers) cleanups.push(worker.stop);
    for (const worker of workers) await waitFor(worker.healthy, (healthy) => healthy, 30_000);

    const created = await admin.api.post(
      '/availability-requests',
      Array.from({ length: requestCount }, (_, index) => ({
        address: { country_code: 'NL', postal_code: '1016XA', house_number: String(index + 1) },
      })),
    );
    expect(created.status).toBe(201);
    const { db } = server.app.services;
    const instanceId = admin.instanceId;
    await waitFor(
      () => countStoredRows(db, 'availabilityRequests', { instanceId, status: 'completed' }),
      (completed) => completed === requestCount,
      120_000,
    );

    const tasks = (await storedRows(db, 'gatheringTasks', { instanceId })) as {
      id: number;
      sourceId: string;
      status: string;
      attempts: number;
    }[];
    expect(tasks.length).toBe(500);
    expect(tasks.map((task) => [task.status, task.attempts])).toEqual(tasks.map(() => ['succeeded', 1]));
    // Each supplier answered exactly one call per request: every task needed at least one call to succeed,
    // so one call each and no more means no task ran twice, in either process.
    expect(Object.fromEntries([...simulator.stats].map(([key, stats]) => [key, stats.calls]))).toEqual(
      Object.fromEntries(supplierKeys.map((key) => [key, requestCount])),
    );
    const sourceKeyOf = new Map(
      ((await storedRows(db, 'sources', { instanceId })) as { id: string; key: string }[]).map((source) => [
        source.id,
        source.key,
      ]),
    );
    const products = (await storedRows(db, 'availabilityRequestProducts', { instanceId })) as {
      gatheringTaskId: number;
    }[];
    const productsPerTask = new Map<number, number>();
    for (const product of products)
      productsPerTask.set(product.gatheringTaskId, (productsPerTask.get(product.gatheringTaskId) ?? 0) + 1);
    expect(tasks.map((task) => productsPerTask.get(task.id) ?? 0)).toEqual(
      tasks.map((task) => offerCountAt1016XA(sourceKeyOf.get(task.sourceId) ?? '')),
    );
    const attempts = (counts: Record<string, number> = {}) =>
      Object.values(counts).reduce((sum, count) => sum + count, 0);
    // A task is counted after its completion is stored, so the last counts may come just after the
    // requests read as completed.
    const [first, second] = await waitFor(
      () => Promise.all(workers.map((worker) => gatheringAttempts(worker.url))),
      (counts) => counts.reduce((sum, count) => sum + attempts(count), 0) >= tasks.length,
    );
    expect(attempts(first)).toBeGreaterThan(0);
    expect(attempts(second)).toBeGreaterThan(0);
    // Only successes, and the two processes' counts add up to one attempt per task.
    expect(
      Object.fromEntries(
        [...new Set([...Object.keys(first ?? {}), ...Object.keys(second ?? {})])].map((series) => [
          series,
          (first?.[series] ?? 0) + (second?.[series] ?? 0),
        ]),
      ),
    ).toEqual(Object.fromEntries(supplierKeys.map((key) => [`${key}/succeeded`, requestCount])));
  }, 180_000);
});
