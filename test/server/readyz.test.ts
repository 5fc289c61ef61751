import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { closeConnection } from '../helpers/store.js';

const servers: TestServer[] = [];

/** The probe answers plain JSON (not problem+json) either way, so it is read with fetch. */
async function readyz(server: TestServer) {
  const response = await fetch(`${server.app.url}/readyz`);
  return { status: response.status, body: await response.json() };
}

async function start(options: { startWorker?: boolean } = {}): Promise<TestServer> {
  const server = await startTestServer(options);
  servers.push(server);
  return server;
}

afterEach(async () => {
  vi.restoreAllMocks();
  for (const server of servers.splice(0)) await server.close();
});

describe('GET /readyz', () => {
  it('when the database answers and the worker runs, then it is 200 ready', async () => {
    const server = await start();

    const ready = await readyz(server);

    expect([ready.status, ready.body]).toEqual([
      200,
      { status: 'ready', database: true, redis: null, worker: true },
    ]);
  });

  it('when the worker has not been started, then it is 503 until it is', async () => {
    const server = await start({ startWorker: false });

    const before = await readyz(server);
    server.app.worker.start();
    const after = await readyz(server);

    expect([before.status, before.body]).toEqual([
      503,
      { status: 'not_ready', database: true, redis: null, worker: false },
    ]);
    expect([after.status, after.body]).toEqual([
      200,
      { status: 'ready', database: true, redis: null, worker: true },
    ]);
  });

  it('when the worker has stopped, then it is 503 with worker false', async () => {
    const server = await start();

    await server.app.worker.stop();
    const ready = await readyz(server);

    expect([ready.status, ready.body]).toEqual([
      503,
      { status: 'not_ready', database: true, redis: null, worker: false },
    ]);
  });

  it('when the database connection is gone, then it stays 200 ready with database false, and store_up is 0', async () => {
    const server = await start();
    const storeUp = async () =>
      (await (await fetch(`${server.app.url}/metrics`)).text())
        .split('\n')
        .filter((line) => line.startsWith('store_up') || line.startsWith('redis_up'));
    const before = await storeUp();
    await closeConnection(server.app.services.db);

    const ready = await readyz(server);
    const health = await fetch(`${server.app.url}/healthz`);

    // An outage of a server every instance shares must not empty the balancer (issue 48).
    expect([ready.status, ready.body]).toEqual([
      200,
      { status: 'ready', database: false, redis: null, worker: true },
    ]);
    expect(health.status).toBe(200);
    expect(before).toEqual(['store_up 1']);
    expect(await storeUp()).toEqual(['store_up 0']);
  });

  it('when the app begins to stop, then it is not ready from that moment on', async () => {
    const server = await start();
    expect((await server.app.readiness()).status).toBe('ready');

    const stopping = server.app.stop();
    const during = server.app.readiness();
    await stopping;

    expect((await during).status).toBe('not_ready');
    expect(await server.app.readiness()).toEqual({
      status: 'not_ready',
      database: false,
      redis: null,
      worker: false,
    });
  });
});
