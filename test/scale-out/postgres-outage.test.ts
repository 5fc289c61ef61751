import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type GatewayExit, type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { createTestDatabase, startThrowawayPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { waitFor } from '../helpers/wait.js';
import { metric } from './cluster.js';
import { queryOnce, storeUnavailableProblem } from './outage.js';

/*
 * Issue 48: a gateway process on a PostgreSQL cluster of its own, which is stopped in `immediate` mode (as a
 * crash, a failover or an OOM kill looks to a client) while the worker gathers, and started again 3 s later.
 * The process stays up throughout: requests get 503 problem+json with `Retry-After: 5` meanwhile, the probes
 * say what is down without taking the instance out, and once the server is back every request completes with
 * no task failed for the outage and nothing stored twice.
 *
 * Catalogue sources answer in 0.5 × their declared latency (100 ms – 1.25 s), so that gathering is under way
 * when the server stops. These tests bring their own cluster, so they run in the `sqlite` project only.
 */

const onlyInSqliteProject = process.env.TEST_DATABASE === 'postgres';

/** Twenty addresses over the NL demo catalogue's areas: 20 requests, their sources in parallel. */
const addresses = Array.from({ length: 20 }, (_, index) => ({
  address: {
    country_code: 'NL',
    postal_code: ['1016XA', '1017AB', '3011AA', '3511AB', '5611AA'][index % 5],
    house_number: String(index + 1),
  },
}));

describe.skipIf(onlyInSqliteProject)('a PostgreSQL restart under a gathering gateway (issue 48)', () => {
  let postgres: TestPostgres;
  let database: { url: string; drop(): Promise<void> };
  let gateway: GatewayProcess;
  let token: string;
  /** A token signed in but never used: no instance knows its viewer, so a connection with it asks the store. */
  let unusedToken: string;
  let exited: GatewayExit | null = null;

  beforeAll(async () => {
    postgres = await startThrowawayPostgres({ durable: true });
    database = await createTestDatabase(postgres.adminUrl);
    gateway = await startGatewayProcess({
      env: {
        DATABASE_URL: database.url,
        DATABASE_POOL_SIZE: '4',
        SEED_DEMO: 'true',
        SOURCE_LATENCY_SCALE: '0.5',
        GATHERING_CONCURRENCY: '8',
      },
      readyTimeoutMs: 60_000,
    });
    void gateway.exited.then((exit) => {
      exited = exit;
    });
    const printed = await waitFor(
      () => Promise.resolve(/client_id: +(\S+)\n +client_secret: +(\S+)\n/.exec(gateway.output())),
      (match) => match !== null,
      15_000,
    );
    const signIn = async () => {
      const response = await fetch(`${gateway.url}/authentication`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: printed?.[1], client_secret: printed?.[2] }),
      });
      return (await response.json()).data.auth_token as string;
    };
    token = await signIn();
    unusedToken = await signIn();
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await postgres?.restart?.().catch(() => undefined);
    await database?.drop().catch(() => undefined);
    await postgres?.stop();
  });

  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'x-auth-token': token, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('when PostgreSQL stops in immediate mode during gathering and starts again 3 s later, then the process stays up, answers 503 with Retry-After meanwhile, and every request completes once with no task failed', async () => {
    const created = await call('POST', '/availability-requests', addresses);
    expect(created.status).toBe(201);
    const ids: string[] = (await created.json()).data.map((entry: { id: string }) => entry.id);
    // Gathering under way: some sources answered, others not yet.
    const succeeded = async () =>
      (
        await queryOnce<{ n: number }>(
          database.url,
          "SELECT count(*)::int AS n FROM gathering_tasks WHERE status = 'succeeded'",
        )
      )[0]?.n ?? 0;
    await waitFor(succeeded, (count) => count > 0, 20_000);

    await postgres.crash?.();
    const list = await call('GET', '/availability-requests');
    const write = await call('POST', '/customers', { name: 'Outage BV' }, { 'idempotency-key': 'outage-1' });
    const health = await fetch(`${gateway.url}/healthz`);
    const ready = await fetch(`${gateway.url}/readyz`);
    const storeUp = await metric(gateway, 'store_up');
    const webSocketClose = await graphqlWsClose(gateway.url, unusedToken);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await postgres.restart?.();

    expect([list.status, list.headers.get('retry-after'), await list.json()]).toEqual([
      503,
      '5',
      storeUnavailableProblem,
    ]);
    expect(list.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect([write.status, write.headers.get('retry-after'), await write.json()]).toEqual([
      503,
      '5',
      storeUnavailableProblem,
    ]);
    expect(health.status).toBe(200);
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { status: 'ready', database: false, redis: null, worker: true },
    ]);
    expect(storeUp).toBe(0);
    // A graphql-ws client is told to try again later (1013), which it does, not that its token is refused.
    expect(webSocketClose).toEqual({ code: 1013, reason: 'The database is unavailable; try again later.' });

    // Back: reads answer again, and the key of the write that could not commit is free.
    const listed = await waitFor(
      () => call('GET', '/availability-requests?page_size=1').then((response) => response.status),
      (status) => status === 200,
      30_000,
    );
    expect(listed).toBe(200);
    const retried = await waitFor(
      () =>
        call('POST', '/customers', { name: 'Outage BV' }, { 'idempotency-key': 'outage-1' }).then(
          (response) => response.status,
        ),
      (status) => status !== 409 && status !== 503,
      30_000,
    );
    expect(retried).toBe(201);
    expect(await metric(gateway, 'store_up')).toBe(1);

    const statuses = await waitFor(
      () =>
        Promise.all(
          ids.map(
            // A 503 while the pool reconnects has no `data`: undefined, and asked again.
            async (id) => (await (await call('GET', `/availability-requests/${id}`)).json()).data?.status,
          ),
        ),
      (all) => all.every((status) => status === 'completed'),
      60_000,
    );
    expect(statuses).toEqual(ids.map(() => 'completed'));
    const tasks = await queryOnce<{ status: string; error_code: string | null; n: number }>(
      database.url,
      'SELECT status, error_code, count(*)::int AS n FROM gathering_tasks GROUP BY 1, 2 ORDER BY 1, 2',
    );
    // A completion stores its task's products with one time: two times under one task is a task stored twice.
    const storedTwice = await queryOnce<{ n: number }>(
      database.url,
      `SELECT count(*)::int AS n FROM (
         SELECT gathering_task_id FROM availability_request_products
          GROUP BY gathering_task_id HAVING count(DISTINCT created_at) > 1) twice`,
    );
    // None failed for the outage, none was booked as a supplier's error.
    expect(tasks.filter((row) => row.status !== 'succeeded' || row.error_code !== null)).toEqual([]);
    expect(storedTwice[0]?.n).toBe(0);
    expect(exited).toBeNull();
  }, 180_000);
});

/** Opens a graphql-ws connection at `base` with `authToken` and resolves with how the server closed it. */
function graphqlWsClose(base: string, authToken: string): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authToken } })));
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    socket.on('error', reject);
  });
}
