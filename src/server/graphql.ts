import type { IncomingMessage } from 'node:http';
import { EnvelopArmor } from '@escape.tech/graphql-armor';
import {
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  type GraphQLError,
  NoSchemaIntrospectionCustomRule,
  type ValidationContext,
} from 'graphql';
import {
  createGraphQLError,
  createYoga,
  type Plugin,
  type YogaInitialContext,
  maskError as yogaMaskError,
} from 'graphql-yoga';
import { type Context, createContext, type Services, type Viewer } from '../context.js';
import { AppError, DependencyUnavailableError } from '../errors.js';
import { authTokenFromHeaders } from '../http/auth-header.js';
import { clientAddress } from '../http/client-address.js';
import { rateLimitHeaders } from '../rate-limits.js';
import { hashCredential, viewerForTokenHash } from '../resolvers/authentication.js';
import { schema } from '../schema/index.js';
import { graphqlTracing } from '../telemetry/graphql-tracing.js';
import { graphqlIdempotency } from './graphql-idempotency.js';
import { compiledExecution } from './graphql-jit.js';
import { graphqlLimits } from './graphql-limits.js';
import { endRevokedStreams } from './graphql-revocation.js';
import { subscriptionRefusals } from './graphql-subscription-refusals.js';
import { unavailableAnswers } from './graphql-unavailable.js';

/** What replaces a "Did you mean …?" hint: graphql-armor's own mask, so every hidden hint reads alike. */
const hiddenSuggestion = '[Suggestion hidden]';

/**
 * Replaces graphql-js's "Did you mean …?" hints in an error message, which would otherwise reveal the
 * schema's names. graphql-armor hides them in validation errors only, and misses the "Did you mean the
 * enum value …?" form; variables are checked later, during execution.
 */
function hideSuggestions<E extends Error>(error: E): E {
  if (error.message.includes('Did you mean')) {
    error.message = error.message.replace(/Did you mean [^?]*\?/g, hiddenSuggestion);
  }
  return error;
}

/**
 * Maps errors to what GraphQL clients see (DESIGN.md, "Errors (GraphQL)"): an {@link AppError} passes
 * unchanged, carrying its message and `extensions.code` (see `AppError.extensions`); anything unexpected
 * is masked by Yoga's default and logged — with neither message nor stack outside `isDev`.
 */
function maskError(error: unknown, message: string, isDev?: boolean): Error {
  // Read structurally, not with `instanceof GraphQLError`: a second copy of graphql (ESM next to CJS)
  // must not turn expected errors into masked ones.
  const original = error instanceof Error && 'originalError' in error ? error.originalError : undefined;
  if (original instanceof AppError) return error as Error;
  return hideSuggestions(yogaMaskError(error, message, isDev));
}

/**
 * Executes one event of a subscription document with `payload` as its root value — what a subscription
 * does per event, for subscriptions that share one execution (`shared-subscriptions.ts`) — with errors
 * masked as Yoga masks them (see {@link maskError}). graphql-js's own `execute` is used: Yoga's executor
 * would start a new subscription for a subscription document.
 */
export async function executeSubscriptionEvent(
  args: ExecutionArgs,
  production: boolean,
): Promise<ExecutionResult> {
  return maskExecutionErrors(await execute(args), production);
}

/**
 * `result` with its unexpected errors masked as Yoga masks them (see {@link maskError}), for results that
 * do not pass through Yoga; `result` itself when every error is expected (an {@link AppError}) or there
 * is none.
 */
export function maskExecutionErrors(result: ExecutionResult, production: boolean): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map(
    (error) => maskError(error, 'Unexpected error.', !production) as GraphQLError,
  );
  return errors.every((error, index) => error === result.errors?.[index]) ? result : { ...result, errors };
}

/**
 * Refuses a document longer than {@link graphqlLimits.maxCharacters} as its parse result, so Yoga answers
 * it like a syntax error (`GRAPHQL_PARSE_FAILED`, 400 under `application/graphql-response+json`).
 * Listed after graphql-armor, whose token limit also replaces the parse function.
 */
const characterLimit: Plugin = {
  onParse({ params, setParseFn }) {
    const length = typeof params.source === 'string' ? params.source.length : params.source.body.length;
    if (length > graphqlLimits.maxCharacters) {
      setParseFn(() => {
        throw createGraphQLError(
          `Syntax Error: Character limit of ${graphqlLimits.maxCharacters} exceeded, found ${length}.`,
        );
      });
    }
  },
};

/** Refuses every `__schema` and `__type` field, wherever it is in the document (`__typename` stays). */
const noIntrospection: Plugin = {
  onValidate({ addValidationRule }) {
    addValidationRule(NoSchemaIntrospectionCustomRule);
  },
};

/**
 * Hides the hints graphql-armor leaves in validation errors (see {@link hideSuggestions}); listed after
 * graphql-armor so it sees the final result.
 */
const noSuggestions: Plugin = {
  onValidate:
    () =>
    ({ valid, result }) => {
      if (!valid) for (const error of result) hideSuggestions(error);
    },
};

/**
 * Reports a graphql-armor rejection as a validation error instead of throwing it out of `validate`: Yoga
 * then gives it `GRAPHQL_VALIDATION_FAILED` and HTTP 400 under `application/graphql-response+json`,
 * like every other invalid document (thrown, it would be a 200 without a code).
 */
function reportRejection(context: ValidationContext | null, error: GraphQLError): void {
  context?.reportError(createGraphQLError(error.message.replace(/^Syntax Error: /, '')));
}

/**
 * Everything that refuses a document before any resolver runs: the limits of {@link graphqlLimits},
 * hidden field suggestions, and — in production — no introspection. graphql-armor's depth and cost
 * limits skip introspection outside production only, so that GraphiQL can read the schema there.
 */
function guardPlugins(production: boolean): Plugin[] {
  const asValidationError = { propagateOnRejection: false, onReject: [reportRejection] };
  const armor = new EnvelopArmor<YogaInitialContext>({
    // Fragments flattened: a spread adds no level and its fields cost what they would inline, so a query
    // written with colocated fragments (as Relay writes every query) measures as its inlined form.
    maxDepth: {
      n: graphqlLimits.maxDepth,
      flattenFragments: true,
      ignoreIntrospection: !production,
      ...asValidationError,
    },
    maxAliases: { n: graphqlLimits.maxAliases, ...asValidationError },
    maxDirectives: { n: graphqlLimits.maxDirectives, ...asValidationError },
    costLimit: {
      maxCost: graphqlLimits.maxCost,
      flattenFragments: true,
      ignoreIntrospection: !production,
      ...asValidationError,
    },
    // Counted while parsing, where there is no validation context: Yoga reports it as a syntax error.
    maxTokens: { n: graphqlLimits.maxTokens },
    blockFieldSuggestion: { enabled: true },
  });
  return [
    ...armor.protect().plugins,
    characterLimit,
    ...(production ? [noIntrospection] : []),
    noSuggestions,
  ];
}

/**
 * The GraphQL endpoint (`/graphql`): Yoga over the Pothos schema. The viewer comes from the same auth
 * headers as REST; an absent, unknown, revoked or expired token gives no viewer, and every operation that
 * needs one answers `UNAUTHENTICATED`. A subscription stream (SSE) ends when its token is revoked or its
 * application disabled (`endRevokedStreams`).
 */
export function createGraphQLServer(services: Services, options: { plugins?: Plugin[] } = {}) {
  const production = services.config.NODE_ENV === 'production';
  return createYoga({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // Checked on Content-Length in front of Yoga instead (see graphql-body-limit.ts): Yoga's own check
    // streams every body through a TransformStream.
    maxRequestBodySize: false,
    logging: services.logger,
    maskedErrors: { maskError, isDev: !production },
    graphiql: production ? false : { title: 'Connectivity Gateway' },
    // Loaded on the first GraphiQL page only: the module holds GraphiQL's whole bundle as one ~18 MB
    // string, kept for the process's life once imported — and production serves no GraphiQL.
    renderGraphiQL: async (graphiqlOptions) =>
      (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(graphiqlOptions),
    plugins: [
      // First, so that its span covers the whole operation (issue 37; none without tracing).
      ...graphqlTracing(),
      ...guardPlugins(production),
      ...compiledExecution(services.logger),
      graphqlIdempotency(services),
      subscriptionRefusals(),
      unavailableAnswers(),
      endRevokedStreams(services),
      ...(options.plugins ?? []),
    ],
    // Built after parsing and validation: a refused document costs no database read.
    context: (initial: {
      request?: Request;
      authToken?: string | null;
      req?: IncomingMessage;
      remoteAddress?: string;
    }) =>
      graphqlCallerContext(services, {
        // Over HTTP the token is in the request's headers; over WebSocket graphql-ws passes it in.
        token:
          initial.authToken ??
          (initial.request ? authTokenFromHeaders((name) => initial.request?.headers.get(name)) : null),
        remoteAddress: initial.req ? clientAddress(services.config, initial.req) : initial.remoteAddress,
      }),
  });
}

/**
 * The context of one GraphQL operation of a caller: the viewer of `token` — none for an absent, unknown
 * or expired token — after the caller's rate limits, the same as REST's (per token and instance;
 * anonymous callers per client address).
 *
 * @throws {GraphQLError} `LIMIT_EXCEEDED` (HTTP 429 with the limit's headers) when a limit is used up;
 *   `UNAVAILABLE` (HTTP 503 with `Retry-After`) when the token could not be looked up because the store is
 *   down — not `UNAUTHENTICATED`, which would tell a valid caller to sign in again (issue 48).
 */
export async function graphqlCallerContext(
  services: Services,
  caller: { token: string | null; remoteAddress: string | undefined },
): Promise<Context> {
  const tokenHash = caller.token ? hashCredential(caller.token) : null;
  let viewer: Viewer | null = null;
  if (tokenHash) {
    try {
      viewer = await viewerForTokenHash(services, tokenHash);
    } catch (error) {
      if (error instanceof DependencyUnavailableError) {
        throw createGraphQLError(error.message, {
          originalError: error,
          extensions: {
            code: 'UNAVAILABLE',
            http: { status: 503, headers: { 'retry-after': String(error.retryAfterSeconds) } },
          },
        });
      }
      if (!(error instanceof AppError)) throw error;
    }
  }
  const decision =
    viewer && tokenHash
      ? await services.rateLimits.forCaller(tokenHash, viewer.instanceId)
      : await services.rateLimits.forAnonymous(caller.remoteAddress ?? 'unknown');
  if (!decision.allowed) {
    throw createGraphQLError(`Too many requests; try again in ${decision.resetSeconds} s.`, {
      extensions: { code: 'LIMIT_EXCEEDED', http: { status: 429, headers: rateLimitHeaders(decision) } },
    });
  }
  return createContext(services, viewer);
}
