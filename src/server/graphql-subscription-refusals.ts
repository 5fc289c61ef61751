import type { ExecutionResult, GraphQLError } from 'graphql';
import { createGraphQLError, type Plugin, processRegularResult } from 'graphql-yoga';
import { AppError, DependencyUnavailableError, errorCodes } from '../errors.js';

/** The `http` extension of a refusal: its status, and `Retry-After` for a dependency that is down (issue 48). */
function httpOf(error: GraphQLError, status: number | null | undefined) {
  const cause = error.originalError;
  return cause instanceof DependencyUnavailableError
    ? { status, headers: { 'retry-after': String(cause.retryAfterSeconds) } }
    : { status };
}

/** The HTTP status of an expected error (its {@link errorCodes} entry); null for anything unexpected. */
function statusOf(error: GraphQLError): number | null {
  return error.originalError instanceof AppError ? errorCodes[error.originalError.code].status : null;
}

/**
 * The JSON media type a refusal is written in: `application/json` for a client that asks for it and not
 * for the GraphQL one, otherwise `application/graphql-response+json` — also for a client that accepts
 * only `text/event-stream`, whose error status tells it not to read an event stream.
 */
function refusalMediaType(request: Request): string {
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('application/json') && !accept.includes('application/graphql-response+json')
    ? 'application/json'
    : 'application/graphql-response+json';
}

/**
 * Answers a subscription over HTTP (SSE, or a single JSON result) whose event stream could not start
 * because of an expected error — `UNAUTHENTICATED`, `FORBIDDEN`, … raised by its `subscribe` — with that
 * error's HTTP status (401, 403, …; DESIGN.md, "Errors") and the GraphQL error body as JSON, as the
 * GraphQL-over-HTTP spec has it for a response without `data`.
 *
 * Without it Yoga sees an error that is not a plain `GraphQLError` and no `data`, answers 500 and the
 * request is logged as a server error; an SSE client such as graphql-sse then reports a network failure
 * instead of the code. Queries and mutations are left alone: their results always carry `data` (null
 * where a field failed), which the GraphQL-over-HTTP spec answers with 200. Over graphql-ws the same
 * refusal is an `error` message (`graphql-ws.ts`).
 */
export function subscriptionRefusals(): Plugin {
  const subscriptionRequests = new WeakSet<Request>();
  return {
    onSubscribe({ args }) {
      const { request } = args.contextValue as { request?: Request };
      if (request) subscriptionRequests.add(request);
    },
    onResultProcess({ request, result, setResult, setResultProcessor }) {
      if (!subscriptionRequests.has(request) || Array.isArray(result) || Symbol.asyncIterator in result)
        return;
      const single = result as ExecutionResult;
      if ('data' in single || !single.errors?.length) return;
      const statuses = single.errors.map(statusOf);
      if (statuses.some((status) => status === null)) return; // unexpected: Yoga's 500, masked and logged
      setResult({
        ...single,
        errors: single.errors.map((error, index) =>
          createGraphQLError(error.message, {
            nodes: error.nodes,
            source: error.source,
            positions: error.positions,
            path: error.path,
            originalError: error.originalError,
            extensions: { ...error.extensions, http: httpOf(error, statuses[index]) },
          }),
        ),
      });
      setResultProcessor(processRegularResult, refusalMediaType(request));
    },
  };
}
