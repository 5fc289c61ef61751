import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createInstance } from '../../src/resolvers/operator.js';
import { createServices } from '../../src/server/services.js';
import { contractExampleBatch, testConfig, waitFor } from '../helpers/app.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { startTestNginx, type TestNginx } from '../helpers/nginx-server.js';
import { createTestDatabase, startThrowawayPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { graphqlWsSubscriber, metric, UPDATES, type Update } from './cluster.js';
import { everyState, mercureEventSource } from './request-updates.js';

/*
 * Issue 17 as operators run it: PostgreSQL, Redis, two API-only gateway processes (`GATHERING_WORKER=off`),
 * one worker process (`npm run worker`) and Debian's nginx with the repository's configuration in front of
 * the two API processes. Every client here talks to nginx only; which instance served what is read from
 * nginx's access log (`$upstream_addr`) and from each instance's /metrics.
 *
 * The worker runs one task at a time (GATHERING_CONCURRENCY=1), so every request goes through exactly the
 * same states — created (pending, 0 of 7 sources), claimed (in progress, 0 of 7), then one state per source —
 * and the counts below are exact. Its idle poll is ten minutes: it gathers because the creates on the API
 * processes woke it through Redis.
 *
 * These tests bring their own PostgreSQL cluster whatever the vitest project, so they run in the `sqlite`
 * project only.
 */

const onlyInSqliteProject = process.env.TEST_DATABASE === 'postgres';

describe.skipIf(onlyInSqliteProject)('scale-out: two API processes and a worker process behind nginx', () => {
  let postgres: TestPostgres | undefined;
  let redis: TestRedis | undefined;
  let apiA: GatewayProcess | undefined;
  let apiB: GatewayProcess | undefined;
  let worker: GatewayProcess | undefined;
  let nginx: TestNginx;
  let instanceId: string;
  let token: string;
  const opened: { close(): unknown }[] = [];

  beforeAll(async () => {
    // Each server and process is kept as soon as it runs, so that afterAll stops it even when another
    // failed to start.
    const servers = await Promise.allSettled([
      startThrowawayPostgres().then((server) => {
        postgres = server;
      }),
      startTestRedis().then((server) => {
        redis = server;
      }),
    ]);
    for (const result of servers) if (result.status === 'rejected') throw result.reason;
    if (!postgres || !redis) throw new Error('unreachable: both servers started');
    const database = await createTestDatabase(postgres.adminUrl);
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      SOURCE_LATENCY_SCALE: '0.02',
      DATABASE_POOL_SIZE: '4',
    };
    // The instance and its credentials are created while the processes start, through the resolvers the
    // operator CLI runs (in this process: a CLI process more would cost seconds of start-up). Whichever comes
    // first migrates the empty database; the others wait for it on PostgreSQL's advisory lock.
    const credentials = (async () => {
      const services = await createServices(testConfig(database.url));
      try {
        const { instance } = await createInstance(services, {
          name: 'Scale-out Telecom',
          code: 'SCL',
          demoCatalog: true,
        });
        const application = await createApplication(services, {
          instance: instance.id,
          roles: ['connectivity_check'],
        });
        return application;
      } finally {
        await services.db.close();
      }
    })();
    const readyTimeoutMs = 45_000;
    const started = await Promise.allSettled([
      startGatewayProcess({ env: { ...env, GATHERING_WORKER: 'off' }, readyTimeoutMs }).then((p) => {
        apiA = p;
      }),
      startGatewayProcess({ env: { ...env, GATHERING_WORKER: 'off' }, readyTimeoutMs }).then((p) => {
        apiB = p;
      }),
      startGatewayProcess({
        role: 'worker',
        env: { ...env, GATHERING_CONCURRENCY: '1', GATHERING_IDLE_POLL_MS: '600000' },
        readyTimeoutMs,
      }).then((p) => {
        worker = p;
      }),
      credentials,
    ]);
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    if (!apiA || !apiB) throw new Error('unreachable: both API processes started');
    nginx = await startTestNginx({ upstreamPorts: [apiA.port, apiB.port] });
    const { clientId, clientSecret, ...created } = await credentials;
    instanceId = created.instanceId;
    const signIn = await fetch(`${nginx.url}/authentication`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: clientId, client_secret: clientSecret }),
    });
    expect(signIn.status).toBe(200);
    token = (await signIn.json()).data.auth_token;
  }, 90_000);

  afterAll(async () => {
    for (const client of opened) await client.close();
    await nginx?.stop();
    await Promise.all([apiA?.stop(), apiB?.stop(), worker?.stop()]);
    await redis?.stop();
    // The cluster goes whole (immediate stop, folder removed): no need to drop the database first.
    await postgres?.stop();
  });

  const upstreamOf = (process: GatewayProcess | undefined) => `127.0.0.1:${process?.port}`;
  const bothInstances = () => [upstreamOf(apiA), upstreamOf(apiB)].sort();
  /** The upstreams nginx sent matching requests to, each once, sorted. */
  const upstreamsFor = (method: string, path: string, status: number) =>
    [
      ...new Set(
        nginx
          .accessLog()
          .filter((line) => line.method === method && line.path === path && line.status === status)
          .map((line) => line.upstream),
      ),
    ].sort();

  async function createRequest(): Promise<string> {
    const response = await fetch(`${nginx.url}/availability-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': token },
      body: JSON.stringify([contractExampleBatch[0]]),
    });
    expect(response.status).toBe(201);
    return (await response.json()).data[0].id;
  }

  /** A graphql-ws subscriber through nginx, closed after the file. */
  function subscribe() {
    const subscriber = graphqlWsSubscriber(nginx.url, token);
    opened.push(subscriber);
    return subscriber;
  }

  /** An EventSource through nginx on the instance's Mercure topic, authorised by the list's `sse_jwt`. */
  async function mercureSubscriber() {
    const list = await fetch(`${nginx.url}/availability-requests`, { headers: { 'x-auth-token': token } });
    expect(list.status).toBe(200);
    const { sse_jwt } = await list.json();
    const subscriber = mercureEventSource(nginx.url, instanceId, sse_jwt);
    opened.push(subscriber);
    return subscriber;
  }

  it('when /readyz is asked through nginx, then an API instance answers that it is ready without a worker', async () => {
    const response = await fetch(`${nginx.url}/readyz`);
    expect([response.status, await response.json()]).toEqual([
      200,
      { status: 'ready', database: true, redis: true, worker: false },
    ]);
    const direct = await fetch(`${worker?.url}/readyz`);
    expect([direct.status, await direct.json()]).toEqual([
      200,
      { status: 'ready', database: true, redis: true, worker: true },
    ]);
  });

  it('when requests are created through nginx on both instances, then graphql-ws and Mercure subscribers on both receive every state of each, once, in order', async () => {
    // Opened one after another: least_conn puts the second of each kind on the instance without one.
    const sockets = [subscribe()];
    await waitFor(() => Promise.resolve(sockets[0]?.connected()), Boolean);
    sockets.push(subscribe());
    await waitFor(() => Promise.resolve(sockets[1]?.connected()), Boolean);
    const streams = [await mercureSubscriber()];
    await waitFor(() => Promise.resolve(streams[0]?.isOpen()), Boolean);
    streams.push(await mercureSubscriber());
    await waitFor(() => Promise.resolve(streams[1]?.isOpen()), Boolean);
    // A subscription is on the bus once its instance counts it (the acknowledgement comes before). Should
    // nginx place them otherwise, the failure shows what it had sent where (open streams are not logged yet).
    await waitFor(
      async () => ({
        counts: await Promise.all([apiA, apiB].map((api) => openSubscriptions(api))),
        instances: [upstreamOf(apiA), upstreamOf(apiB)],
        sent: nginx.accessLog().map((line) => `${line.method} ${line.path} ${line.status} ${line.upstream}`),
      }),
      ({ counts }) => counts.every((count) => count === 2),
    );

    const ids: string[] = [];
    for (let i = 0; i < 4; i += 1) ids.push(await createRequest());
    const finished = (updates: { id: string; status: string }[]) =>
      ids.every((id) =>
        updates.some((update) => update.id === id && update.status.toUpperCase() === 'COMPLETED'),
      );
    await waitFor(
      () => Promise.resolve([...sockets.map((s) => s.updates), ...streams.map((s) => s.events)]),
      (all) => all.every(finished),
    );

    // The creates went to both API instances, the subscribers sit on both, and only the worker gathered.
    expect(upstreamsFor('POST', '/availability-requests', 201)).toEqual(bothInstances());
    for (const socket of sockets) socket.close();
    for (const stream of streams) stream.close();
    await waitFor(
      () =>
        Promise.resolve([
          upstreamsFor('GET', '/graphql', 101),
          upstreamsFor('GET', '/.well-known/mercure', 200),
        ]),
      ([webSockets, eventStreams]) => webSockets?.length === 2 && eventStreams?.length === 2,
    );
    expect(upstreamsFor('GET', '/graphql', 101)).toEqual(bothInstances());
    expect(upstreamsFor('GET', '/.well-known/mercure', 200)).toEqual(bothInstances());
    // A task is counted just after its completion is told, so wait for the count rather than race it.
    expect(
      await waitFor(
        () => succeededTasks(worker),
        (count) => count >= 4 * 7,
      ),
    ).toBe(4 * 7);
    expect(await succeededTasks(apiA)).toBe(0);
    expect(await succeededTasks(apiB)).toBe(0);

    const ofRequest = <T extends { id: string }>(received: T[], id: string) =>
      received.filter((event) => event.id === id);
    for (const socket of sockets) {
      expect(socket.updates).toHaveLength(ids.length * everyState.length);
      for (const id of ids) {
        expect(ofRequest(socket.updates, id)).toEqual(everyState.map((state) => ({ id, ...state })));
      }
    }
    for (const stream of streams) {
      expect(stream.events).toHaveLength(ids.length * everyState.length);
      expect(new Set(stream.events.map(({ eventId }) => eventId)).size).toBe(stream.events.length);
      for (const id of ids) {
        expect(ofRequest(stream.events, id).map(({ status, progress }) => ({ status, progress }))).toEqual(
          everyState.map(({ status, networksProgressPercentage }) => ({
            status: status.toLowerCase(),
            progress: networksProgressPercentage.toFixed(2),
          })),
        );
      }
    }
  });

  it('when a GraphQL SSE subscription runs through nginx, then each event arrives while the response is still open', async () => {
    // Mercure streams of the instance stay on the bus after their last client (for the replay history).
    const totalSubscriptions = async () =>
      (await Promise.all([apiA, apiB].map((api) => openSubscriptions(api)))).reduce((a, b) => a + b, 0);
    const baseline = await totalSubscriptions();
    const controller = new AbortController();
    const response = await fetch(`${nginx.url}/graphql`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'x-auth-token': token },
      body: JSON.stringify({ query: UPDATES, variables: { ids: null } }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    /** Reads the stream until `count` `next` events have arrived; the response has not ended by then. */
    const nextEvents = async (count: number): Promise<Update[]> => {
      for (;;) {
        const events = text
          .split('\n\n')
          .filter((block) => block.split('\n').includes('event: next'))
          .map((block) => {
            const data = block
              .split('\n')
              .filter((line) => line.startsWith('data:'))
              .map((line) => line.slice(5).trim())
              .join('\n');
            return JSON.parse(data).data.availabilityRequestUpdated as Update;
          });
        if (events.length >= count) return events;
        const { done, value } = await reader.read();
        if (done) throw new Error(`the stream ended after ${events.length} events:\n${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    try {
      await waitFor(totalSubscriptions, (count) => count === baseline + 1);
      const id = await createRequest();
      // The request's first state, read from the open response: nginx passes each event on as it comes (the
      // next state may come in the same read when the worker is quick, so only the first is looked at).
      expect((await nextEvents(1))[0]).toEqual({ id, ...everyState[0] });
      expect(await nextEvents(everyState.length)).toEqual(everyState.map((state) => ({ id, ...state })));
    } finally {
      controller.abort();
      await reader.cancel().catch(() => undefined);
    }
  });

  it('when a create sent through nginx is replayed with its Idempotency-Key on the other instance and through nginx, then both replays answer the first answer and nothing more is created', async () => {
    const send = (base: string) =>
      fetch(`${base}/availability-requests`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-auth-token': token,
          'idempotency-key': 'behind-nginx-replay',
        },
        body: JSON.stringify([contractExampleBatch[0]]),
      });
    const total = async () =>
      (
        await (
          await fetch(`${nginx.url}/availability-requests?page_size=1`, {
            headers: { 'x-auth-token': token },
          })
        ).json()
      ).pagination.total_items;
    const before = await total();
    const first = await send(nginx.url);
    const firstBody = await first.text();
    // nginx logs a request when its response ends: the last POST logged is this one.
    const servedBy = await waitFor(
      async () =>
        nginx
          .accessLog()
          .filter((line) => line.method === 'POST' && line.path === '/availability-requests')
          .at(-1)?.upstream,
      (upstream) => upstream === upstreamOf(apiA) || upstream === upstreamOf(apiB),
    );
    const other = servedBy === upstreamOf(apiA) ? apiB : apiA;
    const onOther = await send(`http://127.0.0.1:${other?.port}`);
    const throughNginx = await send(nginx.url);

    expect(first.status).toBe(201);
    for (const replay of [onOther, throughNginx]) {
      expect([replay.status, replay.headers.get('idempotent-replayed'), await replay.text()]).toEqual([
        201,
        'true',
        firstBody,
      ]);
    }
    expect(await total()).toBe(before + 1);
  });

  it('when an API instance is killed, then GETs through nginx go to the other one, none fails, and the dead one is left out after max_fails', async () => {
    const maxFails = Number(/max_fails=(\d+)/.exec(nginx.config)?.[1]);
    expect(maxFails).toBe(3);
    await apiA?.kill('SIGKILL');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const response = await fetch(`${nginx.url}/availability-requests?page_size=1`, {
        headers: { 'x-auth-token': token },
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual(Array(10).fill(200));
    const served = nginx
      .accessLog()
      .filter((line) => line.method === 'GET' && line.path === '/availability-requests')
      .slice(-10)
      .map((line) => line.upstream);
    // A request that met A's refused connection went on to B within itself (`proxy_next_upstream error`);
    // after max_fails of those, A is out for fail_timeout and B alone is asked.
    const retried = `${upstreamOf(apiA)}, ${upstreamOf(apiB)}`;
    expect(served.filter((upstream) => upstream === retried)).toHaveLength(maxFails);
    expect(served.filter((upstream) => upstream !== retried)).toEqual(
      Array(10 - maxFails).fill(upstreamOf(apiB)),
    );
    expect(served.slice(-3)).toEqual(Array(3).fill(upstreamOf(apiB)));
  });
});

/** The process itself; the cluster's processes are all there once `beforeAll` ran. */
const present = (process: GatewayProcess | undefined): GatewayProcess => {
  if (!process) throw new Error('no such gateway process in the cluster');
  return process;
};
const openSubscriptions = (process: GatewayProcess | undefined) =>
  metric(present(process), 'open_subscriptions');
const succeededTasks = (process: GatewayProcess | undefined) =>
  metric(present(process), 'gathering_tasks_total', 'outcome="succeeded"');
