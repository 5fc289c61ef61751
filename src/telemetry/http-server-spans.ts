/**
 * The HTTP server span of each incoming request (issue 37), from Node's own diagnostics channels
 * (`http.server.request.start`, `http.server.response.finish`; https://nodejs.org/api/diagnostics_channel.html#http)
 * instead of `@opentelemetry/instrumentation-http`, which held about 8 % of the traced gateway's CPU on
 * `rest-list` whether the request was sampled or not (its own code 5.3 %, the bound emitters 2.4 %, at 10 %
 * sampling): it computes every attribute before the sampler decides, and binds the request and response
 * emitters so that each of their listeners runs wrapped (BENCHMARKS.md, "Tracing"). Here an unsampled
 * request costs the `traceparent` extraction, one non-recording span, one listener and two context
 * switches; attributes are computed only for a recorded span. In `url.query` the value of `authorization`
 * (the Mercure hub's subscriber token, `src/rest/mercure.ts`) is replaced by `REDACTED`.
 *
 * The span: named by the method (`GET`), kind `SERVER`, child of the incoming `traceparent` when there is
 * one (W3C Trace Context, through the configured propagator), with the stable HTTP semantic conventions'
 * attributes (`http.request.method`, `url.path`, `url.query`, `url.scheme`, `server.address`, `server.port`,
 * `network.peer.address`, `network.peer.port`, `network.protocol.version`, `user_agent.original`,
 * `http.response.status_code`; https://opentelemetry.io/docs/specs/semconv/http/http-spans/), an error for
 * a 5xx answer, ended when the response is closed (finished or cut off).
 */
import { subscribe } from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

/** What the HTTP diagnostics channels publish. */
interface HttpServerMessage {
  request: IncomingMessage;
  response: ServerResponse;
}

/** The request's span and the context it is active in, by response. */
const open = new WeakMap<ServerResponse, { span: Span; context: Context }>();

/**
 * Starts a `SERVER` span for every request whose path is not in `untracedPaths`, active (through
 * `attach`, the context manager's `enterWith`) while the server's `request` listeners run and the work
 * they start, and again when the response finishes, so that the `close` listeners — the request's log
 * line, `src/server/request-listener.ts` — carry its `trace_id`. An untraced path runs in the root
 * context. Call once, after the tracer provider and propagator are registered.
 *
 * `attach` sets the context on the async resource running at the time (the connection's parser), so it
 * stays there until the next request on the same connection sets its own: a WebSocket upgrade on a
 * connection that served a traced request before (no `request` event, so no span here) would run in that
 * request's context. Clients open WebSockets on fresh connections in practice; a wrapped `emit` (what the
 * HTTP instrumentation did) would avoid it at the cost measured above.
 *
 * @param attach makes a context the active one for the rest of the current execution (the
 *   AsyncLocalStorage context manager's `attach`).
 */
export function traceHttpServerRequests(options: {
  tracerName: string;
  untracedPaths: ReadonlySet<string>;
  attach: (context: Context) => unknown;
}): void {
  const { untracedPaths, attach } = options;
  const tracer = trace.getTracer(options.tracerName);
  subscribe('http.server.request.start', (message) => {
    const { request, response } = message as HttpServerMessage;
    const target = request.url ?? '/';
    const queryAt = target.indexOf('?');
    const path = queryAt < 0 ? target : target.slice(0, queryAt);
    if (untracedPaths.has(path)) {
      attach(ROOT_CONTEXT);
      return;
    }
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const method = request.method ?? 'GET';
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
    if (span.isRecording()) {
      const socket = request.socket;
      const host = request.headers.host ?? '';
      const colon = host.lastIndexOf(':');
      span.setAttributes({
        'http.request.method': method,
        'url.path': path,
        ...(queryAt < 0 ? {} : { 'url.query': redactedQuery(target.slice(queryAt + 1)) }),
        'url.scheme': 'encrypted' in socket && socket.encrypted ? 'https' : 'http',
        'server.address': colon > 0 && !host.endsWith(']') ? host.slice(0, colon) : host,
        ...(colon > 0 && !host.endsWith(']') ? { 'server.port': Number(host.slice(colon + 1)) } : {}),
        'network.peer.address': socket.remoteAddress ?? '',
        'network.peer.port': socket.remotePort ?? 0,
        'network.protocol.version': request.httpVersion,
        ...(request.headers['user-agent'] ? { 'user_agent.original': request.headers['user-agent'] } : {}),
      });
    }
    const context = trace.setSpan(parent, span);
    open.set(response, { span, context });
    response.once('close', () => end(response));
    attach(context);
  });
  subscribe('http.server.response.finish', (message) => {
    const traced = open.get((message as HttpServerMessage).response);
    if (traced) attach(traced.context);
  });
}

/** Query parameters whose values never go into a span: credentials. */
const SECRET_PARAMETERS = /(^|&)(authorization)=[^&]*/gi;

/** `query` with the value of each {@link SECRET_PARAMETERS} parameter replaced by `REDACTED`. */
export function redactedQuery(query: string): string {
  return query.replace(SECRET_PARAMETERS, '$1$2=REDACTED');
}

/** Ends the response's span with its status code (an error for 5xx; unset otherwise, as the conventions say). */
function end(response: ServerResponse): void {
  const traced = open.get(response);
  if (!traced) return;
  open.delete(response);
  const { span } = traced;
  if (span.isRecording()) {
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    if (!response.writableFinished) span.setAttribute('error.type', 'connection closed');
  }
  span.end();
}
