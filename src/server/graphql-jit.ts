import { useGraphQlJit } from '@envelop/graphql-jit';
import { type DocumentNode, GraphQLError, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';

/** A field error as graphql-jit builds it: `locations` as line/column pairs, but no AST nodes. */
interface CompiledFieldError extends Error {
  locations?: readonly { line: number; column: number }[];
  path?: readonly (string | number)[];
  originalError?: Error;
  extensions?: Record<string, unknown>;
}

/** The character offset of a 1-based line and column in `body`. */
function positionOf(body: string, line: number, column: number): number {
  let offset = 0;
  for (let current = 1; current < line; current += 1) {
    const next = body.indexOf('\n', offset);
    if (next === -1) break;
    offset = next + 1;
  }
  return offset + column - 1;
}

/**
 * graphql-jit's field errors carry `locations` but neither AST nodes nor source positions, and Yoga
 * rebuilds every error from those two only — so the `locations` would be dropped from the response. This rebuilds each as a graphql-js
 * `GraphQLError` at the same source positions, keeping message, path, original error and extensions.
 */
function withLocations(error: CompiledFieldError, document: DocumentNode): GraphQLError {
  const source = document.loc?.source;
  if (!source || !error.locations?.length || ('positions' in error && error.positions))
    return error as GraphQLError;
  return new GraphQLError(error.message, {
    source,
    positions: error.locations.map(({ line, column }) => positionOf(source.body, line, column)),
    path: error.path,
    originalError: error.originalError ?? error,
    extensions: error.extensions,
  });
}

/**
 * Runs queries and mutations through graphql-jit (`@envelop/graphql-jit`): each document is compiled once
 * (cached by the parsed document, which Yoga's parse cache reuses for the same text) into a function that
 * executes it without graphql-js's per-field interpretation — the largest cost of a list query
 * (`npm run bench`, BENCHMARKS.md). Field errors keep their `locations` (see {@link withLocations}).
 *
 * Subscriptions keep the standard executor: the compiled form of a subscription document returns an event
 * stream even where one event is executed (see `shared-subscriptions.ts`). A document graphql-jit cannot
 * compile is answered with its errors, and logged.
 */
export function compiledExecution(logger: Logger): Plugin[] {
  const isSubscription = (document: DocumentNode, operationName?: string | null) =>
    getOperationAST(document, operationName ?? undefined)?.operation === 'subscription';
  return [
    useGraphQlJit(
      {},
      {
        enableIf: (args) => !isSubscription(args.document, args.operationName),
        onError: (result) =>
          logger.error({ errors: result.errors }, 'graphql-jit could not compile a document'),
      },
    ) as Plugin,
    {
      onExecute: ({ args }) => ({
        onExecuteDone: ({ result, setResult }) => {
          if ('errors' in result && result.errors?.length) {
            setResult({
              ...result,
              errors: result.errors.map((error) => withLocations(error as CompiledFieldError, args.document)),
            });
          }
        },
      }),
    },
  ];
}
