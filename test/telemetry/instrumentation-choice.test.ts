import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDatabasePath } from '../helpers/app.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { waitFor } from '../helpers/wait.js';
import type { GatewayApi } from '../scale-out/sonata-ordering.js';
import {
  createTracedRequest,
  only,
  SpanKinds,
  signedInToTracedSource,
  startTracingPeers,
  type TracingPeers,
  tracingEnv,
} from './traced-request.js';

/*
 * Issue 37: which instrumentations load follows OTEL_NODE_ENABLED_INSTRUMENTATIONS and
 * OTEL_NODE_DISABLED_INSTRUMENTATIONS, as the Node auto-instrumentation reads them. With `http` disabled no
 * request gets a server span, so a caller's traceparent is not continued and the gathering task, queued with
 * no trace, starts a trace of its own, in which undici still traces the supplier call. One process on SQLite
 * (the choice is the process's, not the store's).
 */

const { SERVER, CLIENT, CONSUMER } = SpanKinds;
const callerTraceId = '0af7651916cd43dd8448eb211c80319c';
const callerSpanId = 'b7ad6b7169203331';

describe.skipIf(process.env.TEST_DATABASE === 'postgres')('instrumentations chosen by environment', () => {
  let peers: TracingPeers;
  let database: { path: string; remove(): void };
  let gateway: GatewayProcess | undefined;
  let api: GatewayApi;

  beforeAll(async () => {
    peers = await startTracingPeers();
    database = tempDatabasePath();
    gateway = await startGatewayProcess({
      env: {
        DATABASE_URL: database.path,
        LOG_LEVEL: 'info',
        GATHERING_IDLE_POLL_MS: '50',
        SEED_DEMO: 'true',
        ...tracingEnv(peers.receiver, 'gateway-no-http'),
        OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,undici,express',
        OTEL_NODE_DISABLED_INSTRUMENTATIONS: ' HTTP ,fs',
      },
      readyTimeoutMs: 90_000,
    });
    api = await signedInToTracedSource(gateway, peers.proxy.url);
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await peers?.close();
    database?.remove();
  });

  it('when http is disabled, then no request has a server span, the task starts its own trace and the supplier call is traced in it', async () => {
    const requestId = await createTracedRequest(api, { traceId: callerTraceId, spanId: callerSpanId });
    const spans = await waitFor(
      async () => peers.receiver.spans(),
      (found) =>
        found.some(
          (span) =>
            span.name === 'gathering task' &&
            span.attributes['gateway.availability_request.id'] === requestId,
        ) && found.some((span) => span.kind === CLIENT),
      15_000,
    );
    const task = only(
      spans,
      (span) =>
        span.name === 'gathering task' && span.attributes['gateway.availability_request.id'] === requestId,
    );
    const call = only(spans, (span) => span.kind === CLIENT && span.parentSpanId === task.spanId);
    expect({
      serverSpans: spans.filter((span) => span.kind === SERVER).length,
      callerTrace: spans.filter((span) => span.traceId === callerTraceId).length,
      task: { kind: task.kind, root: task.parentSpanId === '' },
      call: { trace: call.traceId === task.traceId, url: String(call.attributes['url.full']) },
      supplierHeard: peers.proxy.calls().map((received) => received.traceparent),
    }).toEqual({
      serverSpans: 0,
      callerTrace: 0,
      task: { kind: CONSUMER, root: true },
      call: { trace: true, url: expect.stringContaining('/suppliers/kpn-wba/availability') },
      supplierHeard: [`00-${task.traceId}-${call.spanId}-01`],
    });
  });

  it('when a name is not one the service ships, then it says so at start and ignores it', () => {
    expect(gateway?.output()).toContain(
      'TracingWarning: OTEL_NODE_ENABLED_INSTRUMENTATIONS / OTEL_NODE_DISABLED_INSTRUMENTATIONS: express, fs not known, ignored (known: http, undici, pg, ioredis)',
    );
  });
});
