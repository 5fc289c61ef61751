import { matchRestPath, type RestPathMatch, restPattern } from '../rest/router.js';

/** Paths served outside the REST table, each its own label. */
const FIXED_PATHS = new Set([
  '/graphql',
  '/.well-known/mercure',
  '/healthz',
  '/readyz',
  '/metrics',
  '/openapi.json',
]);

/**
 * The low-cardinality name of the route a URL path belongs to, for metric labels and request logs: the
 * REST table's pattern (`/availability-requests/:id`, whatever the method), `/graphql`,
 * `/.well-known/mercure`, `/healthz`, `/readyz`, `/metrics`, `/dashboard` (its page and assets), and
 * `other` for anything else. It never contains an id or any other part of the request.
 *
 * @param pathname the URL path, without query string (e.g. `new URL(req.url, base).pathname`).
 * @param match the path's `matchRestPath`, when the caller has matched it already.
 */
export function routeLabel(pathname: string, match?: RestPathMatch): string {
  if (FIXED_PATHS.has(pathname)) return pathname;
  if (pathname === '/dashboard' || pathname.startsWith('/dashboard/')) return '/dashboard';
  if (pathname === '/docs' || pathname.startsWith('/docs/')) return '/docs';
  return restPattern(match ?? matchRestPath(pathname)) ?? 'other';
}
