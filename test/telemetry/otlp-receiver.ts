import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON export carries it, flattened: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  /** The exporting process's `service.name`. */
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP `SpanKind`: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
}

/** The receiver a test starts: the exporters of the gateway processes send to {@link url}. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporter adds `/v1/traces`). */
  url: string;
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
};
type OtlpAttribute = { key: string; value: OtlpValue };
type OtlpJson = {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
      }[];
    }[];
  }[];
};

const plainValue = (value: OtlpValue): unknown =>
  value.stringValue ??
  (value.intValue === undefined ? undefined : Number(value.intValue)) ??
  value.doubleValue ??
  value.boolValue;

const attributesOf = (attributes: OtlpAttribute[] = []) =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, plainValue(value)]));

/**
 * Starts an OTLP/HTTP receiver on 127.0.0.1 for the JSON encoding (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`,
 * https://opentelemetry.io/docs/specs/otlp/#otlphttp): `POST /v1/traces` with an
 * `ExportTraceServiceRequest` as JSON, answered `200 {}` (a full success). No collector is installable here,
 * and none is needed to see what the gateway exports.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpJson;
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          received.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
