import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SupplierSimulator, startSupplierSimulator } from '../../src/gathering/simulator/server.js';
import { tempDatabasePath } from '../helpers/app.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { graphqlSseSubscriber } from '../helpers/sse-subscriber.js';
import { testStore } from '../helpers/store.js';
import type { UpdatesSubscriber } from '../helpers/updates-subscriber.js';
import { waitFor } from '../helpers/wait.js';
import { demoCredentials, type GatewayApi, signedIn } from '../scale-out/sonata-ordering.js';
import { type OtlpReceiver, startOtlpReceiver } from './otlp-receiver.js';
import { type RecordingProxy, startRecordingProxy } from './recording-proxy.js';
import {
  createTracedRequest,
  only,
  SpanKinds,
  TRACED_SOURCE_KEY,
  tracingEnv,
  useTracedSource,
} from './traced-request.js';

/*
 * Issue 37, item 1: a request's trace, as an OTLP/HTTP receiver started here receives it. On PostgreSQL and
 * Redis (the shared mode) the request is created on an API-only instance A and gathered by a worker process
 * C on the same database, so the trace crosses processes through the task, and its events reach a
 * subscriber on an instance B that does not relay (`EVENT_RELAY=off`), so they cross processes through the
 * outbox and the Redis stream; on SQLite (one process per database file) one instance does all of it. The
 * supplier is the simulator behind a proxy that records the `traceparent` each call arrived with.
 */

const { SERVER, CLIENT, PRODUCER, CONSUMER, INTERNAL } = SpanKinds;

const shared = testStore === 'postgres';
/** The caller's own trace: the gateway must continue it (W3C Trace Context, `traceparent`). */
const callerTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const callerSpanId = '00f067aa0ba902b7';

describe(`a traced request (${shared ? 'instance A, worker C, subscriber on B, on PostgreSQL and Redis' : 'one instance'})`, () => {
  let receiver: OtlpReceiver;
  let simulator: SupplierSimulator;
  let proxy: RecordingProxy;
  let database: { path: string; remove(): void };
  let redis: TestRedis | undefined;
  const processes: GatewayProcess[] = [];
  let api: GatewayApi;
  /** Every request's updates, on B (shared) or A. */
  let subscriber: UpdatesSubscriber;
  /** The service whose subscriber receives the events. */
  const delivering = shared ? 'gateway-b' : 'gateway-a';

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    simulator = await startSupplierSimulator();
    proxy = await startRecordingProxy(simulator.url);
    database = tempDatabasePath();
    if (shared) redis = await startTestRedis();
    const common = {
      DATABASE_URL: database.path,
      LOG_LEVEL: 'info',
      GATHERING_IDLE_POLL_MS: '50',
      ...(redis ? { REDIS_URL: redis.url } : {}),
    };
    const a = await startGatewayProcess({
      env: {
        ...common,
        ...tracingEnv(receiver, 'gateway-a'),
        SEED_DEMO: 'true',
        ...(shared ? { GATHERING_WORKER: 'off' } : {}),
      },
      readyTimeoutMs: 90_000,
    });
    processes.push(a);
    api = await signedIn(a.url, await demoCredentials(a));
    await useTracedSource(api, proxy.url);
    if (shared) {
      processes.push(
        await startGatewayProcess({
          role: 'worker',
          env: { ...common, ...tracingEnv(receiver, 'gateway-c') },
          readyTimeoutMs: 90_000,
        }),
        await startGatewayProcess({
          env: {
            ...common,
            ...tracingEnv(receiver, 'gateway-b'),
            GATHERING_WORKER: 'off',
            EVENT_RELAY: 'off',
          },
          readyTimeoutMs: 90_000,
        }),
      );
    }
    subscriber = graphqlSseSubscriber((processes.at(-1) as GatewayProcess).url, api.token);
    await waitFor(() => Promise.resolve(subscriber.connected()), Boolean);
  }, 240_000);

  afterAll(async () => {
    subscriber?.close();
    await Promise.all(processes.map((each) => each.stop()));
    await redis?.stop();
    await proxy?.close();
    await simulator?.stop();
    await receiver?.close();
    database?.remove();
  });

  it('when a REST request arrives with a traceparent, then its trace continues into the task, the worker, the supplier call and the events, through their publish to their delivery to a subscriber', async () => {
    const worker = shared ? 'gateway-c' : 'gateway-a';
    const requestId = await createTracedRequest(api, { traceId: callerTraceId, spanId: callerSpanId });
    const inTrace = () => receiver.spans().filter((span) => span.traceId === callerTraceId);
    // Until the three events are delivered: the `created` one of the HTTP span, the claim's `started` one in
    // the context stored with the task, the task's of the task's span.
    const spans = await waitFor(
      async () => inTrace(),
      (found) =>
        found.filter((span) => span.name === 'process availabilityRequest:changed').length === 3 &&
        found.filter((span) => span.name === 'publish availabilityRequest:changed').length === 3 &&
        found.some((span) => span.kind === SERVER),
      15_000,
    );

    // A: the HTTP span continues the caller's span.
    const http = only(
      spans,
      (span) => span.kind === SERVER && span.attributes['url.path'] === '/availability-requests',
    );
    expect({
      service: http.service,
      parent: http.parentSpanId,
      status: http.attributes['http.response.status_code'],
    }).toEqual({
      service: 'gateway-a',
      parent: callerSpanId,
      status: 201,
    });
    // C: the task's span, a child of A's HTTP span through the context stored with the task.
    const task = only(spans, (span) => span.name === 'gathering task');
    expect({
      service: task.service,
      kind: task.kind,
      parent: task.parentSpanId,
      attributes: task.attributes,
    }).toEqual({
      service: worker,
      kind: CONSUMER,
      parent: http.spanId,
      attributes: {
        'gateway.gathering.task_id': expect.any(Number),
        'gateway.gathering.attempt': 1,
        'gateway.source.key': TRACED_SOURCE_KEY,
        'gateway.source.type': 'http',
        'gateway.availability_request.id': requestId,
      },
    });
    // The supplier call: a client span under the task, whose traceparent the supplier received.
    const call = only(
      spans,
      (span) =>
        span.kind === CLIENT &&
        span.service === worker &&
        span.parentSpanId === task.spanId &&
        String(span.attributes['url.full']).includes('/suppliers/kpn-wba/availability'),
    );
    const received = proxy.calls().filter((each) => each.path.startsWith('/suppliers/kpn-wba/availability'));
    expect(received.map((each) => each.traceparent)).toEqual([`00-${callerTraceId}-${call.spanId}-01`]);
    // The event the task's completion wrote, in the same trace.
    const event = only(spans, (span) => span.name.startsWith('create ') && span.parentSpanId === task.spanId);
    expect({
      service: event.service,
      name: event.name,
      parent: event.parentSpanId,
      subject: event.attributes['gateway.event.subject_id'],
    }).toEqual({
      service: worker,
      name: 'create availabilityRequest:changed',
      parent: task.spanId,
      subject: requestId,
    });
    if (shared) {
      // PostgreSQL's commands, each under the span it ran in: the create's under A's HTTP span, the
      // completion's under C's task span.
      const queries = (parent: string) =>
        spans.filter(
          (span) => span.parentSpanId === parent && span.attributes['db.system.name'] === 'postgresql',
        );
      expect(queries(http.spanId).map((span) => span.name)).toContainEqual(
        expect.stringMatching(/^pg\.query:WITH /),
      );
      expect(queries(task.spanId).map((span) => span.name)).toContainEqual(
        expect.stringMatching(/^pg\.query:complete_tasks /),
      );
      // The wake-ups the task's writes caused run outside its trace: no claim of another worker joins it.
      expect(spans.filter((span) => /^pg\.query:(supplier_orders_claim|claim)/.test(span.name))).toEqual([]);
    }
    // And the `created` event A wrote with the request, under A's HTTP span.
    const created = only(
      spans,
      (span) => span.name.startsWith('create ') && span.parentSpanId === http.spanId,
    );
    expect([created.service, created.attributes['gateway.event.subject_id']]).toEqual([
      'gateway-a',
      requestId,
    ]);
    // Each event: published by the relay (on PostgreSQL by A or C, whichever holds the relay's lease: B does
    // not relay) under its `create` span — the claim's `started` event, which keeps the context stored with
    // the task and has no `create` span, under the HTTP span — then processed once where its subscriber is,
    // under the publish.
    const system = shared ? 'redis' : 'in-process';
    for (const parent of [created, http, event]) {
      const publish = only(
        spans,
        (span) => span.name === 'publish availabilityRequest:changed' && span.parentSpanId === parent.spanId,
      );
      expect(shared ? ['gateway-a', 'gateway-c'] : ['gateway-a']).toContain(publish.service);
      expect([publish.kind, publish.attributes]).toEqual([
        PRODUCER,
        {
          'messaging.system': system,
          'messaging.operation.type': 'send',
          'messaging.operation.name': 'publish',
          'messaging.destination.name': 'availabilityRequest:changed',
          'gateway.event.subject_id': requestId,
        },
      ]);
      const processed = spans.filter((span) => span.parentSpanId === publish.spanId);
      expect(processed.map((span) => [span.name, span.service, span.kind, span.attributes])).toEqual([
        [
          'process availabilityRequest:changed',
          delivering,
          CONSUMER,
          {
            'messaging.system': system,
            'messaging.operation.type': 'process',
            'messaging.operation.name': 'process',
            'messaging.destination.name': 'availabilityRequest:changed',
            'messaging.message.id': expect.any(String),
          },
        ],
      ]);
    }
    // The subscriber received the request's states: created, started (the claim's event), done.
    const states = await waitFor(
      async () =>
        subscriber.updates.filter((update) => update.id === requestId).map((update) => update.status),
      (found) => found.includes('COMPLETED'),
    );
    expect(states).toEqual(['PENDING', 'IN_PROGRESS', 'COMPLETED']);
    // Log lines written inside the trace carry its ids.
    const logged = processes
      .flatMap((each) => each.output().split('\n'))
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.trace_id === callerTraceId);
    expect(logged.map((line) => [line.msg, line.span_id])).toContainEqual(['request completed', http.spanId]);
  });

  it('when a caller’s traceparent is not sampled, then its context reaches the supplier with the sampled flag off and no span of its trace is exported', async () => {
    const unsampledTraceId = '0af7651916cd43dd8448eb211c80319c';
    await createTracedRequest(api, { traceId: unsampledTraceId, spanId: 'b7ad6b7169203331', sampled: false });
    const received = proxy.calls().filter((each) => each.traceparent?.includes(unsampledTraceId));
    expect(
      received.map((each) => [
        each.path.split('?')[0],
        each.traceparent?.replace(/-[0-9a-f]{16}-/, '-<span>-'),
      ]),
    ).toEqual([['/suppliers/kpn-wba/availability', `00-${unsampledTraceId}-<span>-00`]]);
    // A sampled request after it, through the same processes: once its task's spans are exported, the
    // unsampled one's would have been too (each process exports its spans in the order they ended).
    const laterTraceId = '7c3f1e2d4b5a69788796a5b4c3d2e1f0';
    await createTracedRequest(api, { traceId: laterTraceId, spanId: 'a1b2c3d4e5f60718' });
    await waitFor(
      async () => receiver.spans().filter((span) => span.traceId === laterTraceId),
      (found) =>
        found.some((span) => span.name === 'gathering task') && found.some((span) => span.kind === SERVER),
      15_000,
    );
    expect(receiver.spans().filter((span) => span.traceId === unsampledTraceId)).toEqual([]);
  });

  it('when an order is placed with a traceparent, then its supplier order step continues that trace and the placement sent to the supplier carries it', async () => {
    const worker = shared ? 'gateway-c' : 'gateway-a';
    const gathered = await createTracedRequest(api, {
      traceId: '11111111111111111111111111111111',
      spanId: '1111111111111111',
    });
    const { body: read } = await api.request('GET', `/availability-requests/${gathered}`);
    const customer = await api.request('POST', '/customers', { name: 'Traced Customer B.V.' });
    const quote = await api.request('POST', '/quotes', {
      name: 'Traced head office',
      customer_id: customer.body.data.id,
      availability_request_product_ids: [read.data.products[0].id],
    });
    expect(quote.status).toBe(201);
    const caller = { traceId: '22222222222222222222222222222222', spanId: '2222222222222222' };

    const placed = await fetch(`${api.base}/orders`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-auth-token': api.token,
        traceparent: `00-${caller.traceId}-${caller.spanId}-01`,
      },
      body: JSON.stringify({ quote_id: quote.body.data.id }),
    });

    expect(placed.status).toBe(201);
    const spans = await waitFor(
      async () => receiver.spans().filter((span) => span.traceId === caller.traceId),
      (found) =>
        found.some((span) => span.name === 'supplier order step') &&
        found.some(
          (span) => span.kind === CLIENT && String(span.attributes['url.full']).includes('/orders'),
        ) &&
        // A step's record wrote an event, and the relay published it.
        found.some(
          (event) =>
            event.name === 'publish order:changed' &&
            found.some(
              (create) =>
                create.spanId === event.parentSpanId &&
                found.some(
                  (record) =>
                    record.spanId === create.parentSpanId && record.name === 'supplier order record',
                ),
            ),
        ),
      20_000,
    );
    const http = only(spans, (span) => span.kind === SERVER && span.attributes['url.path'] === '/orders');
    // Each step of the supplier order (the placement, then reads of it) continues the order's trace.
    const steps = spans.filter((span) => span.name === 'supplier order step');
    expect(steps.map((each) => [each.parentSpanId, each.service, each.kind])).toEqual(
      steps.map(() => [http.spanId, worker, CONSUMER]),
    );
    expect(http.parentSpanId).toBe(caller.spanId);
    const created = only(
      spans,
      (span) => span.name.startsWith('create ') && span.parentSpanId === http.spanId,
    );
    expect([created.name, created.attributes['gateway.event.subject_id']]).toEqual([
      'create order:changed',
      ((await placed.json()) as { data: { id: string } }).data.id,
    ]);
    // The placement reached the supplier with the traceparent of its client span, under a step.
    const [placement] = proxy
      .calls()
      .filter((call) => call.method === 'POST' && call.path === '/suppliers/kpn-wba/orders');
    const placementSpan = only(
      spans,
      (span) => span.kind === CLIENT && placement?.traceparent === `00-${caller.traceId}-${span.spanId}-01`,
    );
    expect([
      placementSpan.attributes['http.request.method'],
      steps.some((each) => each.spanId === placementSpan.parentSpanId),
    ]).toEqual(['POST', true]);
    // Each step's record is a span under the step, and the events the records wrote are in the trace.
    const records = spans.filter((span) => span.name === 'supplier order record');
    expect(
      records.map((each) => [
        each.service,
        each.kind,
        steps.some((step) => step.spanId === each.parentSpanId),
      ]),
    ).toEqual(records.map(() => [worker, INTERNAL, true]));
    const recordEvents = spans.filter(
      (span) =>
        span.name === 'create order:changed' && records.some((each) => each.spanId === span.parentSpanId),
    );
    expect(recordEvents.length).toBeGreaterThan(0);
    expect(recordEvents.map((each) => [each.service, each.kind])).toEqual(
      recordEvents.map(() => [worker, PRODUCER]),
    );
  });

  it('when a GraphQL operation arrives with a traceparent, then one span for the operation is a child of its HTTP span', async () => {
    const [a] = processes;
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const response = await fetch(`${a?.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-auth-token': api.token,
        traceparent: `00-${traceId}-b7ad6b7169203331-01`,
      },
      body: JSON.stringify({ query: 'query Sources { sources { key } }' }),
    });
    expect(await response.json()).toEqual({
      data: { sources: expect.arrayContaining([{ key: TRACED_SOURCE_KEY }]) },
    });
    const spans = await waitFor(
      async () => receiver.spans().filter((span) => span.traceId === traceId),
      (found) =>
        found.some((span) => span.name === 'query.Sources') && found.some((span) => span.kind === SERVER),
      15_000,
    );
    const http = only(spans, (span) => span.kind === SERVER);
    const operation = only(spans, (span) => span.name === 'query.Sources');
    expect([
      http.parentSpanId,
      operation.parentSpanId,
      operation.attributes['graphql.execute.operationType'],
    ]).toEqual(['b7ad6b7169203331', http.spanId, 'query']);
    // One span per operation: none per resolver.
    expect(spans.filter((span) => span.service === 'gateway-a' && span.name.startsWith('Query.'))).toEqual(
      [],
    );
  });

  it('when the Mercure hub is asked with a token in its query, then the HTTP span records the query with the token redacted', async () => {
    const [a] = processes;
    const traceId = '5d2a4c8e9f0b1a3c7e6d5b4a39281706';
    const response = await fetch(`${a?.url}/.well-known/mercure?topic=x&authorization=eyJ.secret.token`, {
      headers: { traceparent: `00-${traceId}-c1d2e3f4a5b6c7d8-01` },
    });
    await response.body?.cancel();
    const spans = await waitFor(
      async () => receiver.spans().filter((span) => span.traceId === traceId && span.kind === SERVER),
      (found) => found.length === 1,
      15_000,
    );
    expect(only(spans, () => true).attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.path': '/.well-known/mercure',
      'url.query': 'topic=x&authorization=REDACTED',
      'http.response.status_code': response.status,
    });
  });
});
