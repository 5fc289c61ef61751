import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createInstance } from '../../src/resolvers/operator.js';
import { createServices } from '../../src/server/services.js';
import { ApiClient, tempDatabasePath, testConfig, waitFor } from '../helpers/app.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { testStore } from '../helpers/store.js';

/*
 * Issue 34, item 3, the Mercure hub in the shared mode: a Mercure stream on B opened with an sse_jwt minted
 * from a token ends within one second of that token's revocation (or its application's disabling) on A, and
 * the same sse_jwt is refused (401) on either instance from then on. Streams of other tokens go on.
 */

const WITHIN_MS = 1_000;

/** A Mercure stream read with fetch: its status, and whether its body ended. */
async function openMercure(base: string, instanceId: string, jwt: string) {
  const controller = new AbortController();
  const query = new URLSearchParams({ topic: `${instanceId}/availability_request` });
  const response = await fetch(`${base}/.well-known/mercure?${query}`, {
    headers: { authorization: `Bearer ${jwt}` },
    signal: controller.signal,
  });
  let ended = false;
  if (response.body) {
    const reader = response.body.getReader();
    void (async () => {
      for (;;) if ((await reader.read()).done) break;
      ended = true;
    })().catch(() => undefined);
  }
  return { status: response.status, ended: () => ended, close: () => controller.abort() };
}

describe(`Mercure streams of revoked sessions, two gateway processes on ${testStore} and Redis`, () => {
  let redis: TestRedis;
  let database: { path: string; remove(): void };
  let a: GatewayProcess;
  let b: GatewayProcess;
  let instanceId: string;
  let admin: { clientId: string; clientSecret: string };
  let client: { clientId: string; clientSecret: string };
  const open: { close(): void }[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    database = tempDatabasePath();
    const services = await createServices(testConfig(database.path));
    try {
      const { instance } = await createInstance(services, { name: 'Mercure revocation', code: 'MRV' });
      instanceId = instance.id;
      admin = await createApplication(services, { instance: instance.id, roles: ['instance_admin'] });
      client = await createApplication(services, { instance: instance.id, roles: ['connectivity_check'] });
    } finally {
      await services.db.close();
    }
    const env = { DATABASE_URL: database.path, REDIS_URL: redis.url, GATHERING_WORKER: 'off' };
    [a, b] = await Promise.all([startGatewayProcess({ env }), startGatewayProcess({ env })]);
  }, 90_000);
  afterAll(async () => {
    for (const stream of open) stream.close();
    await Promise.all([a?.stop(), b?.stop()]);
    database?.remove();
    await redis?.stop();
  });

  const signIn = async (gateway: GatewayProcess, credentials: { clientId: string; clientSecret: string }) => {
    const response = await new ApiClient(gateway.url).post('/authentication', {
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
    });
    expect(response.status).toBe(200);
    return new ApiClient(gateway.url, response.body.data.auth_token);
  };
  /** An sse_jwt minted on A for `api`'s token, and a stream on B opened with it. */
  const streamOnB = async (api: ApiClient) => {
    const jwt: string = (await api.get('/availability-requests')).body.sse_jwt;
    const stream = await openMercure(b.url, instanceId, jwt);
    open.push(stream);
    expect(stream.status).toBe(200);
    return { jwt, stream };
  };

  it('when a token is revoked on A, then its Mercure stream on B ends within a second and its sse_jwt is refused; another token’s stream goes on', async () => {
    const revoked = await signIn(a, client);
    const kept = await signIn(a, client);
    const { jwt, stream } = await streamOnB(revoked);
    const other = await streamOnB(kept);

    expect((await revoked.request('DELETE', '/authentication')).status).toBe(204);
    const ended = await waitFor(
      () => stream.ended(),
      (value) => value,
      WITHIN_MS,
    );
    const again = await openMercure(b.url, instanceId, jwt);
    const onA = await openMercure(a.url, instanceId, jwt);

    expect(ended).toBe(true);
    expect([again.status, onA.status]).toEqual([401, 401]);
    expect(other.stream.ended()).toBe(false);
  });

  it('when the application is disabled on A, then the Mercure streams of its tokens on B end within a second and their sse_jwts are refused', async () => {
    const adminApi = await signIn(a, admin);
    const { jwt, stream } = await streamOnB(await signIn(a, client));

    const disabled = await adminApi.graphql(
      'mutation ($id: String!) { disableApplication(clientId: $id) { application { clientId } } }',
      { id: client.clientId },
    );
    const ended = await waitFor(
      () => stream.ended(),
      (value) => value,
      WITHIN_MS,
    );
    const again = await openMercure(b.url, instanceId, jwt);

    expect(disabled.errors).toBeUndefined();
    expect([ended, again.status]).toEqual([true, 401]);
  });
});
