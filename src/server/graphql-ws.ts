import type { Server } from 'node:http';
import type { DocumentNode, ExecutionArgs, GraphQLError } from 'graphql';
import { MessageType, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Context, Services, Viewer } from '../context.js';
import { AppError } from '../errors.js';
import { viewerForToken } from '../resolvers/authentication.js';
import { requestProgress } from '../resolvers/availability-events.js';
import { authTokenFromHeaders } from './auth-header.js';
import { type createGraphQLServer, executeSubscriptionEvent } from './graphql.js';
import { type ResultSink, SharedSubscriptions } from './shared-subscriptions.js';

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

/**
 * What graphql-ws's `rootValue` carries from `onSubscribe` to `execute`/`subscribe`, as Yoga's graphql-ws
 * example does: the Yoga executors, and for a subscription the key of its sharing group.
 */
interface EnvelopedRoot {
  execute(args: ExecutionArgs): unknown;
  subscribe(args: ExecutionArgs): unknown;
  shareKey: string;
  /** Writes a serialised result as this subscription's graphql-ws `next` message. */
  sendNext: ResultSink;
}

/**
 * A sink writing `next` messages of subscription `id` to `socket` (graphql-ws protocol,
 * "Next": `{"id", "type": "next", "payload": ExecutionResult}`), with the payload already serialised —
 * so one event costs one serialisation for all subscribers of a group, as a raw broadcast does. Nothing
 * is written once the socket is closing.
 */
function nextMessageSink(socket: WebSocket, id: string): ResultSink {
  const prefix = `{"id":${JSON.stringify(id)},"type":"${MessageType.Next}","payload":`;
  return (resultJson) => {
    if (socket.readyState === socket.OPEN) socket.send(`${prefix}${resultJson}}`);
  };
}

/**
 * Subscribers that may share one execution: same instance and roles (all a result depends on besides
 * the document), same operation, document text and variables.
 */
function shareKey(viewer: Viewer | null, params: SubscribePayload): string {
  return JSON.stringify([
    viewer?.instanceId ?? null,
    viewer ? [...viewer.roles].sort() : null,
    params.operationName ?? null,
    params.query,
    params.variables ?? null,
  ]);
}

/**
 * Serves GraphQL over WebSocket (graphql-ws protocol) on the HTTP server's `/graphql` path, executing
 * through Yoga's envelop so plugins, error masking and context are the same as over HTTP. A connection
 * without a valid auth token is closed with 4403. Identical subscriptions share one execution per event
 * (see {@link SharedSubscriptions}); `onSubscription` is told of each subscription started.
 *
 * @returns the shared subscriptions (for their counts), and `close()`, which closes every socket (1001)
 *   and the WebSocket server.
 */
export function serveGraphQLOverWebSocket(
  server: Server,
  yoga: ReturnType<typeof createGraphQLServer>,
  services: Services,
  options: {
    onSubscription?: (document: DocumentNode, operationName: string | null | undefined) => void;
  } = {},
): { subscriptions: SharedSubscriptions; close(): Promise<void> } {
  const wsServer = new WebSocketServer({ server, path: '/graphql' });
  const shared = new SharedSubscriptions(requestProgress);
  const production = services.config.NODE_ENV === 'production';
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
      subscribe: (args) => {
        const root = args.rootValue as EnvelopedRoot;
        options.onSubscription?.(args.document, args.operationName);
        return shared.subscribe(
          root.shareKey,
          { ...args, rootValue: undefined },
          (event) => executeSubscriptionEvent(event, production),
          root.sendNext,
        ) as never;
      },
      onSubscribe: async (ctx, id, params) => {
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
        const contextValue = (await contextFactory()) as Context;
        const rootValue: EnvelopedRoot = {
          execute,
          subscribe,
          shareKey: shareKey(contextValue.viewer, params),
          sendNext: nextMessageSink(ctx.extra.socket, id),
        };
        return {
          schema,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
          contextValue,
          rootValue,
        };
      },
    },
    wsServer,
  );
  return {
    subscriptions: shared,
    close: async () => {
      await disposable.dispose();
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
    },
  };
}
