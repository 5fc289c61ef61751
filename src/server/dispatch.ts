import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveDashboard } from '../dashboard/serve.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { sendJson } from '../rest/http.js';
import { MERCURE_HUB_PATH } from '../rest/mercure-discovery.js';
import { serveApiDocs } from '../rest/openapi/serve.js';
import { handleRest, type RestPathMatch, sendProblem } from '../rest/router.js';
import type { AppParts } from './app-wiring.js';
import { graphqlBodyRefusal, sendGraphQLRefusal } from './graphql-body-limit.js';
import type { Readiness } from './readiness.js';

/** Answers one request whose target parsed, once the listener has set up its bookkeeping. */
export type Dispatch = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  restMatch: RestPathMatch,
  log: () => Logger,
) => Promise<void>;

/**
 * Routes a request to what serves its path: the probes (`/healthz`, `/readyz`) and `/metrics` on every
 * instance (`/metrics` answers 404 here when `METRICS_PORT` gives it a listener of its own); on an `api` instance also the Sonata callbacks, `/graphql`, the Mercure hub, the dashboard,
 * the API docs and, for everything else, the REST router. A `worker` instance answers 404 past its probes.
 *
 * @returns the dispatch function; it rejects with what a handler threw, for the listener to answer.
 */
export function createDispatch(parts: AppParts, readiness: () => Promise<Readiness>): Dispatch {
  const { role, services, metrics, sonata, yoga, mercure } = parts;
  return async (req, res, url, restMatch, log) => {
    if (url.pathname === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (url.pathname === '/readyz') {
      const state = await readiness();
      return sendJson(res, state.status === 'ready' ? 200 : 503, state);
    }
    if (url.pathname === '/metrics')
      return services.config.METRICS_PORT === undefined
        ? metrics.serve(req, res)
        : sendProblem(res, new AppError('NOT_FOUND', 'Metrics are served on METRICS_PORT.'));
    if (role === 'worker')
      return sendProblem(res, new AppError('NOT_FOUND', 'A worker serves only its probes.'));
    if (sonata.serves(url.pathname)) return sonata.handle(req, res, url);
    if (url.pathname === '/graphql') {
      const refusal = graphqlBodyRefusal(req.headers);
      if (refusal) return sendGraphQLRefusal(res, refusal);
      return yoga.requestListener(req, res);
    }
    if (url.pathname === MERCURE_HUB_PATH) return mercure.handle(req, res, url);
    if (serveDashboard(req, res, url.pathname)) return;
    if (serveApiDocs(req, res, url.pathname)) return;
    return handleRest(services, req, res, url, log, restMatch);
  };
}
