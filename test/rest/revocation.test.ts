import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVOCATION_RECHECK_MS } from '../../src/auth/revocations.js';
import { AppError } from '../../src/errors.js';
import { eventStreamSession } from '../../src/resolvers/event-stream-token.js';
import {
  type ApiClient,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';
import { openSseSession, openWsSession } from '../helpers/session-clients.js';

/*
 * Issue 34, item 3, on one instance (both stores): `DELETE /authentication`, the GraphQL mutations' refusals,
 * the `sse_jwt`'s session claims and their check, and what makes up for a lost revocation message — the
 * store checks of open sessions and of the viewer cache.
 */

describe('revocation on one instance', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false });
    tenant = await server.tenant({ demoCatalog: false });
  });
  afterAll(() => server.close());

  /** A fresh auth token of the tenant's application. */
  const signIn = async (credentials: { clientId: string; clientSecret: string } = tenant) => {
    const response = await server.anonymous.post('/authentication', {
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
    });
    expect(response.status).toBe(200);
    return server.anonymous.withToken(response.body.data.auth_token);
  };
  const revokeCode = async (api: ApiClient) => {
    const response = await api.request('DELETE', '/authentication');
    return [response.status, response.body?.detail ?? null];
  };

  it('when DELETE /authentication is sent without a token, with one, and with it again, then 401, 204, 401', async () => {
    const api = await signIn();

    const anonymous = await revokeCode(server.anonymous);
    const first = await revokeCode(api);
    const second = await revokeCode(api);
    const read = await api.get('/instance-products');

    expect(anonymous).toEqual([401, 'Send a valid auth token in the X-Auth-Token header.']);
    expect(first).toEqual([204, null]);
    expect(second).toEqual([401, 'The auth token is invalid or expired.']);
    expect(read.status).toBe(401);
  });

  it('when the GraphQL application mutations are called without the right, then FORBIDDEN, NOT_FOUND or BAD_USER_INPUT', async () => {
    const admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin'] });
    const mutation =
      'mutation ($id: String!) { disableApplication(clientId: $id) { application { clientId } } }';
    const codes = async (api: ApiClient, id: string) =>
      (await api.graphql(mutation, { id })).errors?.map((error: Json) => [
        error.extensions.code,
        error.message,
      ]);

    expect(await codes(tenant.api, admin.clientId)).toEqual([
      ['FORBIDDEN', 'This operation needs one of the roles: instance_admin.'],
    ]);
    expect(await codes(admin.api, tenant.clientId)).toEqual([
      ['NOT_FOUND', `Application ${JSON.stringify(tenant.clientId)} was not found.`],
    ]);
    expect(await codes(admin.api, 'cli_nobody')).toEqual([
      ['NOT_FOUND', 'Application "cli_nobody" was not found.'],
    ]);
    expect(await codes(admin.api, ' ')).toEqual([['BAD_USER_INPUT', 'The client id is invalid.']]);
    expect(await codes(server.anonymous, admin.clientId)).toEqual([
      ['UNAUTHENTICATED', 'Send a valid auth token in the X-Auth-Token header.'],
    ]);
    expect((await tenant.api.get('/instance-products')).status).toBe(200);
  });

  it('when an sse_jwt is handed out, then it names its auth token and application, and it is refused once that token is revoked', async () => {
    const api = await signIn();
    const other = await signIn();
    const jwt = (await api.get('/availability-requests')).body.sse_jwt;
    const otherJwt = (await other.get('/availability-requests')).body.sse_jwt;
    const claims = decodeJwt(jwt);
    const { services } = server.app;

    const live = await eventStreamSession(services, claims);
    await revokeCode(api);
    const refused = await eventStreamSession(services, claims).catch((error: unknown) => error);

    expect(claims).toEqual({
      mercure: {
        publish: [],
        subscribe: [`${tenant.instanceId}/availability_request`, `${tenant.instanceId}/order`],
      },
      sid: expect.stringMatching(/^tok_/),
      app: expect.stringMatching(/^app_/),
      iat: expect.any(Number),
      exp: (claims.iat ?? 0) + 600,
    });
    expect(decodeJwt(otherJwt).sid).not.toBe(claims.sid);
    expect(decodeJwt(otherJwt).app).toBe(claims.app);
    expect(live).toEqual({ tokenId: claims.sid, applicationId: claims.app });
    expect(refused).toBeInstanceOf(AppError);
    expect([(refused as AppError).code, (refused as AppError).message]).toEqual([
      'UNAUTHENTICATED',
      'The event-stream token was revoked with its auth token.',
    ]);
    expect(await eventStreamSession(services, decodeJwt(otherJwt))).toEqual({
      tokenId: decodeJwt(otherJwt).sid,
      applicationId: claims.app,
    });
  });

  it('when an sse_jwt has no session claims, then it has no session to check; with only one of them it is refused', async () => {
    const { services } = server.app;
    const mercure = { publish: [], subscribe: [`${tenant.instanceId}/availability_request`] };

    const without = await eventStreamSession(services, { mercure, exp: 1 });
    const halfway = await eventStreamSession(services, { mercure, sid: 'tok_x' }).catch((error) => error);

    expect(without).toBeNull();
    expect([(halfway as AppError).code, (halfway as AppError).message]).toEqual([
      'UNAUTHENTICATED',
      'The event-stream token is invalid or expired.',
    ]);
  });

  it('when a token is revoked in the store and the announcement is lost, then the store check ends its sessions and the cache re-reads it after the re-check period', async () => {
    const api = await signIn();
    const { services } = server.app;
    const ws = await openWsSession(server.app.url, api.token ?? '');
    const sse = await openSseSession(server.app.url, api.token ?? '');
    expect((await api.get('/instance-products')).status).toBe(200);
    const viewer = decodeJwt((await api.get('/availability-requests')).body.sse_jwt);

    // Revoked behind the service's back: no announcement reaches the sessions or the cache.
    const revoked = await services.db.revokeAuthToken(String(viewer.sid), services.clock.now());
    const cachedRead = (await api.get('/instance-products')).status;
    const openBefore = [ws.closeCode(), sse.ended()];
    await services.revocations.recheck();
    await waitFor(
      () => ({ code: ws.closeCode(), ended: sse.ended() }),
      (seen) => seen.code !== null && seen.ended,
    );
    server.clock.advance(REVOCATION_RECHECK_MS);
    const reRead = (await api.get('/instance-products')).status;

    expect(revoked).toEqual({
      tokenId: viewer.sid,
      applicationId: viewer.app,
      instanceId: tenant.instanceId,
    });
    expect([cachedRead, openBefore]).toEqual([200, [null, false]]);
    expect([ws.closeCode(), sse.ended(), sse.completed()]).toEqual([4403, true, true]);
    expect(reRead).toBe(401);
  });
});
