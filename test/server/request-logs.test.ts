import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createInstance } from '../../src/resolvers/operator.js';
import { type App, startApp } from '../../src/server/app.js';
import { loggableUrl } from '../../src/server/request-log.js';
import {
  ApiClient,
  contractExampleBatch,
  type Json,
  startTestServer,
  type TestServer,
  tempDatabasePath,
  testConfig,
  waitFor,
} from '../helpers/app.js';
import { closeConnection } from '../helpers/store.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A pino logger at `level` writing into memory: every raw line, and the parsed request lines. */
function memoryLogger(level = 'info') {
  const raw: string[] = [];
  const logger = pino({ level }, { write: (line: string) => void raw.push(line) });
  const requests = (): Json[] =>
    raw.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request completed');
  return { logger, raw, requests };
}

describe('request logs', () => {
  const database = tempDatabasePath();
  const logs = memoryLogger();
  let app: App;
  let anonymous: ApiClient;
  let clientSecret: string;
  let authToken: string;
  let api: ApiClient;
  let instanceId: string;

  /** The one request line of the request with this id; waits for it, as it is written when the response ends. */
  const lineOf = async (requestId: string | null) => {
    const lines = await waitFor(
      () => Promise.resolve(logs.requests().filter((entry) => entry.reqId === requestId)),
      (found) => found.length > 0,
    );
    expect(lines).toHaveLength(1);
    return lines[0];
  };

  beforeAll(async () => {
    app = await startApp(testConfig(database.path), { logger: logs.logger });
    anonymous = new ApiClient(app.url);
    const { instance } = await createInstance(app.services, {
      name: 'Logs',
      code: 'LOGS',
      demoCatalog: true,
    });
    instanceId = instance.id;
    const credentials = await createApplication(app.services, {
      instance: instance.id,
      roles: ['connectivity_check'],
    });
    clientSecret = credentials.clientSecret;
    const signIn = await anonymous.post('/authentication', {
      client_id: credentials.clientId,
      client_secret: clientSecret,
    });
    expect(signIn.status).toBe(200);
    authToken = signIn.body.data.auth_token;
    api = anonymous.withToken(authToken);
  });
  afterAll(async () => {
    await app.stop();
    database.remove();
  });

  it('when a REST request is served, then one info line carries its id, method, route, status and duration, and the id is echoed', async () => {
    const created = await api.post('/availability-requests', [contractExampleBatch[0]]);
    const id: string = created.body.data[0].id;

    const read = await api.get(`/availability-requests/${id}`);

    const requestId = read.headers.get('x-request-id');
    expect(requestId).toMatch(uuid);
    const line = await lineOf(requestId);
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      reqId: requestId,
      route: '/availability-requests/:id',
      req: {
        method: 'GET',
        url: `/availability-requests/${id}`,
        // An allow-list: the X-Auth-Token header the request carried is not logged at all.
        headers: { 'user-agent': 'node', accept: '*/*' },
        remoteAddress: '127.0.0.1',
      },
      res: { statusCode: 200 },
      durationMs: expect.any(Number),
      msg: 'request completed',
    });
    const createdLine = await lineOf(created.headers.get('x-request-id'));
    expect([createdLine.req.method, createdLine.route, createdLine.res.statusCode]).toEqual([
      'POST',
      '/availability-requests',
      201,
    ]);
  });

  it('when the caller sends a sane X-Request-Id, then it is kept and echoed; an unsafe one is replaced', async () => {
    const kept = await anonymous.request('GET', '/healthz', {
      headers: { 'x-request-id': 'trace-42.a:b_c' },
    });
    const replaced = await anonymous.request('GET', '/healthz', {
      headers: { 'x-request-id': 'not a "token"' },
    });
    const tooLong = await anonymous.request('GET', '/healthz', {
      headers: { 'x-request-id': 'x'.repeat(129) },
    });

    expect(kept.headers.get('x-request-id')).toBe('trace-42.a:b_c');
    expect(replaced.headers.get('x-request-id')).toMatch(uuid);
    expect(tooLong.headers.get('x-request-id')).toMatch(uuid);
    const line = await lineOf('trace-42.a:b_c');
    expect([line.req.method, line.route, line.res.statusCode]).toEqual(['GET', '/healthz', 200]);
    await lineOf(replaced.headers.get('x-request-id'));
  });

  it('when GraphQL and an unknown path are served, then each has its own line and route label', async () => {
    const graphql = await api.request('POST', '/graphql', {
      body: { query: '{ availabilityRequests(first: 1) { totalCount } }' },
    });
    const unknown = await api.get('/nothing/here');

    const graphqlLine = await lineOf(graphql.headers.get('x-request-id'));
    const unknownLine = await lineOf(unknown.headers.get('x-request-id'));
    expect([
      graphqlLine.level,
      graphqlLine.req.method,
      graphqlLine.route,
      graphqlLine.res.statusCode,
    ]).toEqual([30, 'POST', '/graphql', 200]);
    expect([unknownLine.level, unknownLine.route, unknownLine.res.statusCode]).toEqual([30, 'other', 404]);
  });

  it('when credentials travel in headers, query and body, then none of them appears anywhere in the logs', async () => {
    const sseJwt: string = (await api.get('/availability-requests')).body.sse_jwt;
    await anonymous.request('GET', '/availability-requests', {
      headers: { authorization: `Bearer ${authToken}`, cookie: `mercureAuthorization=${sseJwt}` },
    });
    const controller = new AbortController();
    const stream = await fetch(
      `${app.url}/.well-known/mercure?${new URLSearchParams({
        topic: `${instanceId}/availability_request`,
        authorization: sseJwt,
      })}`,
      { signal: controller.signal, headers: { 'x-request-id': 'mercure-stream' } },
    );
    expect(stream.status).toBe(200);
    controller.abort();
    const rejected = await anonymous.request('GET', `/.well-known/mercure?topic=x&authorization=${sseJwt}x`);
    expect(rejected.status).toBe(401);

    const streamLine = await lineOf('mercure-stream');
    await lineOf(rejected.headers.get('x-request-id'));
    expect(streamLine.route).toBe('/.well-known/mercure');
    expect(streamLine.req.url).toBe(
      `/.well-known/mercure?topic=${encodeURIComponent(`${instanceId}/availability_request`)}&authorization=[redacted]`,
    );
    const everything = logs.raw.join('');
    expect(everything).toContain('[redacted]');
    for (const secret of [authToken, sseJwt, clientSecret]) expect(everything).not.toContain(secret);
  });

  it('when a query string carries a credential under any spelling, then its value is redacted and the rest kept', () => {
    expect(loggableUrl('/a?x=1&authorization=abc&y=2')).toBe('/a?x=1&authorization=[redacted]&y=2');
    expect(loggableUrl('/a?%61uthorization=abc')).toBe('/a?%61uthorization=[redacted]');
    expect(loggableUrl('/a?client_secret=s&access_token=t')).toBe(
      '/a?client_secret=[redacted]&access_token=[redacted]',
    );
    expect(loggableUrl('/a?auth%5Ftoken=t&q=a+b&c+d=e')).toBe('/a?auth%5Ftoken=[redacted]&q=a+b&c+d=e');
    expect(loggableUrl('/a?topic=x%2Fy')).toBe('/a?topic=x%2Fy');
    expect(loggableUrl('/sonata-callbacks/src_1/abc123/mefApi/listener/poqStateChangeEvent?x=1')).toBe(
      '/sonata-callbacks/src_1/[redacted]/mefApi/listener/poqStateChangeEvent?x=1',
    );
    expect(loggableUrl('/sonata-callbacks/src_1/abc123')).toBe('/sonata-callbacks/src_1/[redacted]');
    expect(loggableUrl('/sonata-callbacks/src_1')).toBe('/sonata-callbacks/src_1');
    expect(loggableUrl('/a')).toBe('/a');
  });
});

describe('request logs of failed responses', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  /** A server logging into memory at `warn`. */
  const start = async () => {
    const logs = memoryLogger('warn');
    const server = await startTestServer({ logger: logs.logger });
    servers.push(server);
    return { server, logs };
  };
  const linesOf = (logs: ReturnType<typeof memoryLogger>, requestId: string, count: number) =>
    waitFor(
      () =>
        Promise.resolve(
          logs.raw.map((line): Json => JSON.parse(line)).filter((entry) => entry.reqId === requestId),
        ),
      (found) => found.length >= count,
    );

  it('when a response is a 5xx, then its line is at error level, and a logger at warn gets it but no 2xx line', async () => {
    const { server, logs } = await start();
    const healthy = await fetch(`${server.app.url}/healthz`, { headers: { 'x-request-id': 'health-1' } });
    // Not ready once its worker stopped (a store outage no longer makes an instance unready, issue 48).
    await server.app.worker.stop();

    const response = await fetch(`${server.app.url}/readyz`, { headers: { 'x-request-id': 'probe-1' } });

    expect([response.status, response.headers.get('x-request-id')]).toEqual([503, 'probe-1']);
    expect(await linesOf(logs, 'probe-1', 1)).toEqual([
      {
        level: 50,
        time: expect.any(Number),
        pid: process.pid,
        hostname: expect.any(String),
        reqId: 'probe-1',
        route: '/readyz',
        req: {
          method: 'GET',
          url: '/readyz',
          headers: { accept: '*/*', 'user-agent': 'node' },
          remoteAddress: '127.0.0.1',
        },
        res: { statusCode: 503 },
        durationMs: expect.any(Number),
        msg: 'request completed',
      },
    ]);
    expect([healthy.status, healthy.headers.get('x-request-id')]).toEqual([200, 'health-1']);
    expect(logs.requests().map((entry) => entry.reqId)).toEqual(['probe-1']);
  });

  it('when a REST route fails unexpectedly, then its error is logged with the request id, and the client sees no internals', async () => {
    const { server, logs } = await start();
    const { api } = await server.tenant({ demoCatalog: false });
    await closeConnection(server.app.services.db);

    const failed = await api.request('GET', '/availability-requests', {
      headers: { 'x-request-id': 'list-1' },
    });

    expect([failed.status, failed.headers.get('x-request-id')]).toEqual([500, 'list-1']);
    expect(JSON.stringify(failed.body)).not.toMatch(/database|sqlite|stack/i);
    const lines = await linesOf(logs, 'list-1', 2);
    expect(lines.map((entry) => [entry.level, entry.msg])).toEqual([
      [50, 'unexpected error in REST route'],
      [50, 'request completed'],
    ]);
    expect(lines[0].err.type).toEqual(expect.any(String));
  });
});
