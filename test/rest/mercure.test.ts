import { connect } from 'node:net';
import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contractExampleBatch,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';
import { hubUrl, type MercureEvent, openStream, sseJwtOf, topicOf } from './mercure-fixtures.js';

/*
 * How the hub delivers: events as list records, replay by Last-Event-ID, keep-alive on an idle stream, one
 * instance's events kept from another, and no connection left behind.
 */

const statusRank: Record<string, number> = { pending: 0, in_progress: 1, completed: 2 };
/** The demo catalogue has 7 sources at 1016XA: progress moves in sevenths, as two-decimal strings. */
const sevenths = Array.from({ length: 8 }, (_, k) => (Math.round((k * 10_000) / 7) / 100).toFixed(2));

async function createRequest(tenant: TestTenant): Promise<string> {
  const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
  expect(created.status).toBe(201);
  return created.body.data[0].id;
}

/** An `EventSource` whose requests go through `fetch` with extra headers (Bearer token, cookie). */
async function openEventSource(url: string, headers: Record<string, string> = {}) {
  const events: MercureEvent[] = [];
  const source = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...headers } }),
  });
  source.onmessage = (message) =>
    void events.push({ id: message.lastEventId, data: JSON.parse(message.data) });
  await new Promise((resolve, reject) => {
    source.onopen = resolve;
    source.onerror = reject;
  });
  return { events, close: () => source.close() };
}

const isCompleted = (id: string) => (events: MercureEvent[]) =>
  events.some((event) => event.data.id === id && event.data.status === 'completed');

describe('Mercure event stream', () => {
  let server: TestServer;
  let tenantA: TestTenant;
  let tenantB: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({
      env: { SOURCE_LATENCY_SCALE: '0.05', MERCURE_KEEPALIVE_SECONDS: '0.1' },
    });
    tenantA = await server.tenant();
    tenantB = await server.tenant();
  });
  afterAll(() => server.close());

  const connections = () => Promise.resolve(server.app.mercure.connectionCount);

  it.each([
    ['the authorization query parameter', (jwt: string) => ({ query: { authorization: jwt }, headers: {} })],
    ['a Bearer header', (jwt: string) => ({ query: {}, headers: { authorization: `Bearer ${jwt}` } })],
    [
      'the mercureAuthorization cookie',
      (jwt: string) => ({ query: {}, headers: { cookie: `mercureAuthorization=${jwt}` } }),
    ],
  ])(
    'when the sse_jwt comes as %s, then each event is a list record, with distinct ids, progressing to 100.00',
    async (_how, place) => {
      const tenant = await server.tenant();
      const auth = place(await sseJwtOf(tenant));
      const source = await openEventSource(
        hubUrl(server, { topic: topicOf(tenant), ...auth.query }),
        auth.headers,
      );

      const id = await createRequest(tenant);
      await waitFor(() => Promise.resolve(source.events), isCompleted(id));
      source.close();
      const list = await tenant.api.get('/availability-requests');

      const record = list.body.data[0];
      expect(record.id).toBe(id);
      expect(source.events.at(-1)?.data).toEqual(record);
      for (const event of source.events)
        expect(event.data).toEqual({
          ...record,
          status: expect.any(String),
          networks_progress_percentage: expect.any(String),
          updated_at: expect.any(String),
        });
      expect(source.events[0]?.data).toMatchObject({
        status: 'pending',
        networks_progress_percentage: '0.00',
      });
      expect(new Set(source.events.map((event) => event.id)).size).toBe(source.events.length);
      expect(source.events.every((event) => event.id !== '')).toBe(true);
      const progress = source.events.map((event) => event.data.networks_progress_percentage as string);
      expect(progress.every((percentage) => sevenths.includes(percentage))).toBe(true);
      const keys = source.events.map(
        (event) =>
          (statusRank[event.data.status] ?? -1) * 1000 + Number(event.data.networks_progress_percentage),
      );
      expect(keys).toEqual([...keys].sort((a, b) => a - b));
      await waitFor(connections, (count) => count === 0);
    },
  );

  it('when a subscriber reconnects with Last-Event-ID (header or lastEventID), then exactly the later events are replayed in order', async () => {
    const tenant = await server.tenant();
    const jwt = await sseJwtOf(tenant);
    const url = hubUrl(server, { topic: topicOf(tenant), authorization: jwt });
    const first = await openStream(url);
    const id = await createRequest(tenant);
    await waitFor(() => Promise.resolve(first.events), isCompleted(id));
    first.close();
    const seen = [...first.events];
    expect(seen.length).toBeGreaterThan(3);
    const middle = Math.floor(seen.length / 2);
    const lastId = seen.at(-1)?.id ?? '';

    const byHeader = await openStream(url, { 'last-event-id': seen[middle]?.id ?? '' });
    await waitFor(
      () => Promise.resolve(byHeader.events),
      (events) => events.some((e) => e.id === lastId),
    );
    byHeader.close();
    const byQuery = await openStream(`${url}&${new URLSearchParams({ lastEventID: seen[0]?.id ?? '' })}`);
    await waitFor(
      () => Promise.resolve(byQuery.events),
      (events) => events.some((e) => e.id === lastId),
    );
    byQuery.close();

    expect(byHeader.events).toEqual(seen.slice(middle + 1));
    expect(byQuery.events).toEqual(seen.slice(1));
    await waitFor(connections, (count) => count === 0);
  });

  it('when the last subscriber of an instance leaves, then its listener goes (open_subscriptions back), and events published meanwhile are still replayed by Last-Event-ID', async () => {
    const tenant = await server.tenant();
    const url = hubUrl(server, { topic: topicOf(tenant), authorization: await sseJwtOf(tenant) });
    const listeners = () => Promise.resolve(server.app.services.events.target.listenerCount);
    const baseline = await listeners();
    const first = await openStream(url);
    const before = await createRequest(tenant);
    await waitFor(() => Promise.resolve(first.events), isCompleted(before));
    expect(await listeners()).toBe(baseline + 1);
    first.close();
    await waitFor(listeners, (count) => count === baseline);

    // Nobody listens to the instance now; its events are still kept as they are published.
    const during = await createRequest(tenant);
    await waitFor(
      () => tenant.api.get(`/availability-requests/${during}`),
      (response) => response.body.data.status === 'completed',
    );
    const back = await openStream(url, { 'last-event-id': first.events.at(-1)?.id ?? '' });
    await waitFor(() => Promise.resolve(back.events), isCompleted(during));
    back.close();

    expect(back.response.headers.get('last-event-id')).toBe(first.events.at(-1)?.id);
    expect(back.events.every((event) => event.data.id === during)).toBe(true);
    expect(back.events[0]?.data).toMatchObject({ status: 'pending', networks_progress_percentage: '0.00' });
    expect(back.events.map((event) => event.data.networks_progress_percentage).at(-1)).toBe('100.00');
    await waitFor(connections, (count) => count === 0);
    await waitFor(listeners, (count) => count === baseline);
  });

  it('when a stream is open and idle, then it is text/event-stream, not stored, and keeps alive with comments', async () => {
    const jwt = await sseJwtOf(tenantA);

    const stream = await openStream(hubUrl(server, { topic: topicOf(tenantA) }), {
      authorization: `Bearer ${jwt}`,
    });
    await waitFor(
      () => Promise.resolve(stream.comments),
      (comments) => comments.includes('keep-alive'),
    );
    stream.close();

    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('cache-control')).toBe('no-store');
    expect(stream.events).toEqual([]);
    await waitFor(connections, (count) => count === 0);
  });

  it('when instance A gathers, then B’s stream receives nothing', async () => {
    const streamA = await openStream(
      hubUrl(server, { topic: topicOf(tenantA), authorization: await sseJwtOf(tenantA) }),
    );
    const streamB = await openStream(
      hubUrl(server, { topic: topicOf(tenantB), authorization: await sseJwtOf(tenantB) }),
    );

    const idA = await createRequest(tenantA);
    await waitFor(() => Promise.resolve(streamA.events), isCompleted(idA));
    const seenByB = [...streamB.events];
    // B's stream was live all along: its own request reaches it.
    const idB = await createRequest(tenantB);
    await waitFor(() => Promise.resolve(streamB.events), isCompleted(idB));
    streamA.close();
    streamB.close();

    expect(seenByB).toEqual([]);
    expect(streamA.events.every((event) => event.data.id === idA)).toBe(true);
    expect(streamB.events.every((event) => event.data.id === idB)).toBe(true);
    await waitFor(connections, (count) => count === 0);
  });

  it('when 200 streams are opened and aborted, then no connection remains and the instance’s listener goes with the last', async () => {
    const tenant = await server.tenant();
    const url = hubUrl(server, { topic: topicOf(tenant), authorization: await sseJwtOf(tenant) });
    const baseline = server.app.services.events.target.listenerCount;
    const streams: Awaited<ReturnType<typeof openStream>>[] = [];

    try {
      for (let batch = 0; batch < 4; batch += 1)
        streams.push(...(await Promise.all(Array.from({ length: 50 }, () => openStream(url)))));
      await waitFor(connections, (count) => count === 200);
    } finally {
      for (const stream of streams) stream.close();
    }

    expect(streams.map((stream) => stream.response.status)).toEqual(Array(200).fill(200));
    await waitFor(connections, (count) => count === 0);
    await waitFor(
      () => Promise.resolve(server.app.services.events.target.listenerCount),
      (count) => count === baseline,
    );
  });

  it('when clients disconnect before the hub has answered, then no connection remains', async () => {
    const tenant = await server.tenant();
    const path = `/.well-known/mercure?${new URLSearchParams({ topic: topicOf(tenant), authorization: await sseJwtOf(tenant) })}`;

    // The request is sent and the socket reset at once, while the hub still verifies the token.
    await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(server.app.port, '127.0.0.1', () => {
              socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
              socket.resetAndDestroy();
              resolve();
            });
          }),
      ),
    );

    // A stream opened after them is served after them: once it is counted, they have been handled.
    const sentinel = await openStream(`${server.app.url}${path}`);
    await waitFor(connections, (count) => count >= 1);
    sentinel.close();

    await waitFor(connections, (count) => count === 0);
  });
});
