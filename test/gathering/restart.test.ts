import { type ChildProcess, spawn } from 'node:child_process';
import getPort from 'get-port';

import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiClient,
  contractExampleBatch,
  startTestServer,
  type TestServer,
  tempDatabasePath,
  waitFor,
} from '../helpers/app.js';

const addresses = ['1016XA', '1017AB', '3011AA', '3511AB', '5611AA', '7101AA'].map((postalCode, index) => ({
  address: { country_code: 'NL', postal_code: postalCode, house_number: String(index + 1) },
}));

type Product = {
  network: string;
  technology_type: string;
  connection_type: string;
  bandwidth: object;
  contract_term: number;
  mrc: number;
};
const productKey = (p: Product) =>
  JSON.stringify([p.network, p.technology_type, p.connection_type, p.bandwidth, p.contract_term, p.mrc]);

/** Reads every request until all are completed; returns their single-request documents. */
async function allCompleted(api: ApiClient, ids: string[]) {
  return Promise.all(
    ids.map(async (id) => {
      const done = await waitFor(
        () => api.get(`/availability-requests/${id}`),
        (r) => r.body.data.status === 'completed',
        30_000,
      );
      return done.body.data;
    }),
  );
}

/** Asserts each interrupted request got exactly the products an uninterrupted one gets. */
async function expectSameAsUninterrupted(
  api: ApiClient,
  interrupted: { products: Product[]; sources: { product_count: number; status: string }[] }[],
) {
  const control = await api.post('/availability-requests', addresses);
  const controls = await allCompleted(
    api,
    control.body.data.map((entry: { id: string }) => entry.id),
  );
  interrupted.forEach((record, index) => {
    const keys = record.products.map(productKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(controls[index].products.map(productKey).sort());
    expect(record.sources.every((source) => source.status === 'succeeded')).toBe(true);
    expect(record.products.length).toBe(
      record.sources.reduce((sum, source) => sum + source.product_count, 0),
    );
  });
}

describe('gathering across restarts', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('when the service stops in the middle of gathering and starts again, then every request completes with no duplicate product', async () => {
    const database = tempDatabasePath();
    cleanups.push(database.remove);
    // Polling every request until it completes is many reads: the rate limits are not under test here.
    const env = {
      SOURCE_LATENCY_SCALE: '0.3',
      GATHERING_CONCURRENCY: '4',
      RATE_LIMIT_PER_TOKEN: '1000000',
      RATE_LIMIT_PER_INSTANCE: '1000000',
    };
    const first: TestServer = await startTestServer({ databasePath: database.path, env });
    const tenant = await first.tenant();
    const created = await tenant.api.post('/availability-requests', addresses);
    const ids: string[] = created.body.data.map((entry: { id: string }) => entry.id);
    const midway = await waitFor(
      () => tenant.api.get('/availability-requests?page_size=100'),
      (r) =>
        r.body.data.some(
          (record: { networks_progress_percentage: string }) =>
            record.networks_progress_percentage !== '0.00',
        ),
    );
    expect(midway.body.data.some((record: { status: string }) => record.status !== 'completed')).toBe(true);

    await first.close();
    const second = await startTestServer({ databasePath: database.path, env });
    cleanups.push(() => second.close());
    const api = new ApiClient(second.app.url, tenant.api.token);

    const records = await allCompleted(api, ids);

    expect(records.map((record) => record.networks_progress_percentage)).toEqual(ids.map(() => '100.00'));
    await expectSameAsUninterrupted(api, records);
  }, 90_000);

  it('when the service process is killed with SIGKILL at several random points, then restarts complete every request with no duplicate and progress never goes back', async () => {
    const database = tempDatabasePath();
    cleanups.push(database.remove);
    const port = await getPort({ host: '127.0.0.1' });
    const base = `http://127.0.0.1:${port}`;
    let child = spawnService(port, database.path);
    cleanups.push(() => {
      child.kill('SIGKILL');
    });
    const stdout = await waitFor(
      async () => child.output(),
      (text) => /client_secret: \S+/.test(text),
      30_000,
    );
    const anonymous = new ApiClient(base);
    const signIn = await anonymous.post('/authentication', {
      client_id: /client_id: +(\S+)/.exec(stdout)?.[1],
      client_secret: /client_secret: +(\S+)/.exec(stdout)?.[1],
    });
    const api = anonymous.withToken(signIn.body.data.auth_token);
    const created = await api.post('/availability-requests', [...addresses, contractExampleBatch[1]]);
    const ids: string[] = created.body.data.map((entry: { id: string }) => entry.id);
    const seen = new Map<string, number[]>();
    const observe = async () => {
      const list = await api.get('/availability-requests?page_size=100');
      for (const record of list.body.data as { id: string; networks_progress_percentage: string }[]) {
        seen.set(record.id, [...(seen.get(record.id) ?? []), Number(record.networks_progress_percentage)]);
      }
      return list;
    };

    for (let kill = 0; kill < 3; kill += 1) {
      const deadline = Date.now() + 150 + Math.random() * 1200;
      await waitFor(observe, () => Date.now() > deadline, 30_000);
      child.kill('SIGKILL');
      await child.exited;
      child = spawnService(port, database.path);
      await waitFor(
        () =>
          fetch(`${base}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        (status) => status === 200,
        30_000,
      );
      await observe();
    }
    child.kill('SIGKILL');
    await child.exited;
    const restarted = await startTestServer({
      databasePath: database.path,
      env: { SOURCE_LATENCY_SCALE: '0.05', GATHERING_LEASE_SECONDS: '2', GATHERING_MAX_ATTEMPTS: '10' },
    });
    cleanups.push(() => restarted.close());
    const after = new ApiClient(restarted.app.url, signIn.body.data.auth_token);

    const records = await allCompleted(after, ids);

    expect(records.map((record) => [record.status, record.networks_progress_percentage])).toEqual(
      ids.map(() => ['completed', '100.00']),
    );
    for (const percentages of seen.values())
      expect([...percentages].sort((a, b) => a - b)).toEqual(percentages);
    await expectSameAsUninterrupted(after, records.slice(0, addresses.length));
  }, 120_000);
});

/** The service as a real child process on `port`, with short leases so a killed worker's tasks come back soon. */
function spawnService(port: number, databasePath: string) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databasePath,
      LOG_LEVEL: 'silent',
      SOURCE_LATENCY_SCALE: '1',
      GATHERING_CONCURRENCY: '4',
      GATHERING_LEASE_SECONDS: '2',
      // Every kill costs the running tasks a lease expiry, bounded by this too (tested in worker.test.ts).
      GATHERING_MAX_ATTEMPTS: '10',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { kill: (signal: NodeJS.Signals) => child.kill(signal), output: () => output, exited };
}
