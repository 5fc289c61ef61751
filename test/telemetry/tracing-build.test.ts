import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/build.js';
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
 * Issue 37: tracing works under `npm run start:prod` as under `npm start` — the compiled build, run with plain
 * node, registers the SDK and its loader hook before the service's modules load. Built as
 * test/scale-out/production-build.test.ts builds (once, in the SQLite project: the build is the same).
 */

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const { SERVER, CLIENT, PRODUCER, CONSUMER } = SpanKinds;

describe.skipIf(process.env.TEST_DATABASE === 'postgres')('tracing in the production build', () => {
  let deployment: string;
  let peers: TracingPeers;
  let gateway: GatewayProcess | undefined;
  let api: GatewayApi;

  beforeAll(async () => {
    peers = await startTracingPeers();
    deployment = mkdtempSync(join(tmpdir(), 'gateway-traced-build-'));
    build({ outDir: join(deployment, 'dist'), typeCheck: false });
    copyFileSync(join(projectRoot, 'package.json'), join(deployment, 'package.json'));
    symlinkSync(join(projectRoot, 'node_modules'), join(deployment, 'node_modules'));
    symlinkSync(join(projectRoot, 'data'), join(deployment, 'data'));
    gateway = await startGatewayProcess({
      build: join(deployment, 'dist'),
      env: {
        DATABASE_URL: join(deployment, 'gateway.db'),
        SEED_DEMO: 'true',
        LOG_LEVEL: 'info',
        GATHERING_IDLE_POLL_MS: '50',
        ...tracingEnv(peers.receiver, 'gateway-build'),
      },
      readyTimeoutMs: 90_000,
    });
    api = await signedInToTracedSource(gateway, peers.proxy.url);
  }, 240_000);

  afterAll(async () => {
    await gateway?.stop();
    await peers?.close();
    if (deployment) rmSync(deployment, { recursive: true, force: true });
  });

  it('when the build serves a request with a traceparent, then the HTTP, task, supplier-call and event spans form one trace', async () => {
    const caller = { traceId: '5b8aa5a2d2c872e8321cf37308d69df2', spanId: '051581bf3cb55c13' };

    const requestId = await createTracedRequest(api, caller);

    // Until the three events are published: the `created` one of the HTTP span, the claim's `started` one in
    // the context stored with the task (the HTTP span's), the task's of the task's span.
    const spans = await waitFor(
      async () => peers.receiver.spans().filter((span) => span.traceId === caller.traceId),
      (found) =>
        found.filter((span) => span.name === 'publish availabilityRequest:changed').length === 3 &&
        found.some((span) => span.kind === SERVER),
      15_000,
    );
    const http = only(
      spans,
      (span) => span.kind === SERVER && span.attributes['url.path'] === '/availability-requests',
    );
    const task = only(spans, (span) => span.kind === CONSUMER && span.name === 'gathering task');
    const call = only(spans, (span) => span.kind === CLIENT && span.parentSpanId === task.spanId);
    const event = only(spans, (span) => span.kind === PRODUCER && span.parentSpanId === task.spanId);
    const publish = only(spans, (span) => span.kind === PRODUCER && span.parentSpanId === event.spanId);
    // The claim's `started` event keeps the context stored with the task: it is published under the HTTP span.
    const started = only(
      spans,
      (span) => span.name === 'publish availabilityRequest:changed' && span.parentSpanId === http.spanId,
    );
    expect({
      service: http.service,
      httpParent: http.parentSpanId,
      taskParent: task.parentSpanId,
      eventParent: event.parentSpanId,
      eventSubject: event.attributes['gateway.event.subject_id'],
      publish: [publish.name, publish.service],
      started: started.attributes['gateway.event.subject_id'],
    }).toEqual({
      service: 'gateway-build',
      httpParent: caller.spanId,
      taskParent: http.spanId,
      eventParent: task.spanId,
      eventSubject: requestId,
      publish: ['publish availabilityRequest:changed', 'gateway-build'],
      started: requestId,
    });
    expect(peers.proxy.calls().map((each) => each.traceparent)).toEqual([
      `00-${caller.traceId}-${call.spanId}-01`,
    ]);
  });

  it('when the build is told to export over gRPC, then it refuses to start and names the variable and the port to use', async () => {
    const started = promisify(execFile)(process.execPath, [join(deployment, 'dist', 'main.js')], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: join(deployment, 'refused.db'),
        PORT: '0',
        OTEL_EXPORTER_OTLP_ENDPOINT: peers.receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      },
      timeout: 60_000,
    });

    const failure = await started.then(
      () => null,
      (error: Error & { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain(
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc: traces are exported over OTLP/HTTP only — set http/protobuf (the default) ' +
        'or http/json and point the endpoint at the collector’s OTLP/HTTP port (4318); gRPC (4317) is not supported',
    );
  }, 90_000);
});
