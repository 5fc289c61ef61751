import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppMetrics } from '../../src/server/metrics.js';
import {
  contractExampleBatch,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';

/** The demo catalogue's sources that cover 1016XA (one gathering task each). */
const demoSources = ['colt', 'eurofiber', 'kpn-wba', 'kpn-weas', 'tele2', 'zayo', 'ziggo'];
/** A service id anywhere in the text: a TypeID (`avr_`, `ins_`, …: prefix, `_`, 26 base32 characters). */
const anyId = /\b[a-z]+_[0-9a-z]{26}\b/;

/** The value of one sample, by its exact name and label set as printed; null when absent. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

/** Every label value in an exposition text. */
function labelValues(text: string): string[] {
  return [...text.matchAll(/[a-z_]+="((?:[^"\\]|\\.)*)"/g)].map((match) => match[1] ?? '');
}

describe('GET /metrics', () => {
  let server: TestServer;
  let tenant: TestTenant;
  const scrape = async () => {
    const response = await fetch(`${server.app.url}/metrics`);
    return { response, text: await response.text() };
  };

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  it('when a request is created over REST, read over GraphQL and gathered, then each is counted exactly, by route pattern', async () => {
    const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
    expect(created.status).toBe(201);
    const id: string = created.body.data[0].id;
    let reads = 0;
    await waitFor(
      () => {
        reads += 1;
        return tenant.api.get(`/availability-requests/${id}`);
      },
      (read) => read.body.data.status === 'completed',
    );
    const graphql = await tenant.api.graphql(
      'query RequestStatus($id: ID!) { availabilityRequest(id: $id) { status } }',
      { id },
    );
    expect(graphql).toEqual({ data: { availabilityRequest: { status: 'COMPLETED' } } });
    const missing = await tenant.api.get('/availability-requests/avr_00000000000000000000000000');
    expect(missing.status).toBe(404);

    // A task is counted after its completion is stored, so the last count may come just after the
    // request reads as completed.
    const { response, text } = await waitFor(scrape, ({ text }) =>
      demoSources.every(
        (source) => sample(text, `gathering_tasks_total{source="${source}",outcome="succeeded"}`) !== null,
      ),
    );

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect({
      signIn: sample(text, 'http_requests_total{method="POST",route="/authentication",status="200"}'),
      create: sample(text, 'http_requests_total{method="POST",route="/availability-requests",status="201"}'),
      reads: sample(
        text,
        'http_requests_total{method="GET",route="/availability-requests/:id",status="200"}',
      ),
      missing: sample(
        text,
        'http_requests_total{method="GET",route="/availability-requests/:id",status="404"}',
      ),
      graphql: sample(text, 'http_requests_total{method="POST",route="/graphql",status="200"}'),
      createTimed: sample(
        text,
        'http_request_duration_seconds_count{method="POST",route="/availability-requests",status="201"}',
      ),
    }).toEqual({ signIn: 1, create: 1, reads, missing: 1, graphql: 1, createTimed: 1 });
    for (const source of demoSources) {
      expect([
        source,
        sample(text, `gathering_tasks_total{source="${source}",outcome="succeeded"}`),
        sample(text, `source_latency_seconds_count{source="${source}"}`),
      ]).toEqual([source, 1, 1]);
    }
    expect(text).not.toContain('outcome="failed"');
    expect(text).not.toContain('outcome="retried"');
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).not.toContain(id);
    expect(labelValues(text).filter((value) => anyId.test(value) || value.includes('/avr_'))).toEqual([]);
  });

  it('when an event stream opens and closes, then event_stream_connections follows it and open_subscriptions counts the bus listener while it is open', async () => {
    const before = await scrape();
    const baseline = sample(before.text, 'open_subscriptions');
    const list = await tenant.api.get('/availability-requests');
    const controller = new AbortController();
    const stream = await fetch(
      `${server.app.url}/.well-known/mercure?${new URLSearchParams({
        topic: `${tenant.instanceId}/availability_request`,
        authorization: list.body.sse_jwt,
      })}`,
      { signal: controller.signal },
    );
    expect(stream.status).toBe(200);

    const open = await scrape();
    controller.abort();
    await waitFor(
      () => Promise.resolve(server.app.mercure.connectionCount),
      (count) => count === 0,
    );
    // The instance's listener goes with its last connection (issue 34).
    await waitFor(
      () => Promise.resolve(server.app.services.events.target.listenerCount),
      (count) => count === (baseline ?? 0),
    );
    const closed = await scrape();

    expect(before.text).toContain('# TYPE open_subscriptions gauge');
    expect(before.text).toContain('# TYPE event_stream_connections gauge');
    expect([
      sample(before.text, 'event_stream_connections'),
      sample(open.text, 'event_stream_connections'),
      sample(closed.text, 'event_stream_connections'),
    ]).toEqual([0, 1, 0]);
    expect(sample(open.text, 'open_subscriptions')).toBe((baseline ?? 0) + 1);
    expect(sample(closed.text, 'open_subscriptions')).toBe(baseline ?? 0);
    expect(
      sample(open.text, 'http_requests_total{method="GET",route="/.well-known/mercure",status="200"}'),
    ).toBeNull();
    expect(
      sample(closed.text, 'http_requests_total{method="GET",route="/.well-known/mercure",status="200"}'),
    ).toBe(1);
  });

  it('when two apps run in one process, then each has its own counts', async () => {
    const other = await startTestServer();
    try {
      await other.anonymous.get('/healthz');
      await other.anonymous.get('/healthz');
      const otherText = await (await fetch(`${other.app.url}/metrics`)).text();
      const { text } = await scrape();

      expect(sample(otherText, 'http_requests_total{method="GET",route="/healthz",status="200"}')).toBe(2);
      expect(sample(text, 'http_requests_total{method="GET",route="/healthz",status="200"}')).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('when an unknown path or a non-GET method is requested, then its route label is `other` and /metrics answers 405', async () => {
    await server.anonymous.get('/no/such/path/avr_00000000000000000000000000');
    const post = await fetch(`${server.app.url}/metrics`, { method: 'POST' });

    const { text } = await scrape();

    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(post.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect((await post.json()).status).toBe(405);
    expect(sample(text, 'http_requests_total{method="GET",route="other",status="404"}')).toBe(1);
    expect(sample(text, 'http_requests_total{method="POST",route="/metrics",status="405"}')).toBe(1);
  });
});

describe('the GraphQL operations plugin', () => {
  const schema = createSchema({
    typeDefs: /* GraphQL */ `
      type Query { ping: String }
      type Mutation { ping: String }
      type Subscription { ticks: Int }
    `,
    resolvers: {
      Query: { ping: () => 'pong' },
      Mutation: { ping: () => 'pong' },
      Subscription: {
        ticks: {
          subscribe: async function* () {
            yield { ticks: 1 };
          },
        },
      },
    },
  });

  async function run(
    yoga: ReturnType<typeof createYoga>,
    body: { query: string; operationName?: string },
    accept = 'application/json',
  ): Promise<string> {
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify(body),
    });
    return response.text();
  }

  it('when queries, mutations and subscriptions run, then each is counted by type and bounded name', async () => {
    const metrics = new AppMetrics({
      openSubscriptions: () => 0,
      eventStreamConnections: () => 0,
      rateLimitStoreFailures: () => 0,
      storeUp: async () => true,
      redisUp: () => null,
    });
    const yoga = createYoga({ schema, plugins: [metrics.graphqlPlugin], logging: false });

    await run(yoga, { query: 'query Probe { ping }' });
    await run(yoga, { query: 'query Probe { ping }' });
    await run(yoga, { query: '{ ping }' });
    await run(yoga, { query: 'query A { ping } query B { ping }', operationName: 'B' });
    await run(yoga, { query: 'mutation Touch { ping }' });
    expect(await run(yoga, { query: 'subscription Ticks { ticks }' }, 'text/event-stream')).toContain(
      '"ticks":1',
    );
    await run(yoga, { query: 'query Broken { nope }' });
    const { body: text } = await metrics.render();

    expect({
      probe: sample(text, 'graphql_operations_total{operation_type="query",operation_name="Probe"}'),
      anonymous: sample(text, 'graphql_operations_total{operation_type="query",operation_name="anonymous"}'),
      chosen: sample(text, 'graphql_operations_total{operation_type="query",operation_name="B"}'),
      notChosen: sample(text, 'graphql_operations_total{operation_type="query",operation_name="A"}'),
      mutation: sample(text, 'graphql_operations_total{operation_type="mutation",operation_name="Touch"}'),
      subscription: sample(
        text,
        'graphql_operations_total{operation_type="subscription",operation_name="Ticks"}',
      ),
      invalid: sample(text, 'graphql_operations_total{operation_type="query",operation_name="Broken"}'),
    }).toEqual({
      probe: 2,
      anonymous: 1,
      chosen: 1,
      notChosen: null,
      mutation: 1,
      subscription: 1,
      invalid: null,
    });
  });

  it('when clients send more distinct operation names than the bound, then the rest count as `other`', async () => {
    const metrics = new AppMetrics({
      openSubscriptions: () => 0,
      eventStreamConnections: () => 0,
      rateLimitStoreFailures: () => 0,
      storeUp: async () => true,
      redisUp: () => null,
    });
    const yoga = createYoga({ schema, plugins: [metrics.graphqlPlugin], logging: false });

    for (let n = 0; n < 205; n += 1) await run(yoga, { query: `query Q${n} { ping }` });
    const { body: text } = await metrics.render();

    expect(text.match(/^graphql_operations_total\{/gm)).toHaveLength(201);
    expect(sample(text, 'graphql_operations_total{operation_type="query",operation_name="Q199"}')).toBe(1);
    expect(sample(text, 'graphql_operations_total{operation_type="query",operation_name="other"}')).toBe(5);
  });
});
