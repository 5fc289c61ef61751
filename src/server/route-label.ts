import { routes } from '../rest/routes.js';

/** Paths served outside the REST table, each its own label. */
const FIXED_PATHS = new Set([
  '/graphql',
  '/.well-known/mercure',
  '/healthz',
  '/readyz',
  '/metrics',
  '/openapi.json',
]);

const restPatterns = routes.map((route) => ({
  pattern: route.path,
  segments: route.path.split('/').slice(1),
}));

function matches(segments: readonly string[], parts: readonly string[]): boolean {
  return (
    segments.length === parts.length &&
    segments.every((segment, index) =>
      segment.startsWith(':') ? (parts[index] ?? '') !== '' : segment === parts[index],
    )
  );
}

/**
 * The low-cardinality name of the route a URL path belongs to, for metric labels and request logs: the
 * REST table's pattern (`/availability-requests/:id`, whatever the method), `/graphql`,
 * `/.well-known/mercure`, `/healthz`, `/readyz`, `/metrics`, `/dashboard` (its page and assets), and
 * `other` for anything else. It never contains an id or any other part of the request.
 *
 * @param pathname the URL path, without query string (e.g. `new URL(req.url, base).pathname`).
 */
export function routeLabel(pathname: string): string {
  if (FIXED_PATHS.has(pathname)) return pathname;
  if (pathname === '/dashboard' || pathname.startsWith('/dashboard/')) return '/dashboard';
  if (pathname === '/docs' || pathname.startsWith('/docs/')) return '/docs';
  const parts = pathname.split('/').slice(1);
  return restPatterns.find((entry) => matches(entry.segments, parts))?.pattern ?? 'other';
}
