import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema } from 'graphql';
import { createClient } from 'graphql-ws';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type GraphQLWsOptions, serveGraphQLWs } from '../../src/server/graphql-ws-transport.js';

const schema = buildSchema('type Query { hello: String }');
const rootValue = { hello: () => 'world' };

interface Running {
  url: string;
  close(): Promise<void>;
}

let running: Running | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

/** An HTTP server on 127.0.0.1 with the transport on `/graphql`; `describe` keeps the user agent. */
async function start(
  options: Partial<GraphQLWsOptions<{ agent: string }>> = {},
  settings: { keepAliveMs?: number; production?: boolean } = {},
): Promise<Running> {
  const server: Server = createServer((_, res) => res.writeHead(404).end());
  const transport = serveGraphQLWs(
    server,
    { schema, roots: { query: rootValue }, ...options },
    {
      path: '/graphql',
      describe: (request: IncomingMessage) => ({ agent: request.headers['user-agent'] ?? '' }),
      logger: pino({ level: 'silent' }),
      production: settings.production ?? true,
      ...(settings.keepAliveMs === undefined ? {} : { keepAliveMs: settings.keepAliveMs }),
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  running = {
    url: `ws://127.0.0.1:${port}/graphql`,
    close: async () => {
      await transport.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return running;
}

/** Opens a graphql-transport-ws socket and resolves once it is open. */
function open(url: string, options: WebSocket.ClientOptions = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws', options);
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The close code and reason a socket gets. */
function closing(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
}

describe('serveGraphQLWs', () => {
  it('when a client queries, then it gets the result, and the connection kept only the socket and what describe took', async () => {
    let extraKeys: string[] = [];
    let agent = '';
    const { url } = await start({
      onConnect: (ctx) => {
        extraKeys = Object.keys(ctx.extra).sort();
        agent = ctx.extra.agent;
        return true;
      },
    });
    const client = createClient({
      url,
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols: string | string[]) {
          super(address, protocols, { headers: { 'user-agent': 'transport-test/1' } });
        }
      },
    });
    try {
      const result = await new Promise((resolve, reject) => {
        client.subscribe({ query: '{ hello }' }, { next: resolve, error: reject, complete: () => {} });
      });
      expect(result).toEqual({ data: { hello: 'world' } });
      expect(extraKeys).toEqual(['agent', 'socket']);
      expect(agent).toBe('transport-test/1');
    } finally {
      await client.dispose();
    }
  });

  it('when an upgrade asks for another path, then it is refused with 400', async () => {
    const { url } = await start();
    const status = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(url.replace('/graphql', '/other'), 'graphql-transport-ws');
      socket.once('unexpected-response', (_, response) => resolve(response.statusCode ?? 0));
      socket.once('open', () => reject(new Error('the upgrade was accepted')));
    });
    expect(status).toBe(400);
  });

  it('when a client stops answering pings, then its socket is ended while one that answers stays open', async () => {
    const { url } = await start({}, { keepAliveMs: 500 });
    const silent = await open(url, { autoPong: false });
    const answering = await open(url);
    const silentClosed = closing(silent);

    expect((await silentClosed).code).toBe(1006);
    expect(answering.readyState).toBe(WebSocket.OPEN);
    answering.close();
  });

  it('when handling a message throws, then that socket closes with 4500 and no internals in production', async () => {
    const { url } = await start({
      onConnect: () => {
        throw new Error('database is locked');
      },
    });
    const socket = await open(url);
    const closed = closing(socket);
    socket.send(JSON.stringify({ type: 'connection_init' }));

    expect(await closed).toEqual({ code: 4500, reason: 'Internal server error' });
  });

  it('when handling throws outside production, then the reason is the message, unless it is over 123 bytes', async () => {
    const messages = ['database is locked', `database is locked: ${'é'.repeat(60)}`];
    const { url } = await start(
      {
        onConnect: () => {
          throw new Error(messages.shift());
        },
      },
      { production: false },
    );
    const reasons: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const socket = await open(url);
      const closed = closing(socket);
      socket.send(JSON.stringify({ type: 'connection_init' }));
      reasons.push((await closed).reason);
    }

    expect(reasons).toEqual(['database is locked', 'Internal server error']);
  });

  it('when the transport closes, then every open socket is told 1001 Going away', async () => {
    const server = await start();
    const socket = await open(server.url);
    const closed = closing(socket);

    await server.close();
    running = null;

    expect(await closed).toEqual({ code: 1001, reason: 'Going away' });
  });
});
