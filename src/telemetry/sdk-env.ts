/**
 * The tracer provider's settings from the standard OpenTelemetry environment variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/): the sampler, the span
 * limits and the batch span processor's queue and timing. The 2.x SDK read these itself; from 3.x
 * (`@opentelemetry/sdk-trace`) only `@opentelemetry/sdk-node` does, which brings every exporter of every
 * signal (BENCHMARKS.md, "Tracing"), so the service reads them here, the way sdk-node 0.300 reads them
 * (`create-from-env`), and gives them to the provider it assembles in `./register.ts`.
 */
import type { SpanLimits } from '@opentelemetry/sdk-trace';

/** The `@opentelemetry/sdk-trace` module, passed in so that this file loads nothing of the SDK itself. */
type SdkTrace = typeof import('@opentelemetry/sdk-trace');

/** The variables read here. */
export type SdkEnv = Partial<
  Record<
    | 'OTEL_TRACES_SAMPLER'
    | 'OTEL_TRACES_SAMPLER_ARG'
    | 'OTEL_ATTRIBUTE_COUNT_LIMIT'
    | 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'
    | 'OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT'
    | 'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT'
    | 'OTEL_SPAN_EVENT_COUNT_LIMIT'
    | 'OTEL_SPAN_LINK_COUNT_LIMIT'
    | 'OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT'
    | 'OTEL_LINK_ATTRIBUTE_COUNT_LIMIT'
    | 'OTEL_BSP_MAX_QUEUE_SIZE'
    | 'OTEL_BSP_SCHEDULE_DELAY'
    | 'OTEL_BSP_EXPORT_TIMEOUT'
    | 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
    string
  >
>;

/** Something wrong in a variable, said once at start as a `TracingWarning`; the default is used instead. */
type Warn = (message: string) => void;

const warnAsProcess: Warn = (message) => process.emitWarning(message, 'TracingWarning');

/**
 * A number from `env[name]`: `undefined` when unset or blank; a value that is no finite number is warned
 * about and ignored. `positive` refuses zero and negative values too (the batch processor's settings).
 */
function numberFrom(env: SdkEnv, name: keyof SdkEnv, warn: Warn, positive = false): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || (positive && value <= 0) || value < 0) {
    warn(`${name}=${raw} is not a ${positive ? 'positive' : 'non-negative'} number, the default is used`);
    return undefined;
  }
  return value;
}

/**
 * The sampler `OTEL_TRACES_SAMPLER` names, with `OTEL_TRACES_SAMPLER_ARG` as the ratio of the two
 * `traceidratio` samplers (a number in [0, 1]; 1 when unset, and 1 with a warning when it is no number or
 * lies outside that range). `undefined`
 * when unset: the provider's own default, `parentbased_always_on`. An unknown name (`jaeger_remote`,
 * `xray`, …) is warned about and leaves the default.
 *
 * @param sdk the loaded `@opentelemetry/sdk-trace` module.
 */
export function samplerFromEnv(env: SdkEnv, sdk: SdkTrace, warn: Warn = warnAsProcess) {
  const name = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase();
  if (!name) return undefined;
  const ratio = (): number => {
    const value = numberFrom(env, 'OTEL_TRACES_SAMPLER_ARG', warn);
    if (value === undefined || value > 1) {
      if (value !== undefined) warn(`OTEL_TRACES_SAMPLER_ARG=${value} is outside [0, 1], 1 is used`);
      return 1;
    }
    return value;
  };
  switch (name) {
    case 'always_on':
      return new sdk.AlwaysOnSampler();
    case 'always_off':
      return new sdk.AlwaysOffSampler();
    case 'traceidratio':
      return new sdk.TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_on':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new sdk.ParentBasedSampler({ root: new sdk.AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new sdk.ParentBasedSampler({ root: new sdk.TraceIdRatioBasedSampler(ratio()) });
    default:
      warn(
        `OTEL_TRACES_SAMPLER=${name} is not supported, the default (parentbased_always_on) is used (supported: always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)`,
      );
      return undefined;
  }
}

/**
 * The span limits: each `OTEL_SPAN_*` / `OTEL_EVENT_*` / `OTEL_LINK_*` limit, the general
 * `OTEL_ATTRIBUTE_*_LIMIT` where the span's own is unset; the SDK's defaults (128 of each, unlimited value
 * length) for what is unset.
 */
export function spanLimitsFromEnv(env: SdkEnv, warn: Warn = warnAsProcess): SpanLimits {
  const read = (name: keyof SdkEnv) => numberFrom(env, name, warn);
  return {
    attributeCountLimit: read('OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT') ?? read('OTEL_ATTRIBUTE_COUNT_LIMIT'),
    attributeValueLengthLimit:
      read('OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT') ?? read('OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT'),
    eventCountLimit: read('OTEL_SPAN_EVENT_COUNT_LIMIT'),
    linkCountLimit: read('OTEL_SPAN_LINK_COUNT_LIMIT'),
    attributePerEventCountLimit: read('OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT'),
    attributePerLinkCountLimit: read('OTEL_LINK_ATTRIBUTE_COUNT_LIMIT'),
  };
}

/**
 * The batch span processor's settings: `OTEL_BSP_MAX_QUEUE_SIZE` (spans held, default 2048),
 * `OTEL_BSP_SCHEDULE_DELAY` (ms between exports, default 5000), `OTEL_BSP_EXPORT_TIMEOUT` (ms, default 30000)
 * and `OTEL_BSP_MAX_EXPORT_BATCH_SIZE` (spans per export, default 512); each must be a positive number.
 */
export function batchSettingsFromEnv(env: SdkEnv, warn: Warn = warnAsProcess) {
  const read = (name: keyof SdkEnv) => numberFrom(env, name, warn, true);
  return {
    maxQueueSize: read('OTEL_BSP_MAX_QUEUE_SIZE'),
    scheduledDelayMillis: read('OTEL_BSP_SCHEDULE_DELAY'),
    exportTimeoutMillis: read('OTEL_BSP_EXPORT_TIMEOUT'),
    maxExportBatchSize: read('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
  };
}
