import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Context, createContext, type Services } from '../context.js';
import { AppError } from '../errors.js';
import { type RateDecision, rateLimitHeaders } from '../rate-limits.js';
import { hashCredential, viewerForTokenHash } from '../resolvers/authentication.js';
import { authTokenFromHeaders } from '../server/auth-header.js';
import { clientAddress } from '../server/client-address.js';
import { readJsonBody, sendJson } from './http.js';
import { withIdempotency } from './idempotency.js';
import { mercureDiscoveryLink } from './mercure-discovery.js';
import { toProblem } from './problem.js';
import { type Route, routes } from './routes.js';

interface CompiledRoute {
  route: Route;
  segments: string[];
}

const compiled: CompiledRoute[] = routes.map((route) => ({
  route,
  segments: route.path.split('/').slice(1),
}));

function matchPath(segments: string[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    const part = parts[index] ?? '';
    if (segment.startsWith(':')) {
      if (part === '') return null;
      params[segment.slice(1)] = decodeURIComponent(part);
    } else if (segment !== part) return null;
  }
  return params;
}

/** Sets the rate-limit headers; refuses the request with 429 when over a limit. */
function enforce(res: ServerResponse, decision: RateDecision): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
  if (!decision.allowed) {
    throw new AppError('LIMIT_EXCEEDED', `Too many requests; try again in ${decision.resetSeconds} s.`);
  }
}

/**
 * Sends a problem+json response for any thrown value; a 5xx's error is logged with the logger `log` gives
 * (called only then, e.g. for a request's own child logger).
 */
export function sendProblem(res: ServerResponse, error: unknown, log?: () => Services['logger']): void {
  const problem = toProblem(error);
  if (problem.status >= 500) log?.().error({ err: error }, 'unexpected error in REST route');
  sendJson(res, problem.status, problem, 'application/problem+json; charset=utf-8');
}

/**
 * Serves one REST request: matches the route table (404 unknown path, 405 with `Allow` for a known path
 * and another method), authenticates, applies the rate limits (429 with `Retry-After`), reads the body,
 * runs the route — at most once per `Idempotency-Key` for POSTs — and sends its document (with the
 * Mercure hub's `Link` where it hands out an `sse_jwt`), or a problem+json for any error. An unexpected
 * error is logged with `log()`: the request's logger (with its `reqId`), the service's when not given.
 */
export async function handleRest(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  log: () => Services['logger'] = () => services.logger,
): Promise<void> {
  try {
    const parts = url.pathname.split('/').slice(1);
    const candidates = compiled
      .map((entry) => ({ entry, params: matchPath(entry.segments, parts) }))
      .filter((candidate) => candidate.params !== null);
    const found = candidates.find((candidate) => candidate.entry.route.method === req.method);
    if (!found?.params) {
      if (candidates.length === 0) throw new AppError('NOT_FOUND', `No route ${url.pathname}.`);
      const allow = [...new Set(candidates.map((candidate) => candidate.entry.route.method))].join(', ');
      res.setHeader('allow', allow);
      throw new AppError('METHOD_NOT_ALLOWED', `Use ${allow} on ${url.pathname}.`);
    }
    const { route } = found.entry;
    const params = found.params;
    let ctx: Context = createContext(services, null);
    if (route.authenticated) {
      const token = authTokenFromHeaders((name) => req.headers[name] as string | undefined);
      if (!token)
        throw new AppError('UNAUTHENTICATED', 'Send a valid auth token in the X-Auth-Token header.');
      const tokenHash = hashCredential(token);
      const viewer = await viewerForTokenHash(services, tokenHash);
      enforce(res, await services.rateLimits.forCaller(tokenHash, viewer.instanceId));
      ctx = createContext(services, viewer);
    } else {
      enforce(res, await services.rateLimits.forAnonymous(clientAddress(services.config, req)));
    }
    const body = route.body ? await readJsonBody(req) : undefined;
    const run = () => route.handle({ ctx, params, query: url.searchParams, body });
    const idempotencyKey = req.headers['idempotency-key'];
    if (route.method === 'POST' && route.authenticated && typeof idempotencyKey === 'string') {
      const result = await withIdempotency(
        ctx,
        idempotencyKey,
        { method: route.method, path: url.pathname, body },
        run,
      );
      if (result.replayed) res.setHeader('idempotent-replayed', 'true');
      if (result.status >= 400) {
        sendJson(res, result.status, result.body, 'application/problem+json; charset=utf-8');
      } else sendJson(res, result.status, result.body);
      return;
    }
    const result = await run();
    if (route.eventStream) res.setHeader('link', mercureDiscoveryLink);
    sendJson(res, result.status, result.body);
  } catch (error) {
    sendProblem(res, error, log);
  }
}
