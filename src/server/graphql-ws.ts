import type { Server } from 'node:http';
import type { ExecutionArgs, GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Services } from '../context.js';
import { AppError } from '../errors.js';
import { viewerForToken } from '../resolvers/authentication.js';
import { authTokenFromHeaders } from './auth-header.js';
import type { createGraphQLServer } from './graphql.js';

/** The auth token of a graphql-ws connection: `connection_init` payload `{authToken}`, else the upgrade headers. */
function connectionToken(
  connectionParams: Readonly<Record<string, unknown>> | undefined,
  headers: Record<string, string | string[] | undefined>,
): string | null {
  const fromPayload = connectionParams?.authToken;
  if (typeof fromPayload === 'string' && fromPayload !== '') return fromPayload;
  return authTokenFromHeaders((name) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  });
}

/** The Yoga executors handed through graphql-ws's `rootValue`, as Yoga's graphql-ws example does. */
interface EnvelopedRoot {
  execute(args: ExecutionArgs): unknown;
  subscribe(args: ExecutionArgs): unknown;
}

/**
 * Serves GraphQL over WebSocket (graphql-ws protocol) on the HTTP server's `/graphql` path, executing
 * through Yoga's envelop so plugins, error masking and context are the same as over HTTP. A connection
 * without a valid auth token is closed with 4403.
 *
 * @returns a function that closes every socket (1001) and the WebSocket server.
 */
export function serveGraphQLOverWebSocket(
  server: Server,
  yoga: ReturnType<typeof createGraphQLServer>,
  services: Services,
): () => Promise<void> {
  const wsServer = new WebSocketServer({ server, path: '/graphql' });
  const disposable = useServer(
    {
      onConnect: async (ctx) => {
        const token = connectionToken(ctx.connectionParams, ctx.extra.request.headers);
        if (!token) return false;
        try {
          await viewerForToken(services, token);
          return true;
        } catch (error) {
          if (error instanceof AppError) return false;
          throw error;
        }
      },
      // graphql-ws types these as graphql's own executors; Yoga's enveloped ones return the same results.
      execute: (args) => (args.rootValue as EnvelopedRoot).execute(args) as never,
      subscribe: (args) => (args.rootValue as EnvelopedRoot).subscribe(args) as never,
      onSubscribe: async (ctx, _id, params) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          authToken: connectionToken(ctx.connectionParams, ctx.extra.request.headers),
        });
        // Parse and validate before building the context, so a refused query costs no viewer look-up, and
        // a parse error (or a query over the token limit) is answered as an error, not a closed socket.
        let document: ReturnType<typeof parse>;
        try {
          document = parse(params.query);
        } catch (error) {
          if (error instanceof Error && error.name === 'GraphQLError') return [error as GraphQLError];
          throw error;
        }
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        return {
          schema,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
      },
    },
    wsServer,
  );
  return async () => {
    await disposable.dispose();
    await new Promise<void>((resolve) => wsServer.close(() => resolve()));
  };
}
