/**
 * Starts OpenTelemetry tracing in this process when the environment configures it (issue 37), before the
 * service's modules load: `src/main.ts` and `src/worker-main.ts` call {@link startTracing} and only then
 * import the service, under `npm start` (tsx) and `npm run start:prod` (compiled) alike. The
 * instrumentations patch `node:http`, `pg` and `ioredis` as they are imported — through
 * import-in-the-middle's loader hook for ES modules, registered here for just the modules they name — and
 * follow undici (the supplier calls and `fetch`) through its diagnostics channels.
 */
import { register } from 'node:module';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import {
  enabledInstrumentations,
  type InstrumentationName,
  instrumentationNames,
  propagatorNames,
  type TracingEnv,
  tracesProtocol,
  tracingConfigured,
} from './config.js';
import { loadGraphqlTracing } from './graphql-tracing.js';
import { batchSettingsFromEnv, type SdkEnv, samplerFromEnv, spanLimitsFromEnv } from './sdk-env.js';
import { markTracingOn, tracingOn } from './state.js';

/** Stops the tracer provider, sending the spans it still holds; set once tracing started. */
let shutdown: (() => Promise<void>) | null = null;

/** Paths never traced: probes and metrics scrapes would be most of the spans and say nothing. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** The variables {@link startTracing} reads itself (the SDK's pieces read the others from `process.env`). */
type StartEnv = TracingEnv &
  SdkEnv &
  Partial<
    Record<
      | 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
      | 'OTEL_EXPORTER_OTLP_PROTOCOL'
      | 'OTEL_PROPAGATORS'
      | 'OTEL_NODE_ENABLED_INSTRUMENTATIONS'
      | 'OTEL_NODE_DISABLED_INSTRUMENTATIONS',
      string
    >
  >;

/**
 * Starts OpenTelemetry tracing with OTLP/HTTP export when {@link tracingConfigured} says so, else does
 * nothing (and nothing of the SDK is loaded). Built from the SDK's pieces rather than
 * `@opentelemetry/sdk-node`, which brings every exporter of every signal (gRPC, Zipkin, Prometheus, logs,
 * metrics; BENCHMARKS.md, "Tracing"): a `TracerProvider` (`@opentelemetry/sdk-trace` 3.x) with a batch span
 * processor and the OTLP/HTTP trace exporter, protobuf or JSON ({@link tracesProtocol}; gRPC is refused with
 * an error naming the variable), registered as the global provider with AsyncLocalStorage as the context
 * manager (`@opentelemetry/context-async-hooks`; on Node 24 AsyncLocalStorage runs on AsyncContextFrame, no
 * promise hooks) and the chosen propagators.
 *
 * Traces: incoming and outgoing HTTP (W3C `traceparent` taken from requests and sent on supplier calls, by
 * `@opentelemetry/instrumentation-http` and `-undici`), PostgreSQL and Redis commands inside a traced
 * operation (`-pg`, `-ioredis`), GraphQL operations (`src/server/graphql.ts`), and the gathering and order
 * tasks (`./trace-context.ts`).
 *
 * Standard variables honoured: `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` (the service is
 * `connectivity-gateway` unless they name it; host, OS and process attributes are detected as the Node SDK
 * does), `OTEL_TRACES_SAMPLER(_ARG)`, the span limits and `OTEL_BSP_*` (read by `./sdk-env.ts`, as
 * `@opentelemetry/sdk-node` reads them), `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT`, `_HEADERS`, `_TIMEOUT`,
 * `_COMPRESSION` and the certificate variables (read by the exporter), `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`
 * and `OTEL_PROPAGATORS` (`tracecontext`, `baggage`, `none`; others are ignored with a warning), and
 * `OTEL_NODE_ENABLED_INSTRUMENTATIONS` / `OTEL_NODE_DISABLED_INSTRUMENTATIONS` (which of `http`, `undici`, `pg`,
 * `ioredis` to load, as the Node auto-instrumentation reads them; {@link enabledInstrumentations}).
 * Metrics stay on Prometheus (`/metrics`) and logs on standard output: only traces are exported.
 *
 * Must run before `node:http`, `pg` or `ioredis` are first imported; call it once.
 *
 * @throws Error when `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL` is `grpc` or unknown (before anything starts).
 */
export async function startTracing(env: StartEnv & Record<string, string | undefined>): Promise<void> {
  if (tracingOn() || !tracingConfigured(env)) return;
  const protocol = tracesProtocol(env);
  const propagators = propagatorNames(env);
  if (propagators.unsupported.length > 0)
    process.emitWarning(
      `OTEL_PROPAGATORS: ${propagators.unsupported.join(', ')} not supported, ignored (supported: tracecontext, baggage, none)`,
      'TracingWarning',
    );
  const instrumentationChoice = enabledInstrumentations(env);
  if (instrumentationChoice.unknown.length > 0)
    process.emitWarning(
      `OTEL_NODE_ENABLED_INSTRUMENTATIONS / OTEL_NODE_DISABLED_INSTRUMENTATIONS: ${instrumentationChoice.unknown.join(', ')} not known, ignored (known: ${instrumentationNames.join(', ')})`,
      'TracingWarning',
    );
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const [
    api,
    sdk,
    resources,
    core,
    { AsyncLocalStorageContextManager },
    { OTLPTraceExporter },
    { registerInstrumentations },
    instrumentations,
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/core'),
    import('@opentelemetry/context-async-hooks'),
    protocol === 'http/json'
      ? import('@opentelemetry/exporter-trace-otlp-http')
      : import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/instrumentation'),
    loadInstrumentations(instrumentationChoice.use),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'connectivity-gateway' }))
    .merge(
      resources.detectResources({
        detectors: [
          resources.hostDetector,
          resources.osDetector,
          resources.processDetector,
          resources.envDetector,
        ],
      }),
    );
  const provider = new sdk.TracerProvider({
    resource,
    sampler: samplerFromEnv(env, sdk),
    spanLimits: spanLimitsFromEnv(env),
    spanProcessors: [
      new sdk.BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...batchSettingsFromEnv(env) }),
    ],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(
    new core.CompositePropagator({
      propagators: propagators.use.map((name) =>
        name === 'tracecontext' ? new core.W3CTraceContextPropagator() : new core.W3CBaggagePropagator(),
      ),
    }),
  );
  api.trace.setGlobalTracerProvider(provider);
  registerInstrumentations({ tracerProvider: provider, instrumentations });
  await waitForAllMessagesAcknowledged();
  await loadGraphqlTracing();
  markTracingOn();
  shutdown = () => provider.shutdown();
}

/**
 * The query parameters whose values a server span records as `REDACTED` in `url.query`: the Mercure hub's
 * subscriber token (`src/rest/mercure.ts`; the Mercure spec's `authorization` parameter).
 */
const REDACTED_QUERY_PARAMETERS = ['authorization', 'Authorization'];

/**
 * The instrumentations named in `names`, each registering its import-in-the-middle hook as it is made
 * (only the chosen packages are loaded): incoming HTTP requests (`@opentelemetry/instrumentation-http`:
 * one `SERVER` span per request, its `traceparent` honoured, probes and scrapes left out, the Mercure token
 * redacted), undici (supplier calls, `fetch`; through its diagnostics channels), `pg` and `ioredis`.
 * Outgoing spans only inside a traced operation — claims, polls and relay rounds run outside any request,
 * and without a parent they would be a trace each.
 */
async function loadInstrumentations(names: readonly InstrumentationName[]): Promise<Instrumentation[]> {
  const made: Record<InstrumentationName, () => Promise<Instrumentation>> = {
    http: async () =>
      new (await import('@opentelemetry/instrumentation-http')).HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
        requireParentforOutgoingSpans: true,
        redactedQueryParamsServer: REDACTED_QUERY_PARAMETERS,
      }),
    undici: async () =>
      new (await import('@opentelemetry/instrumentation-undici')).UndiciInstrumentation({
        requireParentforSpans: true,
      }),
    pg: async () =>
      new (await import('@opentelemetry/instrumentation-pg')).PgInstrumentation({ requireParentSpan: true }),
    ioredis: async () =>
      new (await import('@opentelemetry/instrumentation-ioredis')).IORedisInstrumentation({
        requireParentSpan: true,
      }),
  };
  return Promise.all(names.map((name) => made[name]()));
}

/**
 * Sends the spans the tracer provider still holds and stops it (at the end of a graceful stop); resolves at
 * once when tracing is off. Never rejects: a collector that is away must not fail the shutdown.
 */
export async function stopTracing(): Promise<void> {
  const stop = shutdown;
  shutdown = null;
  await stop?.().catch(() => undefined);
}
