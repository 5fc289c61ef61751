import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type Role } from '../../src/context.js';
import { viewerForToken } from '../../src/resolvers/authentication.js';
import { issueEventStreamToken } from '../../src/resolvers/event-stream-token.js';
import {
  ApiClient,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  tempDatabasePath,
  waitFor,
} from '../helpers/app.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { mercureSubscriber, type ReceivedEvent } from '../helpers/sse-subscriber.js';
import { orderTopicOf, sseJwtOf, topicOf } from './mercure-fixtures.js';
import { manualLines, manualQuote } from './orders-fixtures.js';

/*
 * Issue 35, item 7: the Mercure topic `<instance_id>/order`. Its events carry the order as `GET /orders/{id}`
 * answers it, once per state, in order; `Last-Event-ID` replays them as it does requests, in process and
 * through Redis; the `sse_jwt` names the topic for the roles that read orders, and a token's claim opens
 * only the topics it names.
 */

/** A tenant that reads and places orders. */
const ordering = (): { roles: Role[] } => ({ roles: ['connectivity_check', 'ordering'] });
const urnUuid = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The order's documents as the API answered them: placed, then after each move of a line. */
async function placeAndMove(
  api: ApiClient,
  quote: Json,
  moves: (lines: Json[]) => [line: Json, body: Json][],
): Promise<Json[]> {
  const placed = await api.post('/orders', { quote_id: quote.id });
  expect(placed.status).toBe(201);
  return [placed.body.data, ...(await moveLines(api, placed.body.data, moves(placed.body.data.lines)))];
}

/** Moves the order's lines one after another; the order's document after each move. */
async function moveLines(api: ApiClient, order: Json, moves: [line: Json, body: Json][]): Promise<Json[]> {
  const answers: Json[] = [];
  for (const [line, body] of moves) {
    const moved = await api.request('PATCH', `/orders/${order.id}/lines/${line.id}`, { body });
    expect(moved.status).toBe(200);
    answers.push(moved.body.data);
  }
  return answers;
}

/**
 * The first line started with a note, then every manual line completed: the order ends `completed` (its
 * `none` lines, the demo's mandatory products, were completed when it was placed; issue 49).
 */
const startThenComplete = (lines: Json[]): [Json, Json][] => [
  [lines[0], { status: 'in_progress', note: 'Ordered at the carrier portal' }],
  ...manualLines({ lines }).map((line): [Json, Json] => [line, { status: 'completed' }]),
];

const eventsOf = (subscriber: { events: ReceivedEvent[] }) => () => Promise.resolve(subscriber.events);
const atLeast = (count: number) => (events: ReceivedEvent[]) => events.length >= count;

describe('the Mercure order topic', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let other: TestTenant;
  const quotes: Json[] = [];

  beforeAll(async () => {
    server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '0.05' } });
    tenant = await server.tenant(ordering());
    other = await server.tenant(ordering());
    for (const name of ['Alpha B.V.', 'Beta B.V.', 'Gamma B.V.', 'Delta B.V.', 'Zeta B.V.'])
      quotes.push(await manualQuote(tenant, name));
  });
  afterAll(() => server?.close());

  const connections = () => Promise.resolve(server.app.mercure.connectionCount);

  it('when an order is placed and its lines are moved, then its subscriber gets each state once, in order, as GET /orders/{id} answers it, and no other instance’s', async () => {
    const otherQuote = await manualQuote(other, 'Foreign B.V.');
    const mine = mercureSubscriber(server.app.url, {
      topics: [orderTopicOf(tenant)],
      sseJwt: await sseJwtOf(tenant),
    });
    const theirs = mercureSubscriber(server.app.url, {
      topics: [orderTopicOf(other)],
      sseJwt: await sseJwtOf(other),
    });
    await Promise.all([mine.opened, theirs.opened]);

    const states = await placeAndMove(tenant.api, quotes[0], startThenComplete);
    const theirStates = await placeAndMove(other.api, otherQuote, (lines) => [
      [lines[1], { status: 'failed' }],
    ]);
    // A later order of the instance: once it is seen, every earlier event has come, and nothing in between.
    const [sentinel] = await placeAndMove(tenant.api, quotes[1], () => []);
    await waitFor(eventsOf(mine), atLeast(states.length + 1));
    await waitFor(eventsOf(theirs), atLeast(theirStates.length));
    const read = await tenant.api.get(`/orders/${states[0].id}`);
    mine.close();
    theirs.close();

    // Placed, started, then its two manual lines completed.
    expect(states).toHaveLength(4);
    expect(states.map((state) => state.status)).toEqual([
      'pending',
      'in_progress',
      'in_progress',
      'completed',
    ]);
    expect(states.at(-1).status).toBe('completed');
    expect(mine.events.map((event) => event.data)).toEqual([...states, sentinel]);
    expect(read.body.data).toEqual(states.at(-1));
    expect(mine.events.every((event) => urnUuid.test(event.id))).toBe(true);
    expect(new Set(mine.events.map((event) => event.id)).size).toBe(mine.events.length);
    expect(theirs.events.map((event) => event.data)).toEqual(theirStates);
    await waitFor(connections, (count) => count === 0);
  });

  it('when a subscriber reconnects with Last-Event-ID, then it gets exactly the order events it missed, in order', async () => {
    const sseJwt = await sseJwtOf(tenant);
    const first = mercureSubscriber(server.app.url, { topics: [orderTopicOf(tenant)], sseJwt });
    await first.opened;
    const placed = (await tenant.api.post('/orders', { quote_id: quotes[2].id })).body.data;
    await waitFor(eventsOf(first), atLeast(1));
    first.close();
    await waitFor(connections, (count) => count === 0);

    // Nobody listens now; the events are still kept as they are published.
    const missed = await moveLines(tenant.api, placed, startThenComplete(placed.lines));
    const back = mercureSubscriber(server.app.url, {
      topics: [orderTopicOf(tenant)],
      sseJwt,
      lastEventId: first.events[0]?.id ?? '',
    });
    await waitFor(eventsOf(back), atLeast(missed.length));
    const sentinel = (await tenant.api.post('/orders', { quote_id: quotes[3].id })).body.data;
    await waitFor(eventsOf(back), atLeast(missed.length + 1));
    back.close();

    expect(first.events.map((event) => event.data)).toEqual([placed]);
    expect(back.responses[0]).toEqual({ status: 200, lastEventId: first.events[0]?.id });
    expect(back.events.map((event) => event.data)).toEqual([...missed, sentinel]);
    await waitFor(connections, (count) => count === 0);
  });

  it('when one connection takes both topics, then requests and orders come in the order they were published, each topic with its listener until the connection leaves', async () => {
    const listeners = () => Promise.resolve(server.app.services.events.target.listenerCount);
    const baseline = await listeners();
    const both = mercureSubscriber(server.app.url, {
      topics: [topicOf(tenant), orderTopicOf(tenant)],
      sseJwt: await sseJwtOf(tenant),
    });
    await both.opened;
    const listening = await listeners();

    const quote = await manualQuote(tenant, 'Epsilon B.V.');
    const placed = (await tenant.api.post('/orders', { quote_id: quote.id })).body.data;
    await waitFor(eventsOf(both), (events) => events.some((event) => event.data.id === placed.id));
    both.close();

    const kinds = both.events.map((event) => event.data._document_type);
    expect(listening).toBe(baseline + 2);
    expect(kinds.at(-1)).toBe('order');
    expect(kinds.slice(0, -1).every((kind) => kind === 'availability_request')).toBe(true);
    expect(both.events.at(-2)?.data.status).toBe('completed');
    expect(both.events.at(-1)?.data).toEqual(placed);
    await waitFor(listeners, (count) => count === baseline);
  });

  it('when a token does not name a topic, then that topic is refused or left out, whatever the selectors', async () => {
    const requestsOnly = await new SignJWT({ mercure: { publish: [], subscribe: [topicOf(tenant)] } })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(server.app.services.signingKey);
    const status = async (topics: string[], authorization: string) => {
      const query = new URLSearchParams([
        ...topics.map((topic) => ['topic', topic]),
        ['authorization', authorization],
      ]);
      const response = await fetch(`${server.app.url}/.well-known/mercure?${query}`);
      await response.body?.cancel();
      return response.status;
    };
    const sseJwt = await sseJwtOf(tenant);

    expect(await status([orderTopicOf(tenant)], requestsOnly)).toBe(403);
    expect(await status(['{instance}/order', '*'], requestsOnly)).toBe(200);
    expect(await status([orderTopicOf(other)], sseJwt)).toBe(403);
    expect(await status([orderTopicOf(tenant)], await sseJwtOf(other))).toBe(403);
    expect(await status([`${orderTopicOf(tenant)}s`, `${tenant.instanceId}/orders`], sseJwt)).toBe(403);
    expect(await status(['{instance}/order'], sseJwt)).toBe(200);

    // Its selectors match both topics, its claim names one: the order topic's events never come.
    const narrow = mercureSubscriber(server.app.url, { topics: ['*'], sseJwt: requestsOnly });
    const wide = mercureSubscriber(server.app.url, { topics: ['*'], sseJwt });
    await Promise.all([narrow.opened, wide.opened]);
    const placed = (await tenant.api.post('/orders', { quote_id: quotes[4].id })).body.data;
    const address = { country_code: 'NL', postal_code: '1016XA', house_number: '206' };
    const request = (await tenant.api.post('/availability-requests', [{ address }])).body.data[0].id;
    const hasRequest = (events: ReceivedEvent[]) => events.some((event) => event.data.id === request);
    await waitFor(eventsOf(narrow), hasRequest);
    await waitFor(eventsOf(wide), hasRequest);
    narrow.close();
    wide.close();

    const requestEvents = (events: ReceivedEvent[]) =>
      events.filter((event) => event.data._document_type === 'availability_request');
    expect(wide.events[0]?.data).toEqual(placed);
    expect(requestEvents(wide.events)).toEqual(wide.events.slice(1));
    expect(narrow.events).toEqual(requestEvents(narrow.events));
    expect(narrow.events.map((event) => event.data)).toEqual(wide.events.slice(1).map((event) => event.data));
    await waitFor(connections, (count) => count === 0);
  });

  it('when an sse_jwt is issued, then its claim names the order topic exactly for the roles that read orders', async () => {
    /** The topics the caller's `sse_jwt` names, as `requests` / `orders` for its own two topics. */
    const claimOf = async (roles: Role[]) => {
      const caller = await server.tenant({ roles, demoCatalog: false });
      const { services } = server.app;
      const ctx = createContext(services, await viewerForToken(services, caller.api.token ?? ''));
      const { mercure } = decodeJwt(await issueEventStreamToken(ctx)) as { mercure: { subscribe: string[] } };
      const names = { [topicOf(caller)]: 'requests', [orderTopicOf(caller)]: 'orders' };
      return mercure.subscribe.map((topic) => names[topic] ?? topic);
    };

    expect(await claimOf(['connectivity_check'])).toEqual(['requests', 'orders']);
    expect(await claimOf(['connectivity_check', 'ordering'])).toEqual(['requests', 'orders']);
    expect(await claimOf(['instance_admin'])).toEqual(['requests', 'orders']);
    // No REST read hands this caller an sse_jwt today (the lists that do need connectivity_check).
    expect(await claimOf(['ordering'])).toEqual(['orders']);
  });
});

describe('the Mercure order topic in shared mode', () => {
  let redis: TestRedis;
  let database: { path: string; remove(): void };
  let a: TestServer;
  let b: TestServer;
  let tenant: TestTenant;
  let onB: ApiClient;

  beforeAll(async () => {
    redis = await startTestRedis();
    database = tempDatabasePath();
    const env = { REDIS_URL: redis.url, SOURCE_LATENCY_SCALE: '0.05', MERCURE_HISTORY_SIZE: '50' };
    a = await startTestServer({ databasePath: database.path, env });
    b = await startTestServer({ databasePath: database.path, env });
    tenant = await a.tenant(ordering());
    onB = new ApiClient(b.app.url).withToken(tenant.api.token ?? '');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    database?.remove();
    await redis?.stop();
  });

  it('when an order changes on B, then a subscriber on A gets each state once, dates and all; reconnecting to B with Last-Event-ID, exactly what it missed', async () => {
    const quote = await manualQuote(tenant);
    const later = await manualQuote(tenant, 'Later B.V.');
    const sseJwt = await sseJwtOf(tenant);
    const first = mercureSubscriber(a.app.url, { topics: [orderTopicOf(tenant)], sseJwt });
    await first.opened;
    const seen = await placeAndMove(onB, quote, (lines) => [[lines[0], { status: 'in_progress' }]]);
    await waitFor(eventsOf(first), atLeast(seen.length));
    first.close();

    // Completion dates are set now: they come back from Redis as strings and must read as on GET.
    const missed = await moveLines(
      onB,
      seen[0],
      manualLines(seen[0]).map((line: Json) => [line, { status: 'completed' }]),
    );
    const back = mercureSubscriber(b.app.url, {
      topics: [orderTopicOf(tenant)],
      sseJwt,
      lastEventId: first.events.at(-1)?.id ?? '',
    });
    await waitFor(eventsOf(back), atLeast(missed.length));
    // Placed on A, heard live on B: once it is there, everything before it has come, once.
    const [sentinel] = await placeAndMove(tenant.api, later, () => []);
    await waitFor(eventsOf(back), atLeast(missed.length + 1));
    back.close();

    expect(first.events.map((event) => event.data)).toEqual(seen);
    expect(back.responses[0]).toEqual({ status: 200, lastEventId: first.events.at(-1)?.id });
    expect(back.events.map((event) => event.data)).toEqual([...missed, sentinel]);
    expect(missed.at(-1).lines.every((line: Json) => line.completion_date !== null)).toBe(true);
    expect((await onB.get(`/orders/${seen[0].id}`)).body.data).toEqual(missed.at(-1));
    expect(
      [...first.events, ...back.events].every((event) =>
        /^urn:connectivity-gateway:event:\d+-\d+$/.test(event.id),
      ),
    ).toBe(true);
  });
});
