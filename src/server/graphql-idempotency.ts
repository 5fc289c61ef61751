import {
  type ExecutionResult,
  type GraphQLError,
  type GraphQLFormattedError,
  getOperationAST,
  parse,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { Services } from '../context.js';
import { AppError, errorCodes } from '../errors.js';
import { authTokenFromHeaders } from '../http/auth-header.js';
import {
  type IdempotentAnswer,
  type IdempotentOutcome,
  idempotencyFingerprint,
  runOnce,
} from '../http/idempotency.js';
import { viewerForToken } from '../resolvers/authentication.js';

type HandlerResult = ExecutionResult | AsyncIterable<ExecutionResult>;

/** The codes of expected errors (4xx): an answer carrying only these is remembered, as REST's problems are. */
const expectedCodes: ReadonlySet<string> = new Set(
  Object.values(errorCodes)
    .filter((code) => code.status < 500)
    .map((code) => code.graphql),
);

function isMutation(query: string | undefined, operationName: string | null | undefined): boolean {
  if (!query) return false;
  try {
    return getOperationAST(parse(query), operationName ?? undefined)?.operation === 'mutation';
  } catch {
    return false;
  }
}

/** An expected error as a whole GraphQL answer, with its HTTP status (what REST would answer). */
function refusal(error: AppError): ExecutionResult {
  const extensions = { ...error.extensions, http: { status: errorCodes[error.code].status } };
  return { errors: [createGraphQLError(error.message, { extensions })] };
}

/**
 * An error as Yoga sends it: its JSON form — a GraphQLError's `toJSON`, or the enumerable fields of one
 * graphql-jit built — without Yoga's internal `http` and `unexpected` extensions.
 */
function sentError(error: GraphQLError): GraphQLFormattedError {
  const { extensions, ...rest } = JSON.parse(JSON.stringify(error)) as GraphQLFormattedError;
  const { http: _http, unexpected: _unexpected, ...sent } = extensions ?? {};
  return Object.keys(sent).length > 0 ? { ...rest, extensions: sent } : rest;
}

/**
 * The answer to remember for a mutation's result, or `null` to free the key:
 *
 * - an error without a `path` was raised before any resolver ran (a refused document, the rate limit),
 *   which REST refuses before it claims a key — nothing ran, so nothing is remembered;
 * - an error with a code of no expected error — a masked one is `INTERNAL_SERVER_ERROR` — is a server
 *   error: 500, which frees the key;
 * - otherwise the result is remembered as sent, with the status Yoga sends it with: its errors' highest
 *   `extensions.http.status`, else 200.
 */
function answerOf(outcome: IdempotentOutcome<HandlerResult>): IdempotentAnswer | null {
  if (!outcome.ok || Symbol.asyncIterator in outcome.value) return null;
  const result = outcome.value;
  const errors = result.errors ?? [];
  if (errors.some((error) => !error.path)) return null;
  let status = 200;
  for (const error of errors) {
    const code = error.extensions?.code;
    if (typeof code !== 'string' || !expectedCodes.has(code)) return { status: 500, body: '' };
    const http = error.extensions?.http as { status?: number } | undefined;
    if (http?.status && http.status > status) status = http.status;
  }
  const { data, extensions } = result;
  const { http: _http, ...sentExtensions } = extensions ?? {};
  const body = {
    ...(data === undefined ? {} : { data }),
    ...(errors.length > 0 ? { errors: errors.map(sentError) } : {}),
    ...(Object.keys(sentExtensions).length > 0 ? { extensions: sentExtensions } : {}),
  };
  return { status, body: JSON.stringify(body) };
}

/**
 * A remembered answer as a result Yoga sends again: its body as remembered (its own `stringify`), with the
 * first status and `Idempotent-Replayed: true` (Yoga reads a result's `extensions.http`, then leaves it out of
 * the body). Its errors are rebuilt too, for any hook that reads them.
 */
function replay(answer: IdempotentAnswer): ExecutionResult {
  const sent = JSON.parse(answer.body) as {
    data?: Record<string, unknown> | null;
    errors?: { message: string; extensions?: Record<string, unknown>; path?: (string | number)[] }[];
  };
  const errors = sent.errors?.map((error) =>
    createGraphQLError(error.message, { extensions: error.extensions ?? {}, path: error.path ?? [] }),
  );
  return Object.assign(
    {
      ...(sent.data === undefined ? {} : { data: sent.data }),
      ...(errors ? { errors } : {}),
      extensions: { http: { status: answer.status, headers: { 'Idempotent-Replayed': 'true' } } },
    },
    { stringify: () => answer.body },
  );
}

/**
 * Idempotency for GraphQL mutations over HTTP, by the rule REST follows ({@link runOnce}, after the IETF
 * draft "The Idempotency-Key HTTP Header Field"): a mutation sent with `Idempotency-Key` runs at most once
 * per instance and key. The fingerprint is the query, operation name and variables. A replay is the first
 * answer with `Idempotent-Replayed: true`; a key used for another request is `BAD_USER_INPUT` (422), a
 * malformed key too; one still running is `CONFLICT` (409). A key is an instance's, so a mutation with a
 * key and no valid token is refused `UNAUTHENTICATED` (401) and never runs. Requests without the header,
 * and other operations, pass untouched.
 */
export function graphqlIdempotency(services: Services): Plugin {
  return {
    onParams({ request, params, paramsHandler, setParamsHandler }) {
      const key = request.headers.get('idempotency-key');
      if (key === null || !isMutation(params.query, params.operationName)) return;
      const token = authTokenFromHeaders((name) => request.headers.get(name));
      setParamsHandler(async (payload) => {
        try {
          if (!token)
            throw new AppError('UNAUTHENTICATED', 'Send a valid auth token in the X-Auth-Token header.');
          const { instanceId } = await viewerForToken(services, token);
          const { query, operationName, variables } = payload.params;
          const fingerprint = idempotencyFingerprint([query ?? null, operationName ?? null], variables);
          const outcome = await runOnce(
            services,
            { instanceId, key, fingerprint },
            async () => paramsHandler(payload),
            answerOf,
          );
          return outcome.replayed ? replay(outcome.answer) : outcome.value;
        } catch (error) {
          if (error instanceof AppError) return refusal(error);
          throw error;
        }
      });
    },
  };
}
