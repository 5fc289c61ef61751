import { createServer, type ServerResponse } from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';

/*
 * The fan-out ceiling (issue 8): a raw `node:http` + `ws` server that serialises each published event
 * once and writes that same string to every subscriber. It speaks just enough of the graphql-ws protocol
 * (`graphql-transport-ws`: init → ack, ping → pong, subscribe, complete) for the harness to use the very
 * same graphql-ws client against it as against the gateway, so client-side costs cancel out of the ratio.
 * Every `next` message carries the subscription id `bench`: subscribers must subscribe with that id
 * (graphql-ws client option `generateID: () => 'bench'`) for one pre-serialised message to fit them all.
 *
 *   GET  /healthz  → {ws, subscribed, sse}: open sockets, sockets with a subscription, SSE clients
 *   POST /publish  → body: one JSON event (the subscription's payload object); answers {delivered}
 *   GET  /sse      → text/event-stream of `id: <n>` + `data: <event>` for every published event
 *   WS   /graphql  → graphql-ws; each event arrives as `next` with `data.availabilityRequestUpdated`
 *
 * Started by the harness with `startServer({script: 'bench/baselines/raw-ws.ts', readyPath: '/healthz'})`
 * (PORT and HOST from the environment).
 */

/** The one subscription id every subscriber uses, so one serialised message fits all of them. */
const subscriptionId = 'bench';
/** Largest accepted `/publish` body; the events are a few hundred bytes. */
const maxBodyBytes = 64 * 1024;

const subscribed = new Set<WebSocket>();
const sseClients = new Set<ServerResponse>();
let sequence = 0;

function publish(event: unknown): number {
  sequence += 1;
  const message = JSON.stringify({
    id: subscriptionId,
    type: 'next',
    payload: { data: { availabilityRequestUpdated: event } },
  });
  for (const socket of subscribed) socket.send(message);
  if (sseClients.size > 0) {
    const frame = `id: ${sequence}\ndata: ${JSON.stringify(event)}\n\n`;
    for (const client of sseClients) client.write(frame);
  }
  return subscribed.size + sseClients.size;
}

const server = createServer((req, res) => {
  const path = (req.url ?? '/').split('?')[0];
  if (req.method === 'GET' && path === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ws: wss.clients.size, subscribed: subscribed.size, sse: sseClients.size }));
    return;
  }
  if (req.method === 'POST' && path === '/publish') {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) req.destroy();
      else chunks.push(chunk);
    });
    req.on('end', () => {
      let event: unknown;
      try {
        event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"body is not JSON"}');
        return;
      }
      const delivered = publish(event);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ delivered }));
    });
    return;
  }
  if (req.method === 'GET' && path === '/sse') {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write(':\n\n');
    sseClients.add(res);
    res.once('close', () => sseClients.delete(res));
    return;
  }
  res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
});

const wss = new WebSocketServer({ server, path: '/graphql' });
wss.on('connection', (socket) => {
  socket.on('message', (data) => {
    let message: { type?: unknown };
    try {
      message = JSON.parse(data.toString()) as { type?: unknown };
    } catch {
      socket.close(4400, 'Invalid message');
      return;
    }
    switch (message.type) {
      case 'connection_init':
        socket.send('{"type":"connection_ack"}');
        break;
      case 'ping':
        socket.send('{"type":"pong"}');
        break;
      case 'subscribe':
        subscribed.add(socket);
        break;
      case 'complete':
        subscribed.delete(socket);
        break;
      default:
        break;
    }
  });
  socket.once('close', () => subscribed.delete(socket));
});

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1');
const shutdown = () => {
  for (const socket of wss.clients) socket.terminate();
  for (const client of sseClients) client.destroy();
  server.close(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
