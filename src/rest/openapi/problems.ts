import { AppError, type ErrorCode, errorCodes } from '../../errors.js';
import { MAX_BODY_BYTES } from '../http.js';
import { mercureDiscoveryLink } from '../mercure-discovery.js';
import { toProblem } from '../problem.js';
import type { Route } from '../routes.js';
import type { OperationSpec } from './operations.js';

/** What each problem status means on this API, and the name of its response component. */
const PROBLEM_RESPONSES: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'The body is not valid JSON.' },
  401: {
    name: 'Unauthorized',
    description: 'No auth token, or one that is invalid or expired (at sign-in: invalid credentials).',
  },
  403: { name: 'Forbidden', description: "The caller's roles do not allow this operation." },
  404: {
    name: 'NotFound',
    description:
      "No such resource in the caller's instance; another instance's id is answered identically. Also any " +
      'path that is not a route.',
  },
  405: {
    name: 'MethodNotAllowed',
    description: 'The path is a route, but not for this method; `Allow` lists the methods it takes.',
  },
  409: {
    name: 'Conflict',
    description:
      'A request with the same `Idempotency-Key` is still being processed, or the instance lacks its set-up ' +
      '(a default price plan).',
  },
  413: { name: 'PayloadTooLarge', description: `The body exceeds ${MAX_BODY_BYTES} bytes.` },
  415: { name: 'UnsupportedMediaType', description: 'The body is not `application/json`.' },
  422: {
    name: 'UnprocessableContent',
    description:
      'The input is invalid: `errors` names each invalid value by its path (`/0/address/postal_code`). ' +
      'Also an `Idempotency-Key` reused with another request.',
  },
  429: {
    name: 'TooManyRequests',
    description:
      "A rate limit (per token, per instance, or per address at sign-in; `Retry-After` says when to retry), or a customer's monthly availability-request limit.",
  },
  500: { name: 'InternalServerError', description: 'An unexpected error; the body carries no internals.' },
  503: {
    name: 'ServiceUnavailable',
    description:
      'The database or Redis cannot be reached or cannot take the work now (a restart, a failover, a busy ' +
      'or full SQLite file): nothing was written, an `Idempotency-Key` sent is free again, and `Retry-After` ' +
      '(5 s) says when to try again. Also a read forwarded by a trusted balancer (`TRUSTED_PROXIES`) to an ' +
      'instance that is shutting down; the balancer retries it on another instance, `Retry-After` says when ' +
      'this one is gone.',
  },
};

/** The error code the REST layer answers with `status`. */
function codeOf(status: number): ErrorCode {
  const code = (Object.keys(errorCodes) as ErrorCode[]).find((key) => errorCodes[key].status === status);
  if (!code) throw new Error(`no error code answers ${status}`);
  return code;
}

/** The component name of the problem response for `status`. */
export function problemResponseName(status: number): string {
  const entry = PROBLEM_RESPONSES[status];
  if (!entry) throw new Error(`no problem response for status ${status}`);
  return entry.name;
}

/**
 * The problem statuses a route can answer, from what the router does with it: every route may be rate
 * limited (429), fail unexpectedly (500) or find the database or Redis down (503, issue 48); an authenticated one needs a token (401) with a role (403); a
 * body may be malformed (400), too large (413), not JSON (415) or invalid (422); an authenticated POST
 * takes an `Idempotency-Key` (409 while the first is running, 422 for a reused one); an `:id` may be unknown
 * (404); query parameters may be invalid (422); a read may reach a draining instance (503 too, see `app.ts`).
 * `spec.problems` adds what only the resolver knows.
 */
export function problemStatuses(route: Route, spec: OperationSpec): number[] {
  const statuses = new Set<number>([429, 500, 503, ...(spec.problems ?? [])]);
  const add = (...more: number[]) => {
    for (const status of more) statuses.add(status);
  };
  if (route.authenticated) add(401, 403);
  if (route.body) add(400, 413, 415, 422);
  if (route.method === 'POST' && route.authenticated) add(409, 422);
  if (route.path.includes('/:')) add(404);
  if (spec.query?.length) add(422);
  return [...statuses].sort((a, b) => a - b);
}

const rateLimitHeaders = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
};

/**
 * Response headers: the rate-limit state, `Retry-After`, `Allow`, the idempotent-replay marker and the
 * Mercure hub's discovery `Link`.
 */
export function headerComponents(): Record<string, unknown> {
  const integer = (description: string) => ({ description, schema: { type: 'integer', minimum: 0 } });
  return {
    RateLimitLimit: integer('Requests allowed in the current window.'),
    RateLimitRemaining: integer('Requests left in the current window.'),
    RateLimitReset: integer('Seconds until the window resets.'),
    RetryAfter: integer('Seconds to wait before retrying.'),
    Allow: { description: 'The methods the path takes.', schema: { type: 'string' } },
    IdempotentReplayed: {
      description: '`true` when this is the stored response of an earlier request with the same key.',
      schema: { type: 'string', const: 'true' },
    },
    MercureLink: {
      description:
        'Discovery of the Mercure hub that streams the `sse_jwt`’s events (Mercure spec, "Discovery"): ' +
        '`</.well-known/mercure>; rel="mercure"`, relative to this response’s URL.',
      schema: { type: 'string', const: mercureDiscoveryLink },
    },
  };
}

/** The rate-limit headers every response past the rate check carries. */
export function rateLimitResponseHeaders(): Record<string, unknown> {
  return { ...rateLimitHeaders };
}

/**
 * One response component per problem status: `application/problem+json` with a `Problem` whose `type`,
 * `title` and `status` are those `toProblem` gives that status's error code.
 */
export function problemResponseComponents(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(PROBLEM_RESPONSES).map(([statusText, { name, description }]) => {
      const status = Number(statusText);
      const { type, title } = toProblem(new AppError(codeOf(status), description));
      const headers: Record<string, unknown> =
        status === 429
          ? { ...rateLimitHeaders, 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }
          : status === 503
            ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }
            : {};
      if (status === 405) headers.Allow = { $ref: '#/components/headers/Allow' };
      const schema = {
        allOf: [
          { $ref: '#/components/schemas/Problem' },
          {
            type: 'object',
            properties: { type: { const: type }, title: { const: title }, status: { const: status } },
          },
        ],
      };
      return [
        name,
        {
          description,
          ...(Object.keys(headers).length > 0 ? { headers } : {}),
          content: { 'application/problem+json': { schema } },
        },
      ];
    }),
  );
}
