import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  contractExampleBatch,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';

interface Update {
  id: string;
  status: 'PENDING' | 'IN_PROGRESS' | 'COMPLETED';
  networksProgressPercentage: number;
}

const UPDATES = `subscription ($ids: [ID!]) {
  availabilityRequestUpdated(ids: $ids) { id status networksProgressPercentage }
}`;

const statusRank = { PENDING: 0, IN_PROGRESS: 1, COMPLETED: 2 } as const;
/** The demo catalogue has 7 sources at 1016XA: progress moves in sevenths, two decimals. */
const sevenths = Array.from({ length: 8 }, (_, k) => Math.round((k * 10_000) / 7) / 100);

/** A WebSocket class that sends extra headers with the upgrade request (ws accepts them as an option). */
function webSocketWithHeaders(headers: Record<string, string>) {
  return class extends WebSocket {
    constructor(address: string | URL, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  };
}

/** A subscription's received updates, its end (complete or the error/close event), and its close codes. */
interface Subscription {
  updates: Update[];
  closeCodes: number[];
  ended: Promise<unknown>;
  client: Client;
}

function subscribe(
  server: TestServer,
  options: { authToken?: string; headers?: Record<string, string>; ids?: string[] } = {},
): Subscription {
  const closeCodes: number[] = [];
  const client = createClient({
    url: `${server.app.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: options.headers ? webSocketWithHeaders(options.headers) : WebSocket,
    connectionParams: options.authToken ? { authToken: options.authToken } : {},
    retryAttempts: 0,
    on: { closed: (event) => void closeCodes.push((event as { code: number }).code) },
  });
  const updates: Update[] = [];
  const ended = new Promise<unknown>((resolve) => {
    client.subscribe<{ availabilityRequestUpdated: Update }>(
      { query: UPDATES, variables: { ids: options.ids ?? null } },
      {
        next: (result) => {
          if (result.data) updates.push(result.data.availabilityRequestUpdated);
          else updates.push({ id: 'error', status: 'PENDING', networksProgressPercentage: -1 });
        },
        error: resolve,
        complete: () => resolve('complete'),
      },
    );
  });
  return { updates, closeCodes, ended, client };
}

const tokenOf = (tenant: TestTenant) => tenant.api.token ?? '';
const listeners = (server: TestServer) => () =>
  Promise.resolve(server.app.services.events.target.listenerCount);

/** Closes the clients and waits until the server has released their listeners. */
async function closeAll(
  server: TestServer,
  baseline: number,
  ...subscriptions: Subscription[]
): Promise<void> {
  await Promise.all(subscriptions.map((subscription) => subscription.client.dispose()));
  await waitFor(listeners(server), (count) => count === baseline);
}

async function createRequest(tenant: TestTenant): Promise<string> {
  const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
  expect(created.status).toBe(201);
  return created.body.data[0].id;
}

const completed = (id: string) => (updates: Update[]) =>
  updates.some((update) => update.id === id && update.status === 'COMPLETED');

function expectProgressFlow(updates: Update[], id: string): void {
  const own = updates.filter((update) => update.id === id);
  expect(own.every((update) => sevenths.includes(update.networksProgressPercentage))).toBe(true);
  const keys = own.map((update) => statusRank[update.status] * 1000 + update.networksProgressPercentage);
  expect(keys).toEqual([...keys].sort((a, b) => a - b));
  expect(own.at(-1)).toEqual({ id, status: 'COMPLETED', networksProgressPercentage: 100 });
  expect(own.slice(0, -1).every((update) => update.status !== 'COMPLETED')).toBe(true);
}

describe('availabilityRequestUpdated over graphql-ws', () => {
  let server: TestServer;
  let tenantA: TestTenant;
  let tenantB: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '0.05' } });
    tenantA = await server.tenant();
    tenantB = await server.tenant();
  });
  afterAll(() => server.close());

  it('when a request is created, then the subscriber sees it progress in sevenths up to COMPLETED 100', async () => {
    const baseline = server.app.services.events.target.listenerCount;
    const subscription = subscribe(server, { authToken: tokenOf(tenantA) });
    await waitFor(listeners(server), (count) => count === baseline + 1);

    const id = await createRequest(tenantA);
    await waitFor(() => Promise.resolve(subscription.updates), completed(id));
    await closeAll(server, baseline, subscription);

    expect(subscription.updates[0]).toEqual({ id, status: 'PENDING', networksProgressPercentage: 0 });
    expect(subscription.updates.length).toBeGreaterThan(2);
    expectProgressFlow(subscription.updates, id);
  });

  it('when subscribing with the id of a completed request, then its current state comes first', async () => {
    const id = await createRequest(tenantA);
    await waitFor(
      () => tenantA.api.get(`/availability-requests/${id}`),
      (response) => response.body.data.status === 'completed',
    );

    const baseline = server.app.services.events.target.listenerCount;
    const subscription = subscribe(server, { authToken: tokenOf(tenantA), ids: [id] });
    await waitFor(
      () => Promise.resolve(subscription.updates),
      (updates) => updates.length > 0,
    );
    await closeAll(server, baseline, subscription);

    expect(subscription.updates[0]).toEqual({ id, status: 'COMPLETED', networksProgressPercentage: 100 });
  });

  it('when one document’s subscription was sent before, then the same text with its query operation named runs that query', async () => {
    const id = await createRequest(tenantA);
    const both = `subscription Watch { availabilityRequestUpdated(ids: ["${id}"]) { id } }
      query Read { availabilityRequest(id: "${id}") { id } }`;
    const client = createClient({
      url: `${server.app.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authToken: tokenOf(tenantA) },
      retryAttempts: 0,
    });
    const first = (operationName: string) =>
      new Promise<unknown>((resolve, reject) => {
        const stop = client.subscribe(
          { query: both, operationName },
          {
            next: (result) => {
              resolve(result);
              stop();
            },
            error: reject,
            complete: () => resolve('complete'),
          },
        );
      });

    const watched = await first('Watch');
    const again = await first('Watch');
    const read = await first('Read');
    await client.dispose();

    expect(watched).toEqual({ data: { availabilityRequestUpdated: { id } } });
    expect(again).toEqual(watched);
    expect(read).toEqual({ data: { availabilityRequest: { id } } });
  });

  it('when connection_init carries a bad token, then the socket closes with 4403', async () => {
    const subscription = subscribe(server, { authToken: 'not-a-token' });

    const ended = await subscription.ended;
    await subscription.client.dispose();

    expect((ended as { code: number }).code).toBe(4403);
    expect(subscription.closeCodes).toEqual([4403]);
    expect(subscription.updates).toEqual([]);
  });

  it('when connection_init carries no token and neither does the upgrade, then the socket closes with 4403', async () => {
    const subscription = subscribe(server);

    const ended = await subscription.ended;
    await subscription.client.dispose();

    expect((ended as { code: number }).code).toBe(4403);
  });

  it('when the token is in the upgrade’s X-Auth-Token header, then the subscription works', async () => {
    const baseline = server.app.services.events.target.listenerCount;
    const subscription = subscribe(server, { headers: { 'X-Auth-Token': tokenOf(tenantA) } });
    await waitFor(listeners(server), (count) => count === baseline + 1);

    const id = await createRequest(tenantA);
    await waitFor(() => Promise.resolve(subscription.updates), completed(id));
    await closeAll(server, baseline, subscription);

    expectProgressFlow(subscription.updates, id);
  });

  it('when instance A gathers, then instance B’s subscriber receives nothing', async () => {
    const baseline = server.app.services.events.target.listenerCount;
    const subscriberA = subscribe(server, { authToken: tokenOf(tenantA) });
    const subscriberB = subscribe(server, { authToken: tokenOf(tenantB) });
    await waitFor(listeners(server), (count) => count === baseline + 2);

    const idA = await createRequest(tenantA);
    await waitFor(() => Promise.resolve(subscriberA.updates), completed(idA));
    const seenByB = [...subscriberB.updates];
    // B's subscription was live all along: its own request reaches it.
    const idB = await createRequest(tenantB);
    await waitFor(() => Promise.resolve(subscriberB.updates), completed(idB));
    await closeAll(server, baseline, subscriberA, subscriberB);

    expect(seenByB).toEqual([]);
    expect(subscriberB.updates.every((update) => update.id === idB)).toBe(true);
    expect(subscriberA.updates.every((update) => update.id === idA)).toBe(true);
  });

  it('when more than ten subscribers follow one instance, then Node warns of no listener leak', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const baseline = server.app.services.events.target.listenerCount;
    // Distinct variables, so that each is a subscription of its own (identical ones share one listener).
    const subscriptions = Array.from({ length: 12 }, (_, index) =>
      subscribe(server, { authToken: tokenOf(tenantA), ids: [`avr_unknown${index}`] }),
    );
    try {
      await waitFor(listeners(server), (count) => count === baseline + 12);
      await closeAll(server, baseline, ...subscriptions);
    } finally {
      process.off('warning', onWarning);
    }

    // CountingEventTarget promises no listener cap; Node's EventTarget warns past 10 unless told otherwise.
    expect(warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });

  it('when 500 subscribers connect and are terminated abruptly, then their listeners are all released', async () => {
    const baseline = server.app.services.events.target.listenerCount;
    const url = `${server.app.url.replace(/^http/, 'ws')}/graphql`;
    const open = (index: number) =>
      new Promise<WebSocket>((resolve, reject) => {
        const socket = new WebSocket(url, 'graphql-transport-ws');
        socket.once('error', reject);
        socket.once('open', () =>
          socket.send(JSON.stringify({ type: 'connection_init', payload: { authToken: tokenOf(tenantA) } })),
        );
        socket.on('message', (raw) => {
          const message = JSON.parse(String(raw)) as { type: string };
          if (message.type !== 'connection_ack') return;
          socket.send(
            JSON.stringify({
              id: `s${index}`,
              type: 'subscribe',
              payload: { query: UPDATES, variables: { ids: [`avr_unknown${index}`] } },
            }),
          );
          resolve(socket);
        });
      });
    const sockets: WebSocket[] = [];
    try {
      for (let batch = 0; batch < 10; batch += 1) {
        const indexes = Array.from({ length: 50 }, (_, offset) => batch * 50 + offset);
        sockets.push(...(await Promise.all(indexes.map(open))));
      }
      await waitFor(listeners(server), (count) => count === baseline + 500);
    } finally {
      for (const socket of sockets) socket.terminate();
    }

    expect(sockets).toHaveLength(500);
    await waitFor(listeners(server), (count) => count === baseline);
  });
});

describe('graphql-ws when the server stops', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '0.05' } });
  });
  afterAll(() => server.close());

  it('when app.stop() runs with open subscriptions, then every socket closes with 1001', async () => {
    const tenant = await server.tenant();
    const baseline = server.app.services.events.target.listenerCount;
    const subscriptions = Array.from({ length: 5 }, (_, index) =>
      subscribe(server, { authToken: tokenOf(tenant), ids: [`avr_unknown${index}`] }),
    );
    await waitFor(listeners(server), (count) => count === baseline + 5);

    await server.app.stop();
    const ends = await Promise.all(subscriptions.map((subscription) => subscription.ended));
    await Promise.all(subscriptions.map((subscription) => subscription.client.dispose()));

    expect(ends.map((end) => (end as { code: number }).code)).toEqual([1001, 1001, 1001, 1001, 1001]);
    expect(subscriptions.map((subscription) => subscription.closeCodes)).toEqual(Array(5).fill([1001]));
    expect(server.app.services.events.target.listenerCount).toBe(baseline);
  });
});

describe('identical graphql-ws subscriptions share one execution', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    // The worker starts only once the first test's subscribers have their snapshot.
    server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '1' }, startWorker: false });
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  it('when 20 clients send the same subscription, then one listener serves them and each sees every state in order', async () => {
    const baseline = server.app.services.events.target.listenerCount;
    const id = await createRequest(tenant);
    const subscriptions = Array.from({ length: 20 }, () =>
      subscribe(server, { authToken: tokenOf(tenant), ids: [id] }),
    );
    const snapshotsSent = () =>
      Promise.resolve(subscriptions.every((subscription) => subscription.updates.length === 1));
    await waitFor(snapshotsSent, (sent) => sent);
    const shared = {
      listeners: server.app.services.events.target.listenerCount - baseline,
      groups: server.app.subscriptions?.groupCount,
      subscribers: server.app.subscriptions?.subscriberCount,
    };

    server.app.worker.start();
    for (const subscription of subscriptions) {
      await waitFor(() => Promise.resolve(subscription.updates), completed(id));
    }
    await closeAll(server, baseline, ...subscriptions);

    expect(shared).toEqual({ listeners: 1, groups: 1, subscribers: 20 });
    const first = subscriptions[0]?.updates ?? [];
    expect(first[0]).toEqual({ id, status: 'PENDING', networksProgressPercentage: 0 });
    expect(first.length).toBeGreaterThan(2);
    expectProgressFlow(first, id);
    for (const subscription of subscriptions) expect(subscription.updates).toEqual(first);
    expect(server.app.subscriptions?.groupCount).toBe(0);
  });

  it('when a client joins a shared subscription midway, then it gets the current state first and never an older one', async () => {
    // The worker runs since the previous test; each source answers in 50–400 ms.
    const baseline = server.app.services.events.target.listenerCount;
    const id = await createRequest(tenant);
    const early = subscribe(server, { authToken: tokenOf(tenant), ids: [id] });
    await waitFor(
      () => Promise.resolve(early.updates),
      (updates) => updates.some((update) => update.status !== 'PENDING'),
    );
    const late = subscribe(server, { authToken: tokenOf(tenant), ids: [id] });
    await waitFor(() => Promise.resolve(late.updates), completed(id));
    await waitFor(() => Promise.resolve(early.updates), completed(id));
    await closeAll(server, baseline, early, late);

    expectProgressFlow(early.updates, id);
    expectProgressFlow(late.updates, id);
    // The late client's snapshot is a state the early client also got; from there on both saw the same.
    expect(early.updates.slice(-late.updates.length)).toEqual(late.updates);
  });
});
