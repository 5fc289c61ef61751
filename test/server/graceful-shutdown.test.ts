import { request } from 'node:http';
import { createClient } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { contractExampleBatch, startTestServer, type TestServer } from '../helpers/app.js';

/*
 * Issue 17, graceful shutdown: what `app.stop()` (SIGTERM in `npm start`) does to the requests and streams
 * it finds. The timeout for requests in flight is ten minutes here, so a stop that waited on a stream it
 * should have ended would fail the test by its own timeout.
 */
const env = { SHUTDOWN_TIMEOUT_SECONDS: '600' };

/** A POST whose body is sent in two parts: the request is in flight between `start` and `finish`. */
function slowPost(url: string, token: string, body: string) {
  const half = Math.floor(body.length / 2);
  let sendRest: () => void = () => {};
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'x-auth-token': token,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, half));
    sendRest = () => req.end(body.slice(half));
  });
  return { answer, finish: () => sendRest() };
}

describe('graceful shutdown', () => {
  let server: TestServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('when the service stops while a create is in flight, then /readyz turns not ready at once and the create is still answered 201 before stop resolves', async () => {
    server = await startTestServer({ env });
    const tenant = await server.tenant();
    const post = slowPost(
      `${server.app.url}/availability-requests`,
      tenant.api.token ?? '',
      JSON.stringify([contractExampleBatch[0]]),
    );
    // The server is reading the body: the request is in flight.
    while (server.app.requestsInFlight() === 0) await new Promise((resolve) => setTimeout(resolve, 10));

    let stopped = false;
    const stopping = server.app.stop().then(() => {
      stopped = true;
    });
    const readiness = await server.app.readiness();
    expect(readiness.status).toBe('not_ready');
    expect(stopped).toBe(false);

    post.finish();
    const answer = await post.answer;
    await stopping;

    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body).data[0].id).toMatch(/^avr_/);
    expect(stopped).toBe(true);
  });

  it('when the service stops with a drain window, then it serves on meanwhile, closing each connection and answering /readyz 503, and then takes no connection', async () => {
    server = await startTestServer({ env: { ...env, SHUTDOWN_DRAIN_SECONDS: '1' } });
    const tenant = await server.tenant();
    const stopping = server.app.stop();

    const ready = await fetch(`${server.app.url}/readyz`);
    const list = await fetch(`${server.app.url}/availability-requests`, {
      headers: { 'x-auth-token': tenant.api.token ?? '' },
    });
    expect([ready.status, ready.headers.get('connection'), await ready.json()]).toEqual([
      503,
      'close',
      { status: 'not_ready', database: true, redis: null, worker: true },
    ]);
    expect([list.status, list.headers.get('connection')]).toEqual([200, 'close']);
    await list.arrayBuffer();
    await stopping;

    await expect(fetch(`${server.app.url}/healthz`)).rejects.toThrow();
  });

  it('when it drains behind a trusted balancer, then the reads the balancer forwards get 503 with Retry-After, and writes and probes are served', async () => {
    server = await startTestServer({
      env: { ...env, SHUTDOWN_DRAIN_SECONDS: '1', TRUSTED_PROXIES: '127.0.0.1' },
    });
    const tenant = await server.tenant();
    const stopping = server.app.stop();

    const read = await tenant.api.get('/availability-requests');
    const write = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
    const ready = await fetch(`${server.app.url}/readyz`);
    await ready.arrayBuffer();
    await stopping;

    expect([read.status, read.headers.get('retry-after'), read.body.type]).toEqual([
      503,
      '1',
      'urn:connectivity-gateway:problem:unavailable',
    ]);
    expect(write.status).toBe(201);
    expect(ready.status).toBe(503);
  });

  it('when the service stops, then a GraphQL SSE stream ends and a graphql-ws client is closed with 1001, and stop does not wait for them', async () => {
    server = await startTestServer({ env });
    const tenant = await server.tenant();
    const token = tenant.api.token ?? '';
    const query = 'subscription { availabilityRequestUpdated { id status } }';
    const sse = await fetch(`${server.app.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-auth-token': token },
      body: JSON.stringify({ query }),
    });
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = sse.body?.getReader();
    if (!reader) throw new Error('no body');
    const sseEnded = (async () => {
      for (;;) if ((await reader.read()).done) return 'ended';
    })();

    const closeCodes: number[] = [];
    const client = createClient({
      url: `${server.app.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authToken: token },
      retryAttempts: 0,
      on: { closed: (event) => void closeCodes.push((event as { code: number }).code) },
    });
    const wsEnded = new Promise((resolve) =>
      client.subscribe({ query }, { next: () => {}, error: resolve, complete: () => resolve('complete') }),
    );
    const listeners = server.app.services.events.target;
    while (listeners.listenerCount < 2) await new Promise((resolve) => setTimeout(resolve, 20));

    await server.app.stop();

    expect(await sseEnded).toBe('ended');
    await wsEnded;
    expect(closeCodes).toEqual([1001]);
    await client.dispose();
  });
});
