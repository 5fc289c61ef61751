import { createHash } from 'node:crypto';
import { type ExecutionResult, getOperationAST, parse } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { Services } from '../context.js';
import { AppError } from '../errors.js';
import { authTokenFromHeaders } from '../http/auth-header.js';
import { viewerForToken } from '../resolvers/authentication.js';
import { IDEMPOTENCY_TTL_MS } from '../rest/idempotency.js';

function isMutation(query: string | undefined, operationName: string | null | undefined): boolean {
  if (!query) return false;
  try {
    return getOperationAST(parse(query), operationName ?? undefined)?.operation === 'mutation';
  } catch {
    return false;
  }
}

function refusal(
  message: string,
  code: string,
  status: number,
  headers: Record<string, string> = {},
): ExecutionResult {
  return { errors: [createGraphQLError(message, { extensions: { code, http: { status, headers } } })] };
}

/** Turns a stored result (plain JSON) back into one whose errors are GraphQL errors again. */
function revive(stored: string): ExecutionResult {
  const result = JSON.parse(stored) as {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: Record<string, unknown>; path?: (string | number)[] }[];
  };
  return {
    ...(result.data === undefined ? {} : { data: result.data }),
    ...(result.errors
      ? {
          errors: result.errors.map((error) =>
            createGraphQLError(error.message, { extensions: error.extensions ?? {}, path: error.path ?? [] }),
          ),
        }
      : {}),
  };
}

/**
 * Idempotency for GraphQL mutations over HTTP, the same rule as REST: a mutation sent with
 * `Idempotency-Key` runs at most once per instance and key — the same request replays the first result,
 * another request with that key is `BAD_USER_INPUT`, one still running is `CONFLICT`. Requests without a
 * key, or that are not mutations, pass untouched.
 */
export function graphqlIdempotency(services: Services): Plugin {
  return {
    onParams({ request, params, paramsHandler, setParamsHandler }) {
      const token = authTokenFromHeaders((name) => request.headers.get(name));
      const key = request.headers.get('idempotency-key');
      if (!key || !token || !isMutation(params.query, params.operationName)) return;
      setParamsHandler(async (payload) => {
        let instanceId: string;
        try {
          instanceId = (await viewerForToken(services, token)).instanceId;
        } catch (error) {
          if (error instanceof AppError) return paramsHandler(payload);
          throw error;
        }
        const requestHash = createHash('sha256')
          .update(JSON.stringify([params.query, params.operationName ?? null, params.variables ?? null]))
          .digest('hex');
        const claim = await services.db.claimIdempotencyKey({
          instanceId,
          key,
          requestHash,
          now: services.clock.now(),
          ttlMs: IDEMPOTENCY_TTL_MS,
        });
        if (claim.kind === 'mismatch') {
          return refusal('This Idempotency-Key was used for a different request.', 'BAD_USER_INPUT', 422);
        }
        if (claim.kind === 'in_progress') {
          return refusal('A request with this Idempotency-Key is still being processed.', 'CONFLICT', 409);
        }
        if (claim.kind === 'replay') return revive(claim.body);
        try {
          const result = await paramsHandler(payload);
          if (Symbol.asyncIterator in result) {
            await services.db.releaseIdempotencyKey({ instanceId, key });
            return result;
          }
          await services.db.completeIdempotencyKey({
            instanceId,
            key,
            status: 200,
            body: JSON.stringify(result),
          });
          return result;
        } catch (error) {
          await services.db.releaseIdempotencyKey({ instanceId, key });
          throw error;
        }
      });
    },
  };
}
