import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  CloseCode,
  type ConnectionInitMessage,
  handleProtocols,
  makeServer,
  type WebSocket as ProtocolSocket,
  type ServerOptions,
} from 'graphql-ws';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../logger.js';

/** What a connection keeps: its socket and what `describe` took from the upgrade request. */
export type ConnectionExtra<D> = { readonly socket: WebSocket } & D;

/** The graphql-ws server options with our per-connection extra. */
export type GraphQLWsOptions<D> = ServerOptions<ConnectionInitMessage['payload'], ConnectionExtra<D>>;

/**
 * One accepted socket as graphql-ws's `makeServer` sees it (its `WebSocket` interface), with what the
 * protocol handed back: the handler of the socket's messages and the callback for when it closes.
 */
class Connection implements ProtocolSocket {
  /** graphql-ws's handler of this socket's messages, once `opened` registered it. */
  handle: ((data: string) => Promise<void>) | null = null;
  /** Tells graphql-ws the socket closed (what `opened` returned). */
  closed: ((code?: number, reason?: string) => Promise<void>) | null = null;

  constructor(private readonly socket: WebSocket) {}

  get protocol(): string {
    return this.socket.protocol;
  }

  /** Writes `data`; resolves once it is written, at once when the socket is no longer open. */
  send(data: string): Promise<void> {
    const { socket } = this;
    return new Promise<void>((resolve, reject) => {
      if (socket.readyState !== socket.OPEN) return resolve();
      socket.send(data, (error) => (error ? reject(error) : resolve()));
    });
  }

  close(code?: number, reason?: string): void {
    this.socket.close(code, reason);
  }

  onMessage(handle: (data: string) => Promise<void>): void {
    this.handle = handle;
  }
}

/**
 * graphql-ws (the `graphql-transport-ws` protocol) on `server`'s upgrades to `path`, with the protocol
 * from graphql-ws's `makeServer` and the sockets from `ws` — what graphql-ws's own `useServer` adapter
 * does, with two differences that matter when thousands of clients stay connected:
 *
 * - A connection does not keep its upgrade request, only what `describe` takes from it (e.g. a header's
 *   token and the client address): `useServer` keeps the whole `IncomingMessage` for the connection's
 *   life, about 1.7 KiB each (`npm run bench`, ws-fanout-5000).
 * - One keep-alive timer pings every socket every `keepAliveMs` and ends one that has not answered the
 *   previous ping (the heartbeat of ws's README), instead of a timer per socket.
 * - A connection holds no closures of its own: the socket listeners are shared, and what graphql-ws calls
 *   on a socket are the methods of one small `Connection`. A subscribe message is handled without a
 *   listener awaiting it, so its buffer is not held for the subscription's life.
 *
 * As in `useServer`: upgrades to other paths are refused with 400, subprotocols are negotiated by
 * graphql-ws's `handleProtocols`, and an error on a socket or in a message handler closes that socket
 * with graphql-ws's 4500 Internal Server Error (the error's message as reason only outside production).
 *
 * @returns `close()`, which closes each socket with 1001 and stops accepting upgrades.
 */
export function serveGraphQLWs<D extends object>(
  server: Server,
  options: GraphQLWsOptions<D>,
  settings: {
    path: string;
    describe: (request: IncomingMessage) => D;
    logger: Logger;
    production: boolean;
    keepAliveMs?: number;
  },
): { close(): Promise<void> } {
  const { logger, production } = settings;
  const protocol = makeServer(options);
  const wsServer = new WebSocketServer({ noServer: true, path: settings.path, handleProtocols });
  const closeWithError = (socket: WebSocket, error: unknown, what: string, level: 'warn' | 'error') => {
    logger[level]({ err: error }, what);
    const message = String((error as Error | null)?.message ?? error);
    // A close reason is at most 123 bytes (RFC 6455, 5.5): a longer message gives way to the generic one.
    const reason = production || Buffer.byteLength(message) > 123 ? 'Internal server error' : message;
    socket.close(CloseCode.InternalServerError, reason);
  };

  const unanswered = new Set<WebSocket>();
  const keepAlive = setInterval(() => {
    for (const socket of wsServer.clients) {
      if (unanswered.has(socket)) {
        socket.terminate();
        continue;
      }
      if (socket.readyState !== socket.OPEN) continue;
      unanswered.add(socket);
      socket.ping();
    }
  }, settings.keepAliveMs ?? 12_000);
  keepAlive.unref();

  // One set of listeners for every socket (`ws` calls them with the socket as `this`), so a connection
  // costs its `Connection` and no closures of its own.
  const connections = new WeakMap<WebSocket, Connection>();
  function onSocketError(this: WebSocket, error: Error): void {
    closeWithError(this, error, 'graphql-ws socket error', 'warn');
  }
  function onPong(this: WebSocket): void {
    unanswered.delete(this);
  }
  function onSocketMessage(this: WebSocket, data: RawData): void {
    // Not awaited here: a subscription's handler runs for the subscription's whole life, and an
    // awaiting listener would keep this message's buffer that long.
    connections
      .get(this)
      ?.handle?.(String(data))
      .catch((error: unknown) => closeWithError(this, error, 'graphql-ws message handling failed', 'error'));
  }
  function onSocketClose(this: WebSocket, code: number, reason: Buffer): void {
    unanswered.delete(this);
    connections
      .get(this)
      ?.closed?.(code, String(reason))
      .catch((error: unknown) =>
        logger.error({ err: error }, 'graphql-ws could not end a closed connection'),
      );
  }

  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    wsServer.handleUpgrade(request, socket, head, (webSocket) => {
      const connection = new Connection(webSocket);
      connections.set(webSocket, connection);
      webSocket.on('error', onSocketError);
      webSocket.on('pong', onPong);
      webSocket.on('message', onSocketMessage);
      webSocket.on('close', onSocketClose);
      // Assigned, not spread: an object spread with an added key gets a hidden class of its own in V8.
      const extra: ConnectionExtra<D> = Object.assign(settings.describe(request), { socket: webSocket });
      connection.closed = protocol.opened(connection, extra);
    });
  };
  server.on('upgrade', upgrade);
  wsServer.on('error', (error) => {
    for (const socket of wsServer.clients) closeWithError(socket, error, 'graphql-ws server error', 'error');
  });

  return {
    close: async () => {
      server.off('upgrade', upgrade);
      clearInterval(keepAlive);
      for (const socket of wsServer.clients) socket.close(1001, 'Going away');
      await new Promise<void>((resolve, reject) =>
        wsServer.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
