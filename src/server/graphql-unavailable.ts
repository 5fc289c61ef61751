import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { DependencyUnavailableError } from '../errors.js';

/** The dependency error behind a GraphQL error, when it is one (see {@link DependencyUnavailableError}). */
function unavailableCause(error: GraphQLError): DependencyUnavailableError | null {
  return error.originalError instanceof DependencyUnavailableError ? error.originalError : null;
}

/**
 * Whether nothing of `result` was answered because a dependency was down: every error is a
 * {@link DependencyUnavailableError} and no root field has a value (`data` null or absent, or every root
 * field null).
 */
function wholeRequestUnavailable(result: ExecutionResult): DependencyUnavailableError | null {
  const errors = result.errors ?? [];
  const causes = errors.map(unavailableCause);
  const first = causes[0];
  if (!first || causes.some((cause) => cause === null)) return null;
  const answered = result.data ? Object.values(result.data).some((value) => value !== null) : false;
  return answered ? null : first;
}

/**
 * Answers a query or mutation that failed as a whole because the store or Redis was down with HTTP 503 and
 * `Retry-After` (issue 48): each error keeps `extensions.code: "UNAVAILABLE"`, and the status tells an HTTP
 * client or balancer what a 200 would hide. A partial answer (some root field resolved, or another error
 * beside) stays a 200, as the GraphQL-over-HTTP spec has it for a response with `data`. Over graphql-ws the
 * error reaches the client as it is; a subscription over HTTP that cannot start is answered by
 * `subscriptionRefusals` (with its 503 too).
 */
export function unavailableAnswers(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      const single = result as ExecutionResult;
      const cause = wholeRequestUnavailable(single);
      if (!cause) return;
      const http = { status: 503, headers: { 'retry-after': String(cause.retryAfterSeconds) } };
      setResult({ ...single, extensions: { ...single.extensions, http } });
    },
  };
}
