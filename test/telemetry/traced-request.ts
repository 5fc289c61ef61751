import { contractExampleBatch } from '../helpers/app.js';
import type { GatewayApi } from '../scale-out/sonata-ordering.js';
import type { OtlpReceiver, ReceivedSpan } from './otlp-receiver.js';

/** OTLP span kinds (`ReceivedSpan.kind`). */
export const SpanKinds = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

/** The source every traced test gathers from: the simulator's `kpn-wba` supplier, reached through a proxy. */
export const TRACED_SOURCE_KEY = 'kpn-traced';

/** A gateway process's tracing variables: OTLP/HTTP JSON to `receiver`, spans sent every 50 ms. */
export const tracingEnv = (receiver: OtlpReceiver, service: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_SERVICE_NAME: service,
  OTEL_BSP_SCHEDULE_DELAY: '50',
});

/**
 * Switches the signed-in instance's sources off and registers {@link TRACED_SOURCE_KEY}, an `http` source
 * whose endpoint is the simulator's `kpn-wba` supplier behind `proxyUrl`.
 */
export async function useTracedSource(api: GatewayApi, proxyUrl: string): Promise<void> {
  const { sources } = await api.graphql('{ sources { id } }');
  if ((sources as unknown[]).length > 0) {
    const off = (sources as { id: string }[])
      .map(
        (source, index) =>
          `s${index}: setSourceEnabled(id: "${source.id}", enabled: false) { source { id } }`,
      )
      .join('\n');
    await api.graphql(`mutation {\n${off}\n}`);
  }
  await api.graphql(
    'mutation ($input: RegisterSourceInput!) { registerSource(input: $input) { source { id } } }',
    {
      input: {
        key: TRACED_SOURCE_KEY,
        name: 'KPN WBA',
        network: 'KPN',
        countryCodes: ['NL'],
        endpointUrl: `${proxyUrl}/suppliers/kpn-wba/availability`,
      },
    },
  );
}

/**
 * Creates one availability request over REST (`POST /availability-requests`, the contract's example address)
 * with the caller's `traceparent` (`00-<traceId>-<spanId>-01`) and waits until it completed.
 *
 * @returns the request's id.
 */
export async function createTracedRequest(
  api: GatewayApi,
  caller: { traceId: string; spanId: string },
): Promise<string> {
  const response = await fetch(`${api.base}/availability-requests`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-auth-token': api.token,
      traceparent: `00-${caller.traceId}-${caller.spanId}-01`,
    },
    body: JSON.stringify([contractExampleBatch[0]]),
  });
  if (response.status !== 201)
    throw new Error(`the create answered ${response.status}: ${await response.text()}`);
  const requestId = ((await response.json()) as { data: { id: string }[] }).data[0]?.id ?? '';
  for (let waited = 0; waited < 30_000; waited += 50) {
    const read = await api.request('GET', `/availability-requests/${requestId}`);
    if (read.body.data.status === 'completed') return requestId;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`request ${requestId} did not complete within 30 s`);
}

/** The one span matching `test`; fails with every span of the trace otherwise. */
export function only(spans: ReceivedSpan[], test: (span: ReceivedSpan) => boolean): ReceivedSpan {
  const found = spans.filter(test);
  if (found.length !== 1) {
    throw new Error(`expected one matching span, found ${found.length} in ${JSON.stringify(spans, null, 1)}`);
  }
  return found[0] as ReceivedSpan;
}
