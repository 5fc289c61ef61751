/**
 * Starts OpenTelemetry tracing in this process when the environment configures it (issue 37), before the
 * service's modules load: `src/main.ts` and `src/worker-main.ts` call {@link startTracing} and only then
 * import the service, under `npm start` (tsx) and `npm run start:prod` (compiled) alike. The
 * instrumentations patch `node:http`, `pg` and `ioredis` as they are imported — through
 * import-in-the-middle's loader hook for ES modules, registered here for just the modules they name — and
 * follow undici (the supplier calls and `fetch`) through its diagnostics channels.
 */
import { register } from 'node:module';
import { type TracingEnv, tracingConfigured } from './config.js';
import { loadGraphqlTracing } from './graphql-tracing.js';
import { markTracingOn, tracingOn } from './state.js';

/** Stops the SDK, sending the spans it still holds; set once tracing started. */
let shutdown: (() => Promise<void>) | null = null;

/** Paths never traced: probes and metrics scrapes would be most of the spans and say nothing. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Starts the OpenTelemetry Node SDK with OTLP export when {@link tracingConfigured} says so, else does
 * nothing (and nothing of the SDK is loaded). Traces: incoming and outgoing HTTP (W3C `traceparent` taken
 * from requests and sent on supplier calls, by `@opentelemetry/instrumentation-http` and `-undici`),
 * PostgreSQL and Redis commands inside a traced operation (`-pg`, `-ioredis`), GraphQL operations
 * (`src/server/graphql.ts`), and the gathering and order tasks (`./trace-context.ts`). The SDK reads the
 * rest of the standard variables itself: `OTEL_SERVICE_NAME` (`connectivity-gateway` when neither it nor
 * `OTEL_RESOURCE_ATTRIBUTES` names the service), `OTEL_TRACES_SAMPLER(_ARG)`,
 * `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` (`http/protobuf` by default, `http/json`), headers and timeouts.
 * Metrics stay on Prometheus (`/metrics`) and logs on standard output: the SDK exports traces only.
 *
 * Must run before `node:http`, `pg` or `ioredis` are first imported; call it once.
 */
export async function startTracing(env: TracingEnv & Record<string, string | undefined>): Promise<void> {
  if (tracingOn() || !tracingConfigured(env)) return;
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const [{ NodeSDK }, { HttpInstrumentation }, { UndiciInstrumentation }, { PgInstrumentation }, ioredis] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-undici'),
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/instrumentation-ioredis'),
    ]);
  const named = env.OTEL_SERVICE_NAME?.trim() || env.OTEL_RESOURCE_ATTRIBUTES?.includes('service.name=');
  const sdk = new NodeSDK({
    ...(named ? {} : { serviceName: 'connectivity-gateway' }),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
        requireParentforOutgoingSpans: true,
      }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
      // Claims, polls and relay rounds run outside any request: without a parent they would be a trace each.
      new PgInstrumentation({ requireParentSpan: true }),
      new ioredis.IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  await loadGraphqlTracing();
  markTracingOn();
  shutdown = () => sdk.shutdown();
}

/**
 * Sends the spans the SDK still holds and stops it (at the end of a graceful stop); resolves at once when
 * tracing is off. Never rejects: a collector that is away must not fail the shutdown.
 */
export async function stopTracing(): Promise<void> {
  const stop = shutdown;
  shutdown = null;
  await stop?.().catch(() => undefined);
}
