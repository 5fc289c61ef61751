import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, maskError as yogaMaskError } from 'graphql-yoga';
import { createContext, type Services } from '../context.js';
import { AppError } from '../errors.js';
import { viewerForToken } from '../resolvers/authentication.js';
import { schema } from '../schema/index.js';
import { authTokenFromHeaders } from './auth-header.js';

/**
 * Maps errors to what GraphQL clients see (DESIGN.md, "Errors (GraphQL)"): an {@link AppError} passes
 * unchanged, carrying its message and `extensions.code` (see `AppError.extensions`); anything unexpected
 * is masked by Yoga's default and logged.
 */
function maskError(error: unknown, message: string, isDev?: boolean): Error {
  // Read structurally, not with `instanceof GraphQLError`: a second copy of graphql (ESM next to CJS)
  // must not turn expected errors into masked ones.
  const original = error instanceof Error && 'originalError' in error ? error.originalError : undefined;
  if (original instanceof AppError) return error as Error;
  return yogaMaskError(error, message, isDev);
}

/**
 * The GraphQL endpoint (`/graphql`): Yoga over the Pothos schema. The viewer comes from the same auth
 * headers as REST; an absent, unknown or expired token gives no viewer, and every operation that needs
 * one answers `UNAUTHENTICATED`.
 */
export function createGraphQLServer(services: Services) {
  const production = services.config.NODE_ENV === 'production';
  return createYoga({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: services.logger,
    maskedErrors: { maskError, isDev: !production },
    graphiql: production ? false : { title: 'Connectivity Gateway' },
    renderGraphiQL,
    context: async (initial: { request?: Request; authToken?: string | null }) => {
      // Over HTTP the token is in the request's headers; over WebSocket graphql-ws passes it in.
      const token =
        initial.authToken ??
        (initial.request ? authTokenFromHeaders((name) => initial.request?.headers.get(name)) : null);
      if (!token) return createContext(services, null);
      try {
        return createContext(services, await viewerForToken(services, token));
      } catch (error) {
        if (error instanceof AppError) return createContext(services, null);
        throw error;
      }
    },
  });
}
