import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApplication, createInstance } from '../../src/resolvers/operator.js';
import { createServices } from '../../src/server/services.js';
import { ApiClient, type Json, tempDatabasePath, testConfig, waitFor } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import {
  openSseSession,
  openWsSession,
  type SseSession,
  type WsSession,
} from '../helpers/session-clients.js';
import { testStore } from '../helpers/store.js';

/*
 * Issue 34, item 3, in the shared mode: two real gateway processes on one database (this project's store)
 * and one Redis. A token revoked, or an application disabled, on A (or by the operator's CLI) is refused by
 * B within one second — B had it in its viewer cache — and B's graphql-ws connection opened with it closes
 * with 4403 and its GraphQL SSE stream ends; sessions of other tokens stay open.
 */

/** The bound the issue sets: every instance refuses a revoked token within one second. */
const WITHIN_MS = 1_000;

/** Client credentials created for a test. */
interface Credentials {
  clientId: string;
  clientSecret: string;
}

/** A signed-in client of one gateway: its tokens. */
interface SignedIn {
  authToken: string;
  refreshToken: string;
}

describe(`revocation across two gateway processes on ${testStore} and Redis`, () => {
  let redis: TestRedis;
  let database: { path: string; remove(): void };
  let a: GatewayProcess;
  let b: GatewayProcess;
  let admin: Credentials;
  let client: Credentials;
  let otherAdmin: Credentials;
  const open: { close(): void }[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    database = tempDatabasePath();
    const services = await createServices(testConfig(database.path));
    try {
      const credentialsIn = async (code: string, roles: string[]) => {
        const { instance } = await createInstance(services, { name: `Revoking ${code}`, code });
        const created = await createApplication(services, { instance: instance.id, roles });
        return { clientId: created.clientId, clientSecret: created.clientSecret };
      };
      admin = await credentialsIn('RVA', ['instance_admin']);
      client = await createApplication(services, { instance: 'RVA', roles: ['connectivity_check'] });
      otherAdmin = await credentialsIn('RVB', ['instance_admin']);
    } finally {
      await services.db.close();
    }
    const env = { DATABASE_URL: database.path, REDIS_URL: redis.url, GATHERING_WORKER: 'off' };
    [a, b] = await Promise.all([startGatewayProcess({ env }), startGatewayProcess({ env })]);
  }, 90_000);
  afterAll(async () => {
    for (const session of open) session.close();
    await Promise.all([a?.stop(), b?.stop()]);
    database?.remove();
    await redis?.stop();
  });

  const api = (gateway: GatewayProcess, token: string | null = null) => new ApiClient(gateway.url, token);
  const signIn = async (gateway: GatewayProcess, credentials: Credentials): Promise<SignedIn> => {
    const response = await api(gateway).post('/authentication', {
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
    });
    expect(response.status).toBe(200);
    return { authToken: response.body.data.auth_token, refreshToken: response.body.data.auth_refresh_token };
  };
  /** The status B answers a REST read with `token`. */
  const statusOnB = async (token: string) =>
    (await api(b, token).get('/availability-requests/options?country_code=NL')).status;
  /** A graphql-ws connection and a GraphQL SSE stream on B with `token`, B's cache warmed with it. */
  const sessionsOnB = async (token: string): Promise<{ ws: WsSession; sse: SseSession }> => {
    const ws = await openWsSession(b.url, token);
    const sse = await openSseSession(b.url, token);
    open.push(ws, sse);
    expect([ws.acknowledged(), sse.status, await statusOnB(token)]).toEqual([true, 200, 200]);
    return { ws, sse };
  };
  /** Waits up to one second for B to refuse `token` and end both sessions; answers what it saw. */
  const cutOffOnB = (token: string, sessions: { ws: WsSession; sse: SseSession }) =>
    waitFor(
      async () => ({
        status: await statusOnB(token),
        wsClose: sessions.ws.closeCode(),
        sseEnded: sessions.sse.ended(),
        sseCompleted: sessions.sse.completed(),
      }),
      (seen) => seen.status === 401 && seen.wsClose !== null && seen.sseEnded,
      WITHIN_MS,
    );
  const cutOff = { status: 401, wsClose: 4403, sseEnded: true, sseCompleted: true };

  it('when a client revokes its token on A, then B refuses it within a second, closes its socket with 4403 and ends its SSE stream; another token of the application stays', async () => {
    const revoked = await signIn(a, client);
    const kept = await signIn(a, client);
    const sessions = await sessionsOnB(revoked.authToken);
    const keptSessions = await sessionsOnB(kept.authToken);

    const deleted = await api(a, revoked.authToken).request('DELETE', '/authentication');
    const seen = await cutOffOnB(revoked.authToken, sessions);

    expect([deleted.status, deleted.body]).toEqual([204, null]);
    expect(seen).toEqual(cutOff);
    expect(await statusOnB(kept.authToken)).toBe(200);
    expect([keptSessions.ws.closeCode(), keptSessions.sse.ended()]).toEqual([null, false]);
    const refreshed = await api(b).post('/authentication', { auth_refresh_token: revoked.refreshToken });
    expect([refreshed.status, refreshed.body.detail]).toEqual([
      401,
      'The credentials are invalid or expired.',
    ]);
    const again = await api(b, revoked.authToken).request('DELETE', '/authentication');
    expect(again.status).toBe(401);
  });

  it('when a client revokes its token with the GraphQL mutation on B, then A refuses it within a second', async () => {
    const revoked = await signIn(b, client);
    expect((await api(a, revoked.authToken).get('/instance-products')).status).toBe(200);

    const result = await api(b, revoked.authToken).graphql(
      'mutation { revokeAuthToken { tokenId revokedAt } }',
    );
    const seen = await waitFor(
      async () => (await api(a, revoked.authToken).get('/instance-products')).status,
      (status) => status === 401,
      WITHIN_MS,
    );

    expect(result).toEqual({
      data: { revokeAuthToken: { tokenId: expect.stringMatching(/^tok_/), revokedAt: expect.any(String) } },
    });
    expect(seen).toBe(401);
  });

  it('when an instance admin disables an application on A, then B refuses its tokens within a second and ends their sessions; it can neither sign in nor refresh until enabled', async () => {
    const adminToken = (await signIn(a, admin)).authToken;
    const victim = await signIn(a, client);
    const sessions = await sessionsOnB(victim.authToken);
    const otherToken = (await signIn(a, otherAdmin)).authToken;
    const DISABLE =
      'mutation ($id: String!) { disableApplication(clientId: $id) { application { clientId disabledAt } } }';

    const refusedElsewhere = await api(a, otherToken).graphql(DISABLE, { id: client.clientId });
    expect(refusedElsewhere.errors?.map((error: Json) => error.extensions.code)).toEqual(['NOT_FOUND']);
    expect(await statusOnB(victim.authToken)).toBe(200);
    const disabled = await api(a, adminToken).graphql(DISABLE, { id: client.clientId });
    const seen = await cutOffOnB(victim.authToken, sessions);

    expect(disabled).toEqual({
      data: {
        disableApplication: { application: { clientId: client.clientId, disabledAt: expect.any(String) } },
      },
    });
    expect(seen).toEqual(cutOff);
    const signInOnB = await api(b).post('/authentication', {
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    const refreshOnB = await api(b).post('/authentication', { auth_refresh_token: victim.refreshToken });
    expect([signInOnB.status, refreshOnB.status]).toEqual([401, 401]);

    const enabled = await api(b, adminToken).graphql(
      'mutation ($id: String!) { enableApplication(clientId: $id) { application { disabledAt } } }',
      { id: client.clientId },
    );
    expect(enabled).toEqual({ data: { enableApplication: { application: { disabledAt: null } } } });
    const fresh = await signIn(b, client);
    expect([await statusOnB(fresh.authToken), await statusOnB(victim.authToken)]).toEqual([200, 401]);
  });

  it('when the operator disables an application with the CLI (REDIS_URL set), then B refuses its tokens within a second of the command', async () => {
    const victim = await signIn(a, client);
    const sessions = await sessionsOnB(victim.authToken);

    const cli = await runCli(database.path, ['application', 'disable', client.clientId], {
      env: { REDIS_URL: redis.url },
      timeoutMs: 30_000,
    });
    const seen = await cutOffOnB(victim.authToken, sessions);

    expect([cli.code, cli.stderr, JSON.parse(cli.stdout).client_id]).toEqual([0, '', client.clientId]);
    expect(seen).toEqual(cutOff);
    const enabled = await runCli(database.path, ['application', 'enable', client.clientId], {
      env: { REDIS_URL: redis.url },
    });
    expect([enabled.code, JSON.parse(enabled.stdout).disabled_at]).toEqual([0, null]);
  });
});
