/**
 * When and how to trace, from the standard OpenTelemetry environment variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/): whether, the OTLP
 * protocol and the propagators here; the SDK's pieces read the rest themselves (see
 * `./register.ts`: the sampler, span limits and batch settings by `@opentelemetry/sdk-trace-base`,
 * endpoint, headers, timeout and compression by the OTLP exporter, the resource by `@opentelemetry/resources`).
 */

/** The OpenTelemetry variables that decide whether traces are exported. */
export type TracingEnv = Partial<
  Record<
    | 'OTEL_SDK_DISABLED'
    | 'OTEL_TRACES_EXPORTER'
    | 'OTEL_EXPORTER_OTLP_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    string
  >
>;

/**
 * Whether to trace: only when an OTLP endpoint is configured (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), the SDK is not disabled (`OTEL_SDK_DISABLED=true`) and the traces
 * exporter is not `none` (`OTEL_TRACES_EXPORTER`). Off by default: without an endpoint the SDK would send
 * to `localhost:4318`, which a service that was not asked to trace must not do.
 */
export function tracingConfigured(env: TracingEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase());
  if (exporters.includes('none')) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The OTLP encodings this service exports traces in: both over HTTP (`/v1/traces`). */
export type TracesProtocol = 'http/protobuf' | 'http/json';

/**
 * The OTLP protocol for traces: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else
 * `http/protobuf` (the specification's default). `grpc` is refused: the service ships the OTLP/HTTP
 * exporters only (gRPC would bring `@grpc/grpc-js` and its protobuf runtime into every image for a choice
 * a collector makes just as well on port 4318), and sending OTLP/HTTP to a gRPC port (4317) would lose
 * every span without a word.
 *
 * @throws Error naming the variable and the supported values when the protocol is `grpc` or unknown.
 */
export function tracesProtocol(
  env: Partial<Record<'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' | 'OTEL_EXPORTER_OTLP_PROTOCOL', string>>,
): TracesProtocol {
  const [name, raw] = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim()
    ? ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL]
    : ['OTEL_EXPORTER_OTLP_PROTOCOL', env.OTEL_EXPORTER_OTLP_PROTOCOL];
  const protocol = raw?.trim().toLowerCase() || 'http/protobuf';
  if (protocol === 'http/protobuf' || protocol === 'http/json') return protocol;
  throw new Error(
    `${name}=${raw?.trim()}: traces are exported over OTLP/HTTP only — set http/protobuf (the default) or ` +
      'http/json and point the endpoint at the collector’s OTLP/HTTP port (4318)' +
      (protocol === 'grpc' ? '; gRPC (4317) is not supported' : ''),
  );
}

/** The propagators this service can install, by their `OTEL_PROPAGATORS` names. */
export type PropagatorName = 'tracecontext' | 'baggage';

/**
 * The propagators `OTEL_PROPAGATORS` asks for (comma-separated; `tracecontext,baggage` when unset or blank,
 * none for `none`), in order, without duplicates; names this service does not ship (`b3`, `b3multi`,
 * `jaeger`, `xray`, `ottrace`, …) are returned apart, for a warning.
 */
export function propagatorNames(env: Partial<Record<'OTEL_PROPAGATORS', string>>): {
  use: PropagatorName[];
  unsupported: string[];
} {
  const names = (env.OTEL_PROPAGATORS ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0) return { use: ['tracecontext', 'baggage'], unsupported: [] };
  if (names.includes('none')) return { use: [], unsupported: [] };
  const use = new Set<PropagatorName>();
  const unsupported: string[] = [];
  for (const name of names) {
    if (name === 'tracecontext' || name === 'baggage') use.add(name);
    else unsupported.push(name);
  }
  return { use: [...use], unsupported };
}

/**
 * The instrumentations this service ships, by the names the OpenTelemetry Node auto-instrumentation gives
 * them (the package name without `@opentelemetry/instrumentation-`): incoming HTTP requests, undici
 * (supplier calls, `fetch`), `pg` and `ioredis`.
 */
export const instrumentationNames = ['http', 'undici', 'pg', 'ioredis'] as const;

/** One of {@link instrumentationNames}. */
export type InstrumentationName = (typeof instrumentationNames)[number];

/**
 * The instrumentations to load, as `@opentelemetry/auto-instrumentations-node` reads its variables
 * (https://opentelemetry.io/docs/zero-code/js/configuration/#excluding-instrumentation-libraries):
 * `OTEL_NODE_ENABLED_INSTRUMENTATIONS` (comma-separated names, e.g. `undici,pg`) keeps only those, then
 * `OTEL_NODE_DISABLED_INSTRUMENTATIONS` takes names away, so a name in both is off; all of them when neither
 * is set. Names are {@link instrumentationNames}, case-insensitive; others (`express`, `fs`, …) are returned
 * apart, for a warning. Without `http`, incoming requests start no span, so the work they cause — tasks,
 * supplier calls, events — is traced only where a span was started for it (a task without a stored trace
 * starts a trace of its own).
 */
export function enabledInstrumentations(
  env: Partial<Record<'OTEL_NODE_ENABLED_INSTRUMENTATIONS' | 'OTEL_NODE_DISABLED_INSTRUMENTATIONS', string>>,
): { use: InstrumentationName[]; unknown: string[] } {
  const unknown: string[] = [];
  const listed = (raw: string | undefined): Set<InstrumentationName> | null => {
    const names = (raw ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
    if (names.length === 0) return null;
    const known = new Set<InstrumentationName>();
    for (const name of names) {
      const found = instrumentationNames.find((candidate) => candidate === name);
      if (found) known.add(found);
      else if (!unknown.includes(name)) unknown.push(name);
    }
    return known;
  };
  const enabled = listed(env.OTEL_NODE_ENABLED_INSTRUMENTATIONS);
  const disabled = listed(env.OTEL_NODE_DISABLED_INSTRUMENTATIONS);
  const use = instrumentationNames.filter(
    (name) => (enabled === null || enabled.has(name)) && !disabled?.has(name),
  );
  return { use, unknown };
}
