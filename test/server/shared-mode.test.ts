import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  contractExampleBatch,
  startTestServer,
  type TestServer,
  type TestTenant,
  tempDatabasePath,
  waitFor,
} from '../helpers/app.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { type Update as BaseUpdate, graphqlWsSubscriber } from '../helpers/updates-subscriber.js';

/*
 * Issue 17's shared mode, with real Redis and one real database: two API-only instances
 * (`GATHERING_WORKER=off`) and one worker-only instance (`npm run worker`'s role), in one test process.
 * The worker's idle poll is ten minutes, so a request it gathers was woken through Redis.
 */

/** The shared updates with the request's creation time, which every state of one request repeats. */
interface Update extends BaseUpdate {
  createdAt: string;
}

const UPDATES = `subscription ($ids: [ID!]) {
  availabilityRequestUpdated(ids: $ids) { id status networksProgressPercentage createdAt }
}`;
const statusRank = { PENDING: 0, IN_PROGRESS: 1, COMPLETED: 2 } as const;

describe('shared mode: API-only instances and a worker instance on one Redis', () => {
  let redis: TestRedis;
  let database: { path: string; remove(): void };
  let apiA: TestServer;
  let apiB: TestServer;
  let worker: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    redis = await startTestRedis();
    database = tempDatabasePath();
    const env = { REDIS_URL: redis.url, SOURCE_LATENCY_SCALE: '0.05' };
    apiA = await startTestServer({ databasePath: database.path, env: { ...env, GATHERING_WORKER: 'off' } });
    apiB = await startTestServer({ databasePath: database.path, env: { ...env, GATHERING_WORKER: 'off' } });
    worker = await startTestServer({
      databasePath: database.path,
      role: 'worker',
      env: { ...env, GATHERING_IDLE_POLL_MS: '600000' },
    });
    tenant = await apiA.tenant();
  });
  afterAll(async () => {
    await apiA?.close();
    await apiB?.close();
    await worker?.close();
    database?.remove();
    await redis?.stop();
  });

  it('when a request is created on B and gathered by the worker, then a subscriber on A sees each of its states once, in order', async () => {
    const baseline = apiA.app.services.events.target.listenerCount;
    const subscription = graphqlWsSubscriber<Update>(apiA.app.url, tenant.api.token ?? '', UPDATES);
    await waitFor(
      () => Promise.resolve(apiA.app.services.events.target.listenerCount),
      (count) => count === baseline + 1,
    );

    const onB = new ApiClient(apiB.app.url).withToken(tenant.api.token ?? '');
    const created = await onB.post('/availability-requests', [contractExampleBatch[0]]);
    expect(created.status).toBe(201);
    const id: string = created.body.data[0].id;
    await waitFor(
      () => Promise.resolve(subscription.updates),
      (updates) => updates.some((update) => update.id === id && update.status === 'COMPLETED'),
    );
    await subscription.close();

    const own = subscription.updates.filter((update) => update.id === id);
    const createdAt = own[0]?.createdAt;
    expect(own[0]).toEqual({ id, status: 'PENDING', networksProgressPercentage: 0, createdAt });
    expect(createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const keys = own.map((update) => statusRank[update.status] * 1000 + update.networksProgressPercentage);
    // Strictly increasing: every state once, none out of order.
    expect(keys).toEqual([...new Set(keys)].sort((a, b) => a - b));
    expect(own.at(-1)).toMatchObject({ status: 'COMPLETED', networksProgressPercentage: 100 });
    expect(own.every((update) => update.createdAt === createdAt)).toBe(true);

    const stored = await tenant.api.get(`/availability-requests/${id}`);
    expect(stored.body.data.status).toBe('completed');
    expect(stored.body.data.sources.map((source: { status: string }) => source.status)).toEqual(
      Array(stored.body.data.sources.length).fill('succeeded'),
    );
  });

  it('when a create is replayed with its idempotency key on another instance, then the first answer comes back and nothing more is created', async () => {
    const onB = new ApiClient(apiB.app.url).withToken(tenant.api.token ?? '');
    const headers = { 'idempotency-key': 'shared-mode-replay-1' };
    const body = [contractExampleBatch[0]];
    const total = async () =>
      (await onB.get('/availability-requests?page_size=1')).body.pagination.total_items;
    const before = await total();
    const first = await tenant.api.request('POST', '/availability-requests', { body, headers });
    const replay = await onB.request('POST', '/availability-requests', { body, headers });

    expect(first.status).toBe(201);
    expect([replay.status, replay.body]).toEqual([201, first.body]);
    expect(await total()).toBe(before + 1);
  });

  it('when the worker instance is asked for anything but its probes, then it answers 404; its probes and an API-only instance’s report their worker', async () => {
    const graphql = await fetch(`${worker.app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(graphql.status).toBe(404);
    expect((await graphql.json()).type).toBe('urn:connectivity-gateway:problem:not-found');
    const rest = await fetch(`${worker.app.url}/availability-requests`);
    expect(rest.status).toBe(404);

    const workerReady = await fetch(`${worker.app.url}/readyz`);
    expect([workerReady.status, await workerReady.json()]).toEqual([
      200,
      { status: 'ready', database: true, redis: true, worker: true },
    ]);
    const apiReady = await fetch(`${apiA.app.url}/readyz`);
    expect([apiReady.status, await apiReady.json()]).toEqual([
      200,
      { status: 'ready', database: true, redis: true, worker: false },
    ]);
  });
});
