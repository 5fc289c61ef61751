import * as sdk from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { batchSettingsFromEnv, samplerFromEnv, spanLimitsFromEnv } from '../../src/telemetry/sdk-env.js';

/** Runs `read` with a warning collector; returns what it returned and the warnings. */
function withWarnings<T>(read: (warn: (message: string) => void) => T): [T, string[]] {
  const warnings: string[] = [];
  return [read((message) => warnings.push(message)), warnings];
}

const parentBased = (root: string) =>
  `ParentBased{root=${root}, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}`;

describe('the tracer provider’s settings from the environment (OpenTelemetry SDK variables)', () => {
  it('when OTEL_TRACES_SAMPLER names each standard sampler, then that sampler is made, with the ratio of OTEL_TRACES_SAMPLER_ARG', () => {
    const sampler = (env: Record<string, string>) => withWarnings((warn) => samplerFromEnv(env, sdk, warn));
    const made = (env: Record<string, string>) => {
      const [value, warnings] = sampler(env);
      return [value?.toString(), warnings];
    };
    expect(made({})).toEqual([undefined, []]);
    expect(made({ OTEL_TRACES_SAMPLER: 'always_on' })).toEqual(['AlwaysOnSampler', []]);
    expect(made({ OTEL_TRACES_SAMPLER: 'always_off' })).toEqual(['AlwaysOffSampler', []]);
    expect(made({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toEqual([
      'TraceIdRatioBased{0.25}',
      [],
    ]);
    expect(made({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' })).toEqual([
      parentBased('AlwaysOnSampler'),
      [],
    ]);
    expect(made({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toEqual([
      parentBased('AlwaysOffSampler'),
      [],
    ]);
    expect(
      made({ OTEL_TRACES_SAMPLER: ' ParentBased_TraceIdRatio ', OTEL_TRACES_SAMPLER_ARG: '0.1' }),
    ).toEqual([parentBased('TraceIdRatioBased{0.1}'), []]);
  });

  it('when the sampler or its ratio is not usable, then the default is used and a warning says why', () => {
    const made = (env: Record<string, string>) => {
      const [value, warnings] = withWarnings((warn) => samplerFromEnv(env, sdk, warn));
      return [value?.toString(), warnings];
    };
    expect(made({ OTEL_TRACES_SAMPLER: 'traceidratio' })).toEqual(['TraceIdRatioBased{1}', []]);
    expect(made({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toEqual([
      'TraceIdRatioBased{1}',
      ['OTEL_TRACES_SAMPLER_ARG=1.5 is outside [0, 1], 1 is used'],
    ]);
    expect(made({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'ten' })).toEqual([
      'TraceIdRatioBased{1}',
      ['OTEL_TRACES_SAMPLER_ARG=ten is not a non-negative number, the default is used'],
    ]);
    expect(made({ OTEL_TRACES_SAMPLER: 'jaeger_remote' })).toEqual([
      undefined,
      [
        'OTEL_TRACES_SAMPLER=jaeger_remote is not supported, the default (parentbased_always_on) is used (supported: always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)',
      ],
    ]);
  });

  it('when span limits are set, then the span’s own win over the general attribute limits', () => {
    expect(
      withWarnings((warn) =>
        spanLimitsFromEnv(
          {
            OTEL_ATTRIBUTE_COUNT_LIMIT: '64',
            OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4096',
            OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '1024',
            OTEL_SPAN_EVENT_COUNT_LIMIT: '10',
            OTEL_SPAN_LINK_COUNT_LIMIT: '5',
            OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT: '8',
            OTEL_LINK_ATTRIBUTE_COUNT_LIMIT: '-1',
          },
          warn,
        ),
      ),
    ).toEqual([
      {
        attributeCountLimit: 64,
        attributeValueLengthLimit: 1024,
        eventCountLimit: 10,
        linkCountLimit: 5,
        attributePerEventCountLimit: 8,
        attributePerLinkCountLimit: undefined,
      },
      ['OTEL_LINK_ATTRIBUTE_COUNT_LIMIT=-1 is not a non-negative number, the default is used'],
    ]);
  });

  it('when the batch processor’s variables are set, then positive numbers are taken and others refused', () => {
    expect(
      withWarnings((warn) =>
        batchSettingsFromEnv(
          {
            OTEL_BSP_MAX_QUEUE_SIZE: '4096',
            OTEL_BSP_SCHEDULE_DELAY: '50',
            OTEL_BSP_EXPORT_TIMEOUT: '0',
            OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '',
          },
          warn,
        ),
      ),
    ).toEqual([
      {
        maxQueueSize: 4096,
        scheduledDelayMillis: 50,
        exportTimeoutMillis: undefined,
        maxExportBatchSize: undefined,
      },
      ['OTEL_BSP_EXPORT_TIMEOUT=0 is not a positive number, the default is used'],
    ]);
  });
});
