import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Context, createContext, type Services } from '../context.js';
import { AppError } from '../errors.js';
import { viewerForToken } from '../resolvers/authentication.js';
import { authTokenFromHeaders } from '../server/auth-header.js';
import { readJsonBody, sendJson } from './http.js';
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

/** Sends a problem+json response for any thrown value. */
export function sendProblem(res: ServerResponse, error: unknown, log?: Services['logger']): void {
  const problem = toProblem(error);
  if (problem.status >= 500) log?.error({ err: error }, 'unexpected error in REST route');
  sendJson(res, problem.status, problem, 'application/problem+json; charset=utf-8');
}

/**
 * Serves one REST request: matches the route table (404 unknown path, 405 with `Allow` for a known path
 * and another method), authenticates, reads the body, runs the route and sends its document, or a
 * problem+json for any error.
 */
export async function handleRest(
  services: Services,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
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
    let ctx: Context = createContext(services, null);
    if (route.authenticated) {
      const token = authTokenFromHeaders((name) => req.headers[name] as string | undefined);
      if (!token)
        throw new AppError('UNAUTHENTICATED', 'Send a valid auth token in the X-Auth-Token header.');
      ctx = createContext(services, await viewerForToken(services, token));
    }
    const body = route.body ? await readJsonBody(req) : undefined;
    const result = await route.handle({ ctx, params: found.params, query: url.searchParams, body });
    sendJson(res, result.status, result.body);
  } catch (error) {
    sendProblem(res, error, services.logger);
  }
}
