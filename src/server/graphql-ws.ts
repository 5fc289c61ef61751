import type { IncomingMessage, Server } from 'node:http';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLError,
  type GraphQLSchema,
  getOperationAST,
} from 'graphql';
import { CloseCode, MessageType } from 'graphql-ws';
import { LRUCache } from 'lru-cache';
import type { WebSocket } from 'ws';
import type { Config } from '../config.js';
import type { Context, Services, Viewer } from '../context.js';
import { AppError, DependencyUnavailableError } from '../errors.js';
import { authTokenFromHeaders } from '../http/auth-header.js';
import { clientAddress } from '../http/client-address.js';
import { viewerForToken } from '../resolvers/authentication.js';
import { subscriptionProgress } from '../resolvers/order-events.js';
import {
  type createGraphQLServer,
  executeSubscriptionEvent,
  graphqlCallerContext,
  maskExecutionErrors,
} from './graphql.js';
import { serveGraphQLWs } from './graphql-ws-transport.js';
import { type ResultSink, SharedSubscriptions } from './shared-subscriptions.js';

/** What a connection keeps of its upgrade request. */
interface UpgradeFacts {
  /** The token of the upgrade's `X-Auth-Token` or `Authorization: Bearer` header, if any. */
  headerToken: string | null;
  remoteAddress: string | undefined;
}

function upgradeFacts(config: Config, request: IncomingMessage): UpgradeFacts {
  const headerToken = authTokenFromHeaders((name) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  });
  return { headerToken, remoteAddress: clientAddress(config, request) };
}

/** The auth token of a graphql-ws connection: `connection_init` payload `{authToken}`, else the upgrade's. */
function connectionToken(
  connectionParams: Readonly<Record<string, unknown>> | undefined,
  upgrade: UpgradeFacts,
): string | null {
  const fromPayload = connectionParams?.authToken;
  if (typeof fromPayload === 'string' && fromPayload !== '') return fromPayload;
  return upgrade.headerToken;
}

/** WebSocket close code 1013, "Try Again Later" (IANA WebSocket Close Code Number Registry). */
const TRY_AGAIN_LATER = 1013;

/** A GraphQL error, told by name: a second copy of graphql (ESM next to CJS) fails `instanceof`. */
function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof Error && error.name === 'GraphQLError';
}

/** Whether `operationName` (or the only operation) of `document` is a subscription. */
function isSubscriptionOf(document: DocumentNode, operationName: string | null | undefined): boolean {
  return getOperationAST(document, operationName)?.operation === 'subscription';
}

/** The Yoga executors handed through graphql-ws's `rootValue` for a query or mutation. */
interface ExecutorsRoot {
  execute(args: ExecutionArgs): unknown;
  subscribe(args: ExecutionArgs): unknown;
}

/** What a subscription's `rootValue` carries from `onSubscribe` to `subscribe`. */
interface SharedRoot {
  /** The group of subscribers it may share one execution with (see {@link shareKey}). */
  shareKey: string;
  /** Writes a serialised result as this subscription's graphql-ws `next` message. */
  sendNext: ResultSink;
}

/** A small number per parsed document: Yoga's parse cache gives one document per query text. */
const documentNumbers = new WeakMap<DocumentNode, number>();
let documentsNumbered = 0;

/**
 * Subscribers that may share one execution: same instance and roles (all a result depends on besides
 * the document), same parsed document, operation and variables. Short, since every subscriber keeps it.
 */
function shareKey(
  viewer: Viewer | null,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): string {
  let number = documentNumbers.get(document);
  if (number === undefined) {
    documentsNumbered += 1;
    number = documentsNumbered;
    documentNumbers.set(document, number);
  }
  return JSON.stringify([
    viewer?.instanceId ?? null,
    viewer ? [...viewer.roles].sort().join(',') : null,
    number,
    operationName ?? null,
    variables ?? null,
  ]);
}

/**
 * A sink writing `next` messages of subscription `id` to `socket` (graphql-ws protocol,
 * "Next": `{"id", "type": "next", "payload": ExecutionResult}`), with the payload already serialised —
 * so one event costs one serialisation for all subscribers of a group, as a raw broadcast does. Nothing
 * is written once the socket is closing.
 */
class NextMessageSink implements ResultSink {
  private readonly prefix: string;

  constructor(
    private readonly socket: WebSocket,
    id: string,
  ) {
    this.prefix = `{"id":${JSON.stringify(id)},"type":"${MessageType.Next}","payload":`;
  }

  write(resultJson: string): void {
    const { socket } = this;
    if (socket.readyState === socket.OPEN) socket.send(`${this.prefix}${resultJson}}`);
  }
}

/**
 * A subscription whose event stream could not start — `UNAUTHENTICATED` once the connection's token has
 * expired, `FORBIDDEN` for a role without access, … — as a stream that fails at once with its (first)
 * error. graphql-ws answers that with an `error` message, the protocol's refusal of one operation, and
 * the connection and its other subscriptions go on; a result would be sent as `next` and `complete`,
 * which clients read as a subscription that ran and ended. The error keeps its message and
 * `extensions.code`; graphql-ws drops its locations and path.
 */
function refusedStream(result: ExecutionResult): AsyncIterableIterator<never> {
  const [error] = result.errors ?? [];
  const stream: AsyncIterableIterator<never> = {
    [Symbol.asyncIterator]: () => stream,
    next: () => Promise.reject(error ?? new Error('The subscription could not start.')),
    return: () => Promise.resolve({ done: true, value: undefined }),
  };
  return stream;
}

/**
 * Serves GraphQL over WebSocket (graphql-ws protocol) on the HTTP server's `/graphql` path, executing
 * through Yoga's envelop so plugins, error masking and context are the same as over HTTP. A connection
 * without a valid auth token is closed with 4403, and so is an open connection once its token is revoked or
 * its application disabled (`services.revocations`). Identical subscriptions share one execution per event
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
  const shared = new SharedSubscriptions(subscriptionProgress);
  /** The token of each accepted connection, as each of its subscriptions uses it. */
  const connectionTokens = new WeakMap<WebSocket, string>();
  const production = services.config.NODE_ENV === 'production';
  const executeEvent = (event: ExecutionArgs) => executeSubscriptionEvent(event, production);
  /**
   * Subscription documents already parsed and validated, by query text: thousands of dashboards subscribe
   * with the same few documents, and only the first of each pays for Yoga's envelop (parse, validate and
   * their plugin hooks, ~8 KB of garbage a subscribe at 1,000 subscribers, `npm run bench`). Parsing and
   * validation depend on the text alone — the limits are the same for every caller — so a checked document
   * holds for every connection. Queries and mutations always take the envelop.
   */
  const checkedSubscriptions = new LRUCache<string, { schema: GraphQLSchema; document: DocumentNode }>({
    max: 256,
  });
  // Accepted connections by socket, closed with 4403 when their token is revoked or their application
  // disabled: the protocol's "Forbidden", as for a connection whose token is refused at `connection_init`.
  const sessions = services.revocations.sessions<WebSocket>((socket) =>
    socket.close(CloseCode.Forbidden, 'Forbidden'),
  );
  const transport = serveGraphQLWs<UpgradeFacts>(
    server,
    {
      onConnect: async (ctx) => {
        const token = connectionToken(ctx.connectionParams, ctx.extra);
        if (!token) return false;
        try {
          const viewer = await viewerForToken(services, token);
          const { socket } = ctx.extra;
          // The client may have gone while its token was being checked: there is nothing to register.
          if (socket.readyState !== socket.OPEN) return false;
          connectionTokens.set(socket, token);
          sessions.add(socket, { tokenId: viewer.tokenId, applicationId: viewer.applicationId });
          return true;
        } catch (error) {
          // The store is down (issue 48): not the client's fault. 1013 "Try Again Later" (RFC 6455 registry),
          // which a graphql-ws client retries, where the 4403 of a refused token would end it for good.
          if (error instanceof DependencyUnavailableError) {
            ctx.extra.socket.close(TRY_AGAIN_LATER, 'The database is unavailable; try again later.');
            return false;
          }
          if (error instanceof AppError) return false;
          throw error;
        }
      },
      onClose: (ctx) => {
        sessions.delete(ctx.extra.socket);
      },
      // graphql-ws types these as graphql's own executors; Yoga's enveloped ones return the same results.
      execute: (args) => (args.rootValue as ExecutorsRoot).execute(args) as never,
      subscribe: async (args) => {
        const root = args.rootValue as SharedRoot;
        options.onSubscription?.(args.document, args.operationName);
        const subscribed = shared.subscribe(
          root.shareKey,
          { ...args, rootValue: undefined },
          executeEvent,
          root.sendNext,
        );
        // graphql-ws holds `args` for the subscription's life but reads it no more (it would hand it only to
        // an `onNext` hook, which this server has not): the subscription keeps its context elsewhere.
        args.contextValue = undefined;
        args.rootValue = undefined;
        const result = await subscribed;
        if (Symbol.asyncIterator in result) return result as never;
        const masked = maskExecutionErrors(result, production);
        if (masked !== result)
          services.logger.error({ err: result.errors?.[0] }, 'subscription could not start');
        return refusedStream(masked) as never;
      },
      onSubscribe: async (ctx, id, params) => {
        const authToken = connectionTokens.get(ctx.extra.socket) ?? null;
        const { remoteAddress } = ctx.extra;
        let enveloped: ReturnType<typeof yoga.getEnveloped> | null = null;
        const envelop = () => {
          enveloped ??= yoga.getEnveloped({
            ...ctx,
            socket: ctx.extra.socket,
            params,
            authToken,
            remoteAddress,
          });
          return enveloped;
        };
        let checked = checkedSubscriptions.get(params.query) ?? null;
        let isSubscription = checked !== null && isSubscriptionOf(checked.document, params.operationName);
        if (!checked || !isSubscription) {
          // Parse and validate before building the context, so a refused query costs no viewer look-up, and
          // a parse error (or a query over the token limit) is answered as an error, not a closed socket.
          const { schema, parse, validate } = envelop();
          let document: DocumentNode;
          try {
            document = parse(params.query);
          } catch (error) {
            if (isGraphQLError(error)) return [error];
            throw error;
          }
          const errors = validate(schema, document);
          if (errors.length > 0) return errors;
          checked = { schema, document };
          isSubscription = isSubscriptionOf(document, params.operationName);
          if (isSubscription) checkedSubscriptions.set(params.query, checked);
        }
        const { schema, document } = checked;
        const operation = {
          schema,
          operationName: params.operationName,
          document,
          variableValues: params.variables,
        };
        let contextValue: Context;
        try {
          // A subscription keeps only the caller's context (see below), so it is built without Yoga's
          // context object, which would be thrown away.
          contextValue = isSubscription
            ? await graphqlCallerContext(services, { token: authToken, remoteAddress })
            : ((await envelop().contextFactory()) as Context);
        } catch (error) {
          // A used-up rate limit is answered as this operation's error; the connection stays.
          if (isGraphQLError(error)) return [error];
          throw error;
        }
        if (isSubscription) {
          // A subscription lives as long as its client: it keeps only what its events need — no request,
          // socket or Yoga executors, which thousands of open subscriptions would otherwise each hold.
          const rootValue: SharedRoot = {
            shareKey: shareKey(contextValue.viewer, document, params.operationName, params.variables),
            sendNext: new NextMessageSink(ctx.extra.socket, id),
          };
          return { ...operation, contextValue, rootValue };
        }
        const { execute, subscribe } = envelop();
        const rootValue: ExecutorsRoot = { execute, subscribe };
        return { ...operation, contextValue, rootValue };
      },
    },
    {
      path: '/graphql',
      describe: (request: IncomingMessage) => upgradeFacts(services.config, request),
      logger: services.logger.child({ component: 'graphql-ws' }),
      production,
    },
  );
  return { subscriptions: shared, close: () => transport.close() };
}
