import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { EventSource } from 'eventsource';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contractExampleBatch,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';

/** One Mercure event as a subscriber sees it: its id and its parsed `data`. */
interface MercureEvent {
  id: string;
  data: Json;
}

const statusRank: Record<string, number> = { pending: 0, in_progress: 1, completed: 2 };
/** The demo catalogue has 7 sources at 1016XA: progress moves in sevenths, as two-decimal strings. */
const sevenths = Array.from({ length: 8 }, (_, k) => (Math.round((k * 10_000) / 7) / 100).toFixed(2));

const topicOf = (tenant: TestTenant) => `${tenant.instanceId}/availability_request`;

function hubUrl(server: TestServer, query: Record<string, string>): string {
  return `${server.app.url}/.well-known/mercure?${new URLSearchParams(query)}`;
}

async function sseJwtOf(tenant: TestTenant): Promise<string> {
  const list = await tenant.api.get('/availability-requests');
  expect(list.status).toBe(200);
  return list.body.sse_jwt;
}

async function createRequest(tenant: TestTenant): Promise<string> {
  const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
  expect(created.status).toBe(201);
  return created.body.data[0].id;
}

/**
 * Opens an event stream with fetch and parses it as it arrives: events (`id:` and `data:` lines) and
 * comments (`: text`). `ended` tells how the body ended: `done`, or the read error's message.
 */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: MercureEvent[] = [];
  const comments: string[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return 'done';
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        for (const line of lines.filter((l) => l.startsWith(':'))) comments.push(line.slice(1).trim());
        const field = (name: string) =>
          lines.filter((line) => line.startsWith(`${name}: `)).map((line) => line.slice(name.length + 2));
        const data = field('data');
        if (data.length > 0) events.push({ id: field('id')[0] ?? '', data: JSON.parse(data.join('\n')) });
        end = buffer.indexOf('\n\n');
      }
    }
  })().catch((error: Error) => error.message);
  return { response, events, comments, ended, close: () => controller.abort() };
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

/** A 401 problem+json (RFC 9457) with the given detail: the answer that sends no event. */
/** A 403 problem+json: a valid token that grants none of the topics the selectors match (Mercure spec, "Authorization"). */
function expectForbidden(response: Response, body: Json): void {
  expect(response.status).toBe(403);
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(body).toEqual({
    type: 'urn:connectivity-gateway:problem:forbidden',
    title: 'Forbidden',
    status: 403,
    detail: 'The token grants none of the topics the selectors match.',
  });
}

function expectUnauthorised(response: Response, body: Json, detail: string): void {
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(body).toEqual({
    type: 'urn:connectivity-gateway:problem:unauthenticated',
    title: 'Authentication required',
    status: 401,
    detail,
  });
}

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

  describe('when the token is missing or invalid, then 401 problem+json; when it grants none of the topics, then 403; and no stream', () => {
    const attempt = async (query: Record<string, string>, headers: Record<string, string> = {}) => {
      const response = await fetch(hubUrl(server, query), { headers });
      const body = await response.json();
      expect(server.app.mercure.connectionCount).toBe(0);
      return { response, body };
    };
    const invalid = 'The event-stream token is invalid or expired.';
    const base64url = (text: string) => Buffer.from(text).toString('base64url');

    it('without a token', async () => {
      const { response, body } = await attempt({ topic: topicOf(tenantA) });
      expectUnauthorised(
        response,
        body,
        'Send the sse_jwt as a Bearer token, authorization parameter or cookie.',
      );
    });

    it('with another instance’s sse_jwt', async () => {
      const { response, body } = await attempt({
        topic: topicOf(tenantA),
        authorization: await sseJwtOf(tenantB),
      });
      expectForbidden(response, body);
    });

    it('with a token signed by another key', async () => {
      const forged = await new SignJWT({ mercure: { publish: [], subscribe: [topicOf(tenantA)] } })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(randomBytes(32));
      const { response, body } = await attempt(
        { topic: topicOf(tenantA) },
        { authorization: `Bearer ${forged}` },
      );
      expectUnauthorised(response, body, invalid);
    });

    it('with alg: none and the real payload', async () => {
      const payload = (await sseJwtOf(tenantA)).split('.')[1];
      const unsigned = `${base64url('{"alg":"none"}')}.${payload}.`;
      const { response, body } = await attempt({ topic: topicOf(tenantA), authorization: unsigned });
      expectUnauthorised(response, body, invalid);
    });

    it('with a topic that is not an availability_request topic', async () => {
      const jwt = await sseJwtOf(tenantA);
      for (const topic of [`${tenantA.instanceId}/quotes`, `${topicOf(tenantA)}/x`, tenantA.instanceId]) {
        const { response, body } = await attempt({ topic, authorization: jwt });
        expectForbidden(response, body);
      }
    });
  });

  it('when no topic is given, then 422; when POSTed, then 405 with Allow: GET', async () => {
    const jwt = await sseJwtOf(tenantA);

    const noTopic = await fetch(hubUrl(server, { authorization: jwt }));
    const posted = await fetch(hubUrl(server, { topic: topicOf(tenantA), authorization: jwt }), {
      method: 'POST',
    });

    expect(noTopic.status).toBe(422);
    expect(await noTopic.json()).toEqual({
      type: 'urn:connectivity-gateway:problem:validation',
      title: 'Invalid input',
      status: 422,
      detail: 'Give 1 to 20 topic selectors, such as <instance_id>/availability_request.',
      errors: [{ path: '/topic', message: 'between 1 and 20 topic parameters are required' }],
    });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET');
    expect(await posted.json()).toEqual({
      type: 'urn:connectivity-gateway:problem:method-not-allowed',
      title: 'Method not allowed',
      status: 405,
      detail: 'Subscribe with GET.',
    });
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

  it('when 200 streams are opened and aborted, then no connection remains and listeners stay at one per instance', async () => {
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
    expect(server.app.services.events.target.listenerCount).toBe(baseline + 1);
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

describe('Mercure event stream: token expiry and shutdown', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '0.05' } });
  });
  afterAll(() => server.close());

  it('when the list is read again within a minute, then the same sse_jwt; a minute later, a newly issued one', async () => {
    const tenant = await server.tenant();
    // Frozen: on the wall clock the seconds of `iat` could tick between the reads.
    server.clock.freeze();
    let first: string;
    let again: string;
    let renewed: string;
    try {
      first = await sseJwtOf(tenant);
      server.clock.advance(59 * 1000);
      again = await sseJwtOf(tenant);
      server.clock.advance(1000);
      renewed = await sseJwtOf(tenant);
    } finally {
      // The later tests of this file read the wall clock again, even when a read above failed.
      server.clock.thaw();
    }

    expect(again).toBe(first);
    expect(renewed).not.toBe(first);
    const issued = decodeJwt(first);
    expect(decodeJwt(renewed)).toEqual({
      iat: (issued.iat as number) + 60,
      exp: (issued.iat as number) + 60 + 600,
      mercure: { publish: [], subscribe: [topicOf(tenant)] },
    });
  });

  it('when the sse_jwt is older than 10 minutes, then 401 problem+json and no stream', async () => {
    const tenant = await server.tenant();
    const jwt = await sseJwtOf(tenant);
    server.clock.advance(11 * 60 * 1000);

    const response = await fetch(hubUrl(server, { topic: topicOf(tenant), authorization: jwt }));

    expectUnauthorised(response, await response.json(), 'The event-stream token is invalid or expired.');
    expect(server.app.mercure.connectionCount).toBe(0);
  });

  it('when app.stop() runs with open streams, then every reader sees the end', async () => {
    const tenant = await server.tenant();
    const url = hubUrl(server, { topic: topicOf(tenant), authorization: await sseJwtOf(tenant) });
    const streams = [await openStream(url), await openStream(url)];
    await waitFor(
      () => Promise.resolve(server.app.mercure.connectionCount),
      (count) => count === 2,
    );

    await server.app.stop();

    expect(await Promise.all(streams.map((stream) => stream.ended))).toEqual(['done', 'done']);
    expect(server.app.mercure.connectionCount).toBe(0);
  });
});
