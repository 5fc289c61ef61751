import type { Plugin } from 'graphql-yoga';
import { tracingOn } from './state.js';

/** envelop's OpenTelemetry plugin, loaded by `startTracing` only when tracing is on. */
let plugin: Plugin | null = null;

/**
 * Loads envelop's OpenTelemetry plugin (`@envelop/opentelemetry`) for {@link graphqlTracing}; called by
 * `startTracing` after the SDK started, so that a service without tracing never loads it.
 */
export async function loadGraphqlTracing(): Promise<void> {
  const [{ useOpenTelemetry }, { SpanKind, trace }] = await Promise.all([
    import('@envelop/opentelemetry'),
    import('@opentelemetry/api'),
  ]);
  // One span per operation, not per resolver (a list of 100 requests would be thousands of spans);
  // neither variables nor results, which hold customers' addresses and prices. The document is recorded
  // only when it has no inline arguments (the plugin's own rule), for the same reason.
  plugin = useOpenTelemetry(
    { resolvers: false, variables: false, result: false },
    trace.getTracerProvider(),
    SpanKind.INTERNAL,
    {},
    'graphql',
  ) as Plugin;
}

/**
 * The GraphQL plugins that trace (issue 37): while tracing is on, a span `<operation type>.<name>` per
 * operation (query, mutation, subscription) under the request's HTTP span; none otherwise.
 */
export function graphqlTracing(): Plugin[] {
  return tracingOn() && plugin ? [plugin] : [];
}
