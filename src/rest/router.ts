import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Context, createContext, type Services } from '../context.js';
import { AppError, DependencyUnavailableError } from '../errors.js';
import { authTokenFromHeaders } from '../http/auth-header.js';
import { clientAddress } from '../http/client-address.js';
import { type RateDecision, rateLimitHeaders } from '../rate-limits.js';
import { hashCredential, viewerForTokenHash } from '../resolvers/authentication.js';
import { readJsonBody, sendJson } from './http.js';
import { withIdempotency } from './idempotency.js';
import { mercureDiscoveryLink } from './mercure-discovery.js';
import { toProblem } from './problem.js';
import { type Route, routes } from './routes.js';

/** A route with its path pattern split into segments (`['availability-requests', ':id']`). */
export interface CompiledRoute {
  route: Route;
  segments: string[];
}

const compiled: CompiledRoute[] = routes.map((route) => ({
  route,
  segments: route.path.split('/').slice(1),
}));

/** Whether a path split into `parts` fits a route's `segments` (`:name` matches any non-empty part). */
function fits(segments: readonly string[], parts: readonly string[]): boolean {
  if (segments.length !== parts.length) return false;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as string;
    const part = parts[index] as string;
    if (segment.startsWith(':') ? part === '' : segment !== part) return false;
  }
  return true;
}

/** The `:name` parameters of a path that {@link fits} `segments`, decoded. */
function paramsOf(segments: readonly string[], parts: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  segments.forEach((segment, index) => {
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(parts[index] as string);
  });
  return params;
}

/**
 * The REST routes a URL path fits, whatever their methods: what the server's route label and
 * {@link handleRest} both read, so a request's path is matched once.
 */
export interface RestPathMatch {
  /** The path's `/`-separated parts after the leading `/`. */
  parts: readonly string[];
  /** The routes whose path pattern fits, in the table's order; empty when the path is not a REST path. */
  fitting: readonly CompiledRoute[];
}

/**
 * Matches a URL path against the REST table in one pass (`:name` matches any non-empty part).
 *
 * @param pathname the URL path, without query string.
 */
export function matchRestPath(pathname: string): RestPathMatch {
  const parts = pathname.split('/').slice(1);
  const fitting: CompiledRoute[] = [];
  for (const entry of compiled) if (fits(entry.segments, parts)) fitting.push(entry);
  return { parts, fitting };
}

/**
 * The route pattern of a matched path for metric labels and logs (`/availability-requests/:id`): the first
 * fitting route's, whatever the method; null when no route fits.
 */
export function restPattern(match: RestPathMatch): string | null {
  return match.fitting[0]?.route.path ?? null;
}

/**
 * The route for `method` among those a path fits, with its parameters.
 * @throws {AppError} `NOT_FOUND` when no route fits the path; `METHOD_NOT_ALLOWED` (and sets `Allow`) when
 *   routes fit it for other methods only.
 */
function findRoute(
  res: ServerResponse,
  method: string | undefined,
  pathname: string,
  { parts, fitting }: RestPathMatch,
): { route: Route; params: Record<string, string> } {
  for (const { route, segments } of fitting) {
    if (route.method === method) return { route, params: paramsOf(segments, parts) };
  }
  if (fitting.length === 0) throw new AppError('NOT_FOUND', `No route ${pathname}.`);
  const allow = [...new Set(fitting.map(({ route }) => route.method))].join(', ');
  res.setHeader('allow', allow);
  throw new AppError('METHOD_NOT_ALLOWED', `Use ${allow} on ${pathname}.`);
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
 * (called only then, e.g. for a request's own child logger). A dependency that is down (the store, Redis:
 * {@link DependencyUnavailableError}) is a 503 with `Retry-After` (RFC 9110 §10.2.3), logged as a warning
 * with the driver's error: the outage is the operator's to see, not a bug of the route (issue 48).
 */
export function sendProblem(res: ServerResponse, error: unknown, log?: () => Services['logger']): void {
  const problem = toProblem(error);
  if (error instanceof DependencyUnavailableError) {
    res.setHeader('retry-after', String(error.retryAfterSeconds));
    log?.().warn({ err: error.cause ?? error, dependency: error.dependency }, 'dependency unavailable');
  } else if (problem.status >= 500) {
    log?.().error({ err: error }, 'unexpected error in REST route');
  }
  sendJson(res, problem.status, problem, 'application/problem+json; charset=utf-8');
}

/**
 * Serves one REST request: matches the route table (404 unknown path, 405 with `Allow` for a known path
 * and another method), authenticates, applies the rate limits (429 with `Retry-After`), reads the body,
 * runs the route — at most once per `Idempotency-Key` for POSTs — and sends its document (with the
 * Mercure hub's `Link` where it hands out an `sse_jwt`; no body for a 204), or a problem+json for any error. An unexpected
 * error is logged with `log()`: the request's logger (with its `reqId`), the service's when not given.
 * `match` is the path's {@link matchRestPath}, when the caller has matched it already.
 */
export async function handleRest(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  log: () => Services['logger'] = () => services.logger,
  match: RestPathMatch = matchRestPath(url.pathname),
): Promise<void> {
  try {
    const { route, params } = findRoute(res, req.method, url.pathname, match);
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
    if (result.status === 204) {
      res.writeHead(204);
      res.end();
      return;
    }
    sendJson(res, result.status, result.body);
  } catch (error) {
    sendProblem(res, error, log);
  }
}
