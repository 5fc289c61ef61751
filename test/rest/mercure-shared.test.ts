import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiClient,
  contractExampleBatch,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  tempDatabasePath,
  waitFor,
} from '../helpers/app.js';
import { type RedisDelayProxy, startRedisDelayProxy } from '../helpers/redis-delay-proxy.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

/*
 * Issue 17: the Mercure hub in shared mode. Two instances on one database and one Redis; the history is
 * Redis's, so a client that reconnects to the other instance with `Last-Event-ID` gets exactly what it
 * missed. A reaches Redis through a proxy that can hold back what its subscriber connection hears.
 */

interface MercureEvent {
  id: string;
  data: Json;
}

/** Reads an event stream with fetch as it arrives; `close()` aborts it. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: MercureEvent[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        const field = (name: string) =>
          lines.filter((line) => line.startsWith(`${name}: `)).map((line) => line.slice(name.length + 2));
        const data = field('data');
        if (data.length > 0) events.push({ id: field('id')[0] ?? '', data: JSON.parse(data.join('\n')) });
        end = buffer.indexOf('\n\n');
      }
    }
  })().catch(() => undefined);
  return { response, events, close: () => controller.abort() };
}

const isCompleted = (id: string) => (events: MercureEvent[]) =>
  events.some((event) => event.data.id === id && event.data.status === 'completed');

describe('the Mercure hub in shared mode', () => {
  let redis: TestRedis;
  let proxy: RedisDelayProxy;
  let database: { path: string; remove(): void };
  let a: TestServer;
  let b: TestServer;
  let tenant: TestTenant;
  let onB: ApiClient;
  let hubQuery: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    proxy = await startRedisDelayProxy(redis.url);
    database = tempDatabasePath();
    const env = { REDIS_URL: redis.url, SOURCE_LATENCY_SCALE: '0.05', MERCURE_HISTORY_SIZE: '50' };
    a = await startTestServer({ databasePath: database.path, env: { ...env, REDIS_URL: proxy.url } });
    b = await startTestServer({ databasePath: database.path, env });
    tenant = await a.tenant();
    onB = new ApiClient(b.app.url).withToken(tenant.api.token ?? '');
    const list = await tenant.api.get('/availability-requests');
    hubQuery = new URLSearchParams({
      topic: `${tenant.instanceId}/availability_request`,
      authorization: list.body.sse_jwt,
    }).toString();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await proxy?.close();
    database?.remove();
    await redis?.stop();
  });

  it('when a request is created on B, then a subscriber on A gets each of its states once, in order, with global ids', async () => {
    const stream = await openStream(`${a.app.url}/.well-known/mercure?${hubQuery}`);
    expect(stream.response.status).toBe(200);
    const created = await onB.post('/availability-requests', [contractExampleBatch[0]]);
    const id: string = created.body.data[0].id;
    await waitFor(() => Promise.resolve(stream.events), isCompleted(id));
    stream.close();

    const own = stream.events.filter((event) => event.data.id === id);
    expect(own[0]?.data.status).toBe('pending');
    expect(own.at(-1)?.data.status).toBe('completed');
    expect(own.every((event) => /^urn:connectivity-gateway:event:\d+-\d+$/.test(event.id))).toBe(true);
    const rank: Record<string, number> = { pending: 0, in_progress: 1, completed: 2 };
    const keys = own.map(
      (event) => (rank[event.data.status] ?? -1) * 1000 + Number(event.data.networks_progress_percentage),
    );
    // Strictly increasing: every state once, none out of order.
    expect(keys).toEqual([...new Set(keys)].sort((x, y) => x - y));
    expect(keys.length).toBeGreaterThan(2);
    expect(new Set(own.map((event) => event.id)).size).toBe(own.length);
  });

  it('when a client reconnects to the other instance with Last-Event-ID, then it gets exactly the events after it, once', async () => {
    const first = await openStream(`${a.app.url}/.well-known/mercure?${hubQuery}`);
    const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
    const id: string = created.body.data[0].id;
    await waitFor(() => Promise.resolve(first.events), isCompleted(id));
    first.close();
    const seen = first.events;
    const lastSeen = seen[1]?.id ?? '';

    const again = await openStream(`${b.app.url}/.well-known/mercure?${hubQuery}`, {
      'last-event-id': lastSeen,
    });
    await waitFor(
      () => Promise.resolve(again.events),
      (events) => events.length >= seen.length - 2,
    );
    again.close();

    expect(again.response.headers.get('last-event-id')).toBe(lastSeen);
    expect(again.events).toEqual(seen.slice(2));
  });

  it('when the Last-Event-ID is not kept, then the whole kept history comes and the answer says earliest', async () => {
    const stream = await openStream(`${b.app.url}/.well-known/mercure?${hubQuery}`, {
      'last-event-id': 'urn:uuid:0190e0a0-0000-7000-8000-000000000000',
    });
    await waitFor(
      () => Promise.resolve(stream.events),
      (events) => events.length > 0,
    );
    stream.close();
    expect(stream.response.headers.get('last-event-id')).toBe('earliest');
    expect(stream.events[0]?.data.status).toBe('pending');
  });

  it('when events the replay sent reach the instance live only afterwards, then the client does not get them twice', async () => {
    const watch = await openStream(`${b.app.url}/.well-known/mercure?${hubQuery}`);
    const before = await onB.post('/availability-requests', [contractExampleBatch[0]]);
    await waitFor(() => Promise.resolve(watch.events), isCompleted(before.body.data[0].id));
    const lastSeen = watch.events.at(-1)?.id ?? '';

    // A hears nothing live from here on, while B publishes a whole request's states to the history.
    proxy.hold();
    const missed = await onB.post('/availability-requests', [contractExampleBatch[0]]);
    const missedId: string = missed.body.data[0].id;
    await waitFor(() => Promise.resolve(watch.events), isCompleted(missedId));
    const again = await openStream(`${a.app.url}/.well-known/mercure?${hubQuery}`, {
      'last-event-id': lastSeen,
    });
    // Only the replay can have brought them: A's live events are held back.
    await waitFor(() => Promise.resolve(again.events), isCompleted(missedId));
    expect(proxy.heldBytes()).toBeGreaterThan(0);

    // Now A hears them live, after the replay sent them; then a new request, live only.
    proxy.release();
    const after = await onB.post('/availability-requests', [contractExampleBatch[0]]);
    const afterId: string = after.body.data[0].id;
    await waitFor(() => Promise.resolve(watch.events), isCompleted(afterId));
    await waitFor(() => Promise.resolve(again.events), isCompleted(afterId));
    watch.close();
    again.close();

    const expected = watch.events.slice(watch.events.findIndex((event) => event.id === lastSeen) + 1);
    expect(expected.filter((event) => event.data.id === missedId).length).toBeGreaterThan(2);
    expect(again.events).toEqual(expected);
  });
});
