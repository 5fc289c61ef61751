import { describe, expect, it } from 'vitest';
import {
  enabledInstrumentations,
  propagatorNames,
  tracesProtocol,
  tracingConfigured,
} from '../../src/telemetry/config.js';

describe('tracingConfigured', () => {
  it.each([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'false' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'otlp' }, true],
  ])('when the environment is %j, then tracing is %s', (env, on) => {
    expect(tracingConfigured(env)).toBe(on);
  });
});

describe('tracesProtocol', () => {
  it.each([
    [{}, 'http/protobuf'],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'http/json'],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: ' HTTP/PROTOBUF ' }, 'http/protobuf'],
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' },
      'http/protobuf',
    ],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: ' ' }, 'http/json'],
  ])('when the environment is %j, then traces are exported as %s', (env, protocol) => {
    expect(tracesProtocol(env)).toBe(protocol);
  });

  it('when the protocol is grpc, then it is refused with the variable, the supported values and the port', () => {
    expect(() => tracesProtocol({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc: traces are exported over OTLP/HTTP only — set http/protobuf (the ' +
        'default) or http/json and point the endpoint at the collector’s OTLP/HTTP port (4318); gRPC (4317) is ' +
        'not supported',
    );
  });

  it('when the protocol is unknown, then it is refused', () => {
    expect(() => tracesProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/xml' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL=http/xml: traces are exported over OTLP/HTTP only — set http/protobuf (the ' +
        'default) or http/json and point the endpoint at the collector’s OTLP/HTTP port (4318)',
    );
  });
});

describe('propagatorNames', () => {
  it.each([
    [{}, { use: ['tracecontext', 'baggage'], unsupported: [] }],
    [{ OTEL_PROPAGATORS: ' ' }, { use: ['tracecontext', 'baggage'], unsupported: [] }],
    [{ OTEL_PROPAGATORS: 'tracecontext' }, { use: ['tracecontext'], unsupported: [] }],
    [
      { OTEL_PROPAGATORS: 'baggage, TraceContext,baggage' },
      { use: ['baggage', 'tracecontext'], unsupported: [] },
    ],
    [
      { OTEL_PROPAGATORS: 'tracecontext,b3,jaeger' },
      { use: ['tracecontext'], unsupported: ['b3', 'jaeger'] },
    ],
    [{ OTEL_PROPAGATORS: 'none' }, { use: [], unsupported: [] }],
  ])('when the environment is %j, then the propagators are %j', (env, expected) => {
    expect(propagatorNames(env)).toEqual(expected);
  });
});

describe('enabledInstrumentations', () => {
  it.each([
    [{}, { use: ['http', 'undici', 'pg', 'ioredis'], unknown: [] }],
    [{ OTEL_NODE_ENABLED_INSTRUMENTATIONS: ' ' }, { use: ['http', 'undici', 'pg', 'ioredis'], unknown: [] }],
    [{ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'PG, undici' }, { use: ['undici', 'pg'], unknown: [] }],
    [{ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'http' }, { use: ['undici', 'pg', 'ioredis'], unknown: [] }],
    [
      {
        OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,pg,express',
        OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg,fs,express',
      },
      { use: ['http'], unknown: ['express', 'fs'] },
    ],
    [{ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'fs' }, { use: [], unknown: ['fs'] }],
  ])('when the environment is %j, then the instrumentations are %j', (env, expected) => {
    expect(enabledInstrumentations(env)).toEqual(expected);
  });
});
