import { EventSource } from 'eventsource';
import LinkHeader from 'http-link-header';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';

/** One event as an EventSource client received it. */
interface Received {
  id: string;
  /** The availability request's id in the event's data (a list record). */
  requestId: string;
}

/** One HTTP exchange of an EventSource client with the hub. */
interface Connection {
  status: number;
  /** The `Last-Event-ID` the client sent, if any. */
  sentLastEventId: string | null;
  /** The `Last-Event-ID` header of the hub's response, if any. */
  lastEventIdHeader: string | null;
  /** Whether the response's body has ended (the hub closed it, or the test cut it). */
  ended: boolean;
}

const urnUuid = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const topicOf = (tenant: TestTenant) => `${tenant.instanceId}/availability_request`;

/**
 * A subscriber on the `eventsource` package, the EventSource of Node and of tests: its `fetch` adds the
 * headers (the token as `Authorization: Bearer`, optionally a first `Last-Event-ID`), records every
 * connection, and lets the test cut the current one as a network failure would — after which the client
 * reconnects by itself, sending the last id it received.
 */
function subscriber(url: URL, headers: Record<string, string>) {
  const received: Received[] = [];
  const connections: Connection[] = [];
  const errors: { code: number | undefined }[] = [];
  let cutCurrent: (() => void) | null = null;
  const fetchWithAuth: typeof fetch = async (input, init) => {
    const sent = new Headers(init?.headers);
    for (const [name, value] of Object.entries(headers)) if (!sent.has(name)) sent.set(name, value);
    const response = await fetch(input, { ...init, headers: sent });
    const connection: Connection = {
      status: response.status,
      sentLastEventId: sent.get('last-event-id'),
      lastEventIdHeader: response.headers.get('last-event-id'),
      ended: false,
    };
    connections.push(connection);
    if (!response.body) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        cutCurrent = () => {
          controller.close();
          void reader.cancel();
        };
      },
      async pull(controller) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done) {
          connection.ended = true;
          try {
            controller.close();
          } catch {
            // already closed by a cut
          }
        } else controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const source = new EventSource(url, { fetch: fetchWithAuth });
  source.addEventListener('message', (event) => {
    received.push({ id: event.lastEventId, requestId: JSON.parse(event.data).id });
  });
  source.addEventListener('error', (event) => void errors.push({ code: event.code }));
  return {
    source,
    received,
    connections,
    errors,
    cut: () => cutCurrent?.(),
    close: () => source.close(),
  };
}

describe('the Mercure subscriber spec, with an EventSource client', () => {
  let server: TestServer;
  let tenantA: TestTenant;
  let tenantB: TestTenant;
  /** Every event of instance A, as an observer subscribed from the start received them. */
  let observerOfA: ReturnType<typeof subscriber>;

  beforeAll(async () => {
    // No worker: every event is a create, one per request, in the order of the creates.
    server = await startTestServer({ startWorker: false });
    tenantA = await server.tenant();
    tenantB = await server.tenant();
    observerOfA = subscriber(await hubOf(tenantA, topicOf(tenantA)), {
      authorization: `Bearer ${await sseJwtOf(tenantA)}`,
    });
    await waitFor(connections, (count) => count === 1);
  });
  afterAll(async () => {
    observerOfA.close();
    await server.close();
  });

  const connections = () => Promise.resolve(server.app.mercure.connectionCount);

  async function sseJwtOf(tenant: TestTenant): Promise<string> {
    return (await tenant.api.get('/availability-requests')).body.sse_jwt;
  }

  /** The hub's URL as discovered from the `Link` header of the list, with `topic` selectors. */
  async function hubOf(tenant: TestTenant, ...topics: string[]): Promise<URL> {
    const response = await fetch(`${server.app.url}/availability-requests`, {
      headers: { 'x-auth-token': tenant.api.token ?? '' },
    });
    const [hub] = LinkHeader.parse(response.headers.get('link') ?? '').rel('mercure');
    const url = new URL(hub?.uri ?? 'missing-link', response.url);
    for (const topic of topics) url.searchParams.append('topic', topic);
    return url;
  }

  async function createRequests(tenant: TestTenant, count: number): Promise<string[]> {
    const address = { address: { coordinates: { latitude: 52.36801, longitude: 4.879151 } } };
    const created = await tenant.api.post(
      '/availability-requests',
      Array.from({ length: count }, () => address),
    );
    expect(created.status).toBe(201);
    return created.body.data.map(({ id }: { id: string }) => id);
  }

  const receivedCount = (client: { received: Received[] }, count: number) =>
    waitFor(
      () => Promise.resolve(client.received),
      (received) => received.length >= count,
    );

  it('when the list and a request hand out an sse_jwt, then both carry the hub’s Link, relative to themselves', async () => {
    const [id] = await createRequests(tenantA, 1);
    await receivedCount(observerOfA, 1);
    const list = await tenantA.api.get('/availability-requests');
    const one = await tenantA.api.get(`/availability-requests/${id}`);
    const options = await tenantA.api.get('/availability-requests/options?country_code=NL');

    for (const response of [list, one]) {
      expect(response.headers.get('link')).toBe('</.well-known/mercure>; rel="mercure"');
      expect(LinkHeader.parse(response.headers.get('link') ?? '').rel('mercure')).toEqual([
        { uri: '/.well-known/mercure', rel: 'mercure' },
      ]);
    }
    expect(options.headers.get('link')).toBeNull();
  });

  it('when a discovered subscriber is cut off and events happen meanwhile, then it reconnects with Last-Event-ID, gets it back as a header and exactly the missed events', async () => {
    const client = subscriber(await hubOf(tenantA, topicOf(tenantA)), {
      authorization: `Bearer ${await sseJwtOf(tenantA)}`,
    });
    try {
      await waitFor(
        () => Promise.resolve(client.connections),
        (seen) => seen.length === 1,
      );
      const before = await createRequests(tenantA, 2);
      await receivedCount(client, 2);
      const lastSeen = client.received[1]?.id;

      client.cut();
      const missed = await createRequests(tenantA, 3);
      await receivedCount(client, 5);
      const after = await createRequests(tenantA, 1);
      await receivedCount(client, 6);

      expect(client.received.map(({ requestId }) => requestId)).toEqual([...before, ...missed, ...after]);
      expect(client.received.every(({ id }) => urnUuid.test(id))).toBe(true);
      expect(new Set(client.received.map(({ id }) => id)).size).toBe(6);
      expect(client.connections).toEqual([
        { status: 200, sentLastEventId: null, lastEventIdHeader: null, ended: true },
        { status: 200, sentLastEventId: lastSeen, lastEventIdHeader: lastSeen, ended: false },
      ]);
      // The same ids as every other subscriber of the topic saw.
      await receivedCount(observerOfA, observerOfA.received.length);
      expect(observerOfA.received.slice(-6)).toEqual(client.received);
    } finally {
      client.close();
    }
  });

  it.each<{ how: string; headers: Record<string, string>; query: Record<string, string> }>([
    { how: 'Last-Event-ID: earliest', headers: { 'last-event-id': 'earliest' }, query: {} },
    { how: 'lastEventID=earliest', headers: {}, query: { lastEventID: 'earliest' } },
    {
      how: 'an id the hub never sent',
      headers: { 'last-event-id': 'urn:uuid:00000000-0000-7000-8000-000000000000' },
      query: {},
    },
  ])(
    'when a subscriber asks with $how, then the whole kept history comes first, the response says earliest, and live events follow',
    async ({ headers, query }) => {
      const url = await hubOf(tenantA, topicOf(tenantA));
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
      const kept = [...observerOfA.received];
      const client = subscriber(url, { authorization: `Bearer ${await sseJwtOf(tenantA)}`, ...headers });
      try {
        await receivedCount(client, kept.length);
        const [live] = await createRequests(tenantA, 1);
        await receivedCount(client, kept.length + 1);

        expect(kept.length).toBeGreaterThan(0);
        expect(client.received.slice(0, kept.length)).toEqual(kept);
        expect(client.received.slice(kept.length).map(({ requestId }) => requestId)).toEqual([live]);
        expect(client.connections).toEqual([
          {
            status: 200,
            sentLastEventId: headers['last-event-id'] ?? null,
            lastEventIdHeader: 'earliest',
            ended: false,
          },
        ]);
      } finally {
        client.close();
      }
    },
  );

  it('when subscribers use *, a URI template and several topics, then each gets its own instance’s events once, and another instance’s token none of them', async () => {
    const jwtA = `Bearer ${await sseJwtOf(tenantA)}`;
    const jwtB = `Bearer ${await sseJwtOf(tenantB)}`;
    const template = '{instance}/availability_request';
    const baseline = await server.app.mercure.connectionCount;
    const clients = {
      starA: subscriber(await hubOf(tenantA, '*'), { authorization: jwtA }),
      templateA: subscriber(await hubOf(tenantA, template), { authorization: jwtA }),
      severalA: subscriber(await hubOf(tenantA, topicOf(tenantA), '*', template), { authorization: jwtA }),
      starB: subscriber(await hubOf(tenantB, '*'), { authorization: jwtB }),
      templateB: subscriber(await hubOf(tenantB, template), { authorization: jwtB }),
    };
    try {
      await waitFor(connections, (count) => count === baseline + 5);
      const ofA = await createRequests(tenantA, 2);
      await Promise.all([clients.starA, clients.templateA, clients.severalA].map((c) => receivedCount(c, 2)));
      // B's event comes after A's: a B subscriber that had received A's events would hold them first.
      const ofB = await createRequests(tenantB, 1);
      await Promise.all([clients.starB, clients.templateB].map((c) => receivedCount(c, 1)));
      const [oneMoreOfA] = await createRequests(tenantA, 1);
      await Promise.all([clients.starA, clients.templateA, clients.severalA].map((c) => receivedCount(c, 3)));

      for (const client of [clients.starA, clients.templateA, clients.severalA]) {
        expect(client.received.map(({ requestId }) => requestId)).toEqual([...ofA, oneMoreOfA]);
      }
      for (const client of [clients.starB, clients.templateB]) {
        expect(client.received.map(({ requestId }) => requestId)).toEqual(ofB);
      }
    } finally {
      for (const client of Object.values(clients)) client.close();
    }
  });

  it('when a token’s claim is a URI template, then * receives the events of every instance it matches', async () => {
    const now = Math.floor(server.clock.now().getTime() / 1000);
    const patternToken = await new SignJWT({
      mercure: { publish: [], subscribe: ['{instance}/availability_request'] },
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(server.app.services.signingKey);
    const client = subscriber(await hubOf(tenantA, '*'), { authorization: `Bearer ${patternToken}` });
    try {
      await waitFor(
        () => Promise.resolve(client.connections),
        (seen) => seen.length === 1,
      );
      const ofA = await createRequests(tenantA, 1);
      await receivedCount(client, 1);
      const ofB = await createRequests(tenantB, 1);
      await receivedCount(client, 2);

      expect(client.received.map(({ requestId }) => requestId)).toEqual([...ofA, ...ofB]);
    } finally {
      client.close();
    }
  });

  it('when the token expires, then the hub ends the stream and the client’s reconnection is refused with 401', async () => {
    const now = Math.floor(server.clock.now().getTime() / 1000);
    const shortLived = await new SignJWT({ mercure: { publish: [], subscribe: [topicOf(tenantA)] } })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(now)
      .setExpirationTime(now + 2)
      .sign(server.app.services.signingKey);
    const client = subscriber(await hubOf(tenantA, topicOf(tenantA)), {
      authorization: `Bearer ${shortLived}`,
    });
    try {
      // The hub ends the stream at exp; the client reconnects after its 3 s delay and is refused.
      await waitFor(
        () => Promise.resolve(client.errors),
        (errors) => errors.some(({ code }) => code === 401),
      );

      expect(client.connections.map(({ status }) => status)).toEqual([200, 401]);
      expect(client.connections[0]?.ended).toBe(true);
      expect(client.source.readyState).toBe(EventSource.CLOSED);
    } finally {
      client.close();
    }
  });

  it('when the selectors match no topic the token grants, then 403; when 21 topics are given, then 422', async () => {
    const jwtB = await sseJwtOf(tenantB);
    const forbidden = await fetch(await hubOf(tenantA, topicOf(tenantA), 'ins_other/availability_request'), {
      headers: { authorization: `Bearer ${jwtB}` },
    });
    const tooMany = await fetch(
      await hubOf(tenantB, ...Array.from({ length: 21 }, (_, i) => `${topicOf(tenantB)}?${i}`)),
      { headers: { authorization: `Bearer ${jwtB}` } },
    );

    expect(forbidden.status).toBe(403);
    expect((await forbidden.json()).detail).toBe('The token grants none of the topics the selectors match.');
    expect(tooMany.status).toBe(422);
    expect(await tooMany.json()).toEqual({
      type: 'urn:connectivity-gateway:problem:validation',
      title: 'Invalid input',
      status: 422,
      detail: 'Give 1 to 20 topic selectors, such as <instance_id>/availability_request.',
      errors: [{ path: '/topic', message: 'between 1 and 20 topic parameters are required' }],
    });
  });
});
