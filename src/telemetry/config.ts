/**
 * When tracing is on, from the standard OpenTelemetry environment variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/); the SDK itself
 * reads the rest of them (`OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`,
 * `OTEL_EXPORTER_OTLP_PROTOCOL`, headers, timeouts, `OTEL_PROPAGATORS`, …).
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
