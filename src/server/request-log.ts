import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';

/** A caller's `X-Request-Id` is kept only when it is a short, plain token (no spaces, quotes or newlines). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * The request headers a log line keeps: an allow-list, so that no credential header (`X-Auth-Token`,
 * `Authorization`, `Cookie`, or one added later) can reach the logs, and each line stays small.
 */
const LOGGED_HEADERS = ['user-agent', 'content-type', 'content-length', 'accept', 'x-forwarded-for'] as const;
/** Query parameters that carry credentials; `authorization` is how browsers send the `sse_jwt`. */
const SECRET_PARAMETERS = new Set(['authorization', 'access_token', 'auth_token', 'client_secret']);
const REDACTED = '[redacted]';

/**
 * The id of a request: the caller's `X-Request-Id` when it is a sane token (1–128 of `A–Z a–z 0–9 . _ : -`),
 * so a caller can follow its request through the logs; otherwise a new UUID.
 */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** A Sonata callback path: its third segment is the source's callback token (`sonata-callbacks.ts`). */
const SONATA_CALLBACK = /^(\/sonata-callbacks\/[^/?]*\/)[^/?]+/;

/**
 * A request target safe to log: the path as sent — but for the callback token in a Sonata callback path
 * (`/sonata-callbacks/<source id>/[redacted]/…`), with which anyone could forge notifications — and the
 * query string with the value of every credential parameter (e.g. the `sse_jwt` in
 * `/.well-known/mercure?authorization=…`) replaced by `[redacted]`. Names are decoded as the server
 * decodes them, so an encoded name is redacted too.
 */
export function loggableUrl(url: string): string {
  const target = url.startsWith('/sonata-callbacks/') ? url.replace(SONATA_CALLBACK, `$1${REDACTED}`) : url;
  const start = target.indexOf('?');
  if (start < 0) return target;
  const query = target
    .slice(start + 1)
    .split('&')
    .map((pair) => {
      const written = pair.split('=', 1)[0] ?? '';
      // Only a name with `%` or `+` reads differently once decoded; the rest are compared as written.
      const name = /[%+]/.test(written) ? new URLSearchParams(pair).keys().next().value : written;
      if (name === undefined || !SECRET_PARAMETERS.has(name)) return pair;
      return `${written}=${REDACTED}`;
    });
  return `${target.slice(0, start)}?${query.join('&')}`;
}

/** The request as logged: never a credential header's value, never a credential in the query. */
function serializeRequest(req: IncomingMessage) {
  const headers: Record<string, string | string[]> = {};
  for (const name of LOGGED_HEADERS) {
    const value = req.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  return {
    method: req.method,
    url: loggableUrl(req.url ?? '/'),
    headers,
    remoteAddress: req.socket?.remoteAddress,
  };
}

/** The level of a request's line: `error` when the response failed or is a 5xx, else `info`. */
function levelOf(res: ServerResponse, error: Error | undefined): 'error' | 'info' {
  return error || res.statusCode >= 500 ? 'error' : 'info';
}

/** One request's part of the request log: its logger, and the call that writes its line. */
export interface RequestLog {
  /** The request's logger (a pino child bound to `reqId`, made on first call) for anything logged while serving it. */
  log(): Logger;
  /**
   * Writes the request's line; call it when the response has ended (its `close` event), or with the error
   * of an `error` event on the response. Only the first call writes.
   */
  end(error?: Error): void;
}

/**
 * Request logging on pino: each HTTP request gives one line when its response ends (finished, or closed
 * before that), `info` below 500 and `error` from 500, with `reqId`, `route` (a low-cardinality label, see
 * `routeLabel`), `req` (method, redacted URL, allow-listed headers, remote address), `res.statusCode` and
 * `durationMs` (whole milliseconds from the request's arrival). The request id ({@link requestIdOf}) is
 * echoed in the `X-Request-Id` response header.
 *
 * The line is one pino call made when the response ends. pino-http, used before, made two child loggers
 * per request — each serialising and redacting its bindings — whether or not anything else was logged:
 * about a tenth of the CPU of a list request (`npm run bench`, rest-list). Here a child logger bound to the
 * request id is made only when something asks for it.
 *
 * The line itself is built only of allow-listed parts — the headers of `LOGGED_HEADERS`, the URL through
 * {@link loggableUrl}, the status and timing — so it is written through a child of `logger` with pino's
 * redaction off (`redact: []`): the root logger's wildcard paths (`*.client_secret`) walk and copy every
 * logged object, about 7 µs a line, more than the rest of the line. A line with an error goes through
 * `logger` itself, whose redaction still covers whatever the error carries.
 *
 * @returns a function to call first for every request, with the request's route label; it sets the
 *   `X-Request-Id` header and returns the request's {@link RequestLog}. It listens to no event itself: the
 *   caller calls `end` (the app does, from the one listener that ends each request).
 */
export function createRequestLogger(
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse, route: string) => RequestLog {
  // Nothing of a line without an error needs redacting (see above).
  const lineLogger = logger.child({}, { redact: [] });
  return (req, res, route) => {
    const startedAt = Date.now();
    const reqId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('x-request-id', reqId);
    let ended = false;
    let child: Logger | undefined;
    return {
      log: () => {
        child ??= logger.child({ reqId });
        return child;
      },
      end: (error) => {
        if (ended) return;
        ended = true;
        const level = levelOf(res, error);
        if (!logger.isLevelEnabled(level)) return;
        const line = {
          reqId,
          route,
          req: serializeRequest(req),
          res: { statusCode: res.statusCode },
          durationMs: Date.now() - startedAt,
          // A 5xx's own error was logged where it was thrown; only a failure of the response itself is added.
          ...(error ? { err: error } : {}),
        };
        (error ? logger : lineLogger)[level](line, 'request completed');
      },
    };
  };
}
