import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { matchRestPath, sendProblem } from '../rest/router.js';
import type { Dispatch } from './dispatch.js';
import { type DrainState, refusedWhileDraining } from './draining.js';
import type { InFlightRequests } from './in-flight.js';
import type { AppMetrics } from './metrics.js';
import { createRequestLogger } from './request-log.js';
import { routeLabel } from './route-label.js';

/** What the request listener reads and records each request in. */
export interface ListenerParts {
  config: Config;
  logger: Logger;
  metrics: AppMetrics;
  dispatch: Dispatch;
  /** Read on each request: while draining, responses close their connections and some are refused. */
  drain: Readonly<DrainState>;
  inFlight: InFlightRequests;
}

/**
 * The listener of the instance's HTTP server: each request is counted in flight, labelled with its route,
 * logged once and measured, then refused while draining when it is a read from the balancer
 * ({@link refusedWhileDraining}), answered 400 when its target is no URL, or else dispatched. A handler's
 * error becomes a problem response, or ends the connection when the response had already begun.
 *
 * @returns the `(req, res) => void` for `createServer`; it never throws.
 */
export function createRequestListener(
  parts: ListenerParts,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { config, metrics, dispatch, drain, inFlight } = parts;
  const logRequest = createRequestLogger(parts.logger);
  return (req, res) => {
    const untrack = inFlight.track(res);
    // Draining: the balancer must not keep a connection that could fail under its next request.
    if (drain.draining) res.setHeader('connection', 'close');
    const url = URL.parse(req.url ?? '/', 'http://localhost');
    // The REST table is matched once, for the route label and for the REST router.
    const restMatch = matchRestPath(url?.pathname ?? '');
    const route = url ? routeLabel(url.pathname, restMatch) : 'other';
    const { log: requestLog, end: logLine } = logRequest(req, res, route);
    const recordMetrics = metrics.observeHttp(req, res, route);
    /*
     * One listener ends the request for the in-flight count, the metrics and the log line: a response emits
     * `close` exactly once, after it finished or when its connection closed first. `error` (e.g. a write
     * after the end) puts the error in the line when it comes first.
     */
    const ended = (error?: Error) => {
      untrack();
      recordMetrics();
      logLine(error);
    };
    res.once('close', ended);
    res.once('error', ended);
    if (drain.draining && refusedWhileDraining(config, req, route)) {
      res.setHeader('retry-after', String(Math.max(1, Math.ceil(config.SHUTDOWN_DRAIN_SECONDS))));
      return sendProblem(res, new AppError('UNAVAILABLE', 'This instance is shutting down; try another.'));
    }
    if (!url) return sendProblem(res, new AppError('MALFORMED', 'The request target is not a valid URL.'));
    dispatch(req, res, url, restMatch, requestLog).catch((error: unknown) => {
      if (!res.headersSent) return sendProblem(res, error, requestLog);
      requestLog().error({ err: error }, 'request failed after its response began');
      res.destroy();
    });
  };
}
