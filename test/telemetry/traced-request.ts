import { type SupplierSimulator, startSupplierSimulator } from '../../src/gathering/simulator/server.js';
import { contractExampleBatch } from '../helpers/app.js';
import type { GatewayProcess } from '../helpers/gateway-process.js';
import { demoCredentials, type GatewayApi, signedIn } from '../scale-out/sonata-ordering.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './otlp-receiver.js';
import { type RecordingProxy, startRecordingProxy } from './recording-proxy.js';

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
 * with the caller's `traceparent` (`00-<traceId>-<spanId>-01`, or `-00` when the caller did not sample it)
 * and waits until it completed.
 *
 * @returns the request's id.
 */
export async function createTracedRequest(
  api: GatewayApi,
  caller: { traceId: string; spanId: string; sampled?: boolean },
): Promise<string> {
  const response = await fetch(`${api.base}/availability-requests`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-auth-token': api.token,
      traceparent: `00-${caller.traceId}-${caller.spanId}-${caller.sampled === false ? '00' : '01'}`,
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

/**
 * What a traced test talks to besides the gateway: an OTLP/HTTP receiver, the supplier simulator, and the
 * recording proxy in front of it. `close()` stops all three (the gateway is the test's own to stop first).
 */
export interface TracingPeers {
  receiver: OtlpReceiver;
  simulator: SupplierSimulator;
  proxy: RecordingProxy;
  close(): Promise<void>;
}

/** Starts the receiver, the simulator and the proxy on 127.0.0.1 ({@link TracingPeers}). */
export async function startTracingPeers(): Promise<TracingPeers> {
  const receiver = await startOtlpReceiver();
  const simulator = await startSupplierSimulator();
  const proxy = await startRecordingProxy(simulator.url);
  return {
    receiver,
    simulator,
    proxy,
    close: async () => {
      await proxy.close();
      await simulator.stop();
      await receiver.close();
    },
  };
}

/** Signs in to a demo-seeded gateway and points its sources at the proxy ({@link useTracedSource}). */
export async function signedInToTracedSource(gateway: GatewayProcess, proxyUrl: string): Promise<GatewayApi> {
  const api = await signedIn(gateway.url, await demoCredentials(gateway));
  await useTracedSource(api, proxyUrl);
  return api;
}
