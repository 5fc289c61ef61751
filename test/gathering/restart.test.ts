import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
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
    const env = { SOURCE_LATENCY_SCALE: '0.3', GATHERING_CONCURRENCY: '4' };
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
  });

  it('when the service process is killed with SIGKILL mid-gathering, then a restart reclaims the leases and completes every request', async () => {
    const database = tempDatabasePath();
    cleanups.push(database.remove);
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env,
        PORT: String(port),
        DATABASE_URL: database.path,
        LOG_LEVEL: 'silent',
        SOURCE_LATENCY_SCALE: '1',
        GATHERING_CONCURRENCY: '4',
        GATHERING_LEASE_SECONDS: '2',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(() => {
      child.kill('SIGKILL');
    });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    await waitFor(
      async () => stdout,
      (text) => /client_secret: \S+/.test(text),
      30_000,
    );
    const clientId = /client_id: +(\S+)/.exec(stdout)?.[1];
    const clientSecret = /client_secret: +(\S+)/.exec(stdout)?.[1];
    const anonymous = new ApiClient(`http://127.0.0.1:${port}`);
    const signIn = await anonymous.post('/authentication', {
      client_id: clientId,
      client_secret: clientSecret,
    });
    const api = anonymous.withToken(signIn.body.data.auth_token);
    const created = await api.post('/availability-requests', [...addresses, contractExampleBatch[1]]);
    const ids: string[] = created.body.data.map((entry: { id: string }) => entry.id);
    await waitFor(
      () => api.get('/availability-requests?page_size=100'),
      (r) =>
        r.body.data.some(
          (record: { networks_progress_percentage: string }) =>
            record.networks_progress_percentage !== '0.00',
        ),
      30_000,
    );

    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const restarted = await startTestServer({
      databasePath: database.path,
      env: { SOURCE_LATENCY_SCALE: '0.05', GATHERING_LEASE_SECONDS: '2' },
    });
    cleanups.push(() => restarted.close());
    const after = new ApiClient(restarted.app.url, signIn.body.data.auth_token);

    const records = await allCompleted(after, ids);

    expect(records.map((record) => [record.status, record.networks_progress_percentage])).toEqual(
      ids.map(() => ['completed', '100.00']),
    );
    await expectSameAsUninterrupted(after, records.slice(0, addresses.length));
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
