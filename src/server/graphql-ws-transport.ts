import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  CloseCode,
  type ConnectionInitMessage,
  handleProtocols,
  makeServer,
  type ServerOptions,
} from 'graphql-ws';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../logger.js';

/** What a connection keeps: its socket and what `describe` took from the upgrade request. */
export type ConnectionExtra<D> = { readonly socket: WebSocket } & D;

/** The graphql-ws server options with our per-connection extra. */
export type GraphQLWsOptions<D> = ServerOptions<ConnectionInitMessage['payload'], ConnectionExtra<D>>;

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

  const connected = (socket: WebSocket, extra: D) => {
    socket.once('error', (error) => closeWithError(socket, error, 'graphql-ws socket error', 'warn'));
    socket.on('pong', () => unanswered.delete(socket));
    const closed = protocol.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (data) => {
            try {
              await handle(String(data));
            } catch (error) {
              closeWithError(socket, error, 'graphql-ws message handling failed', 'error');
            }
          }),
      },
      { ...extra, socket },
    );
    socket.once('close', (code, reason) => {
      unanswered.delete(socket);
      closed(code, String(reason)).catch((error: unknown) =>
        logger.error({ err: error }, 'graphql-ws could not end a closed connection'),
      );
    });
  };
  const upgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    wsServer.handleUpgrade(request, socket, head, (webSocket) =>
      connected(webSocket, settings.describe(request)),
    );
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
