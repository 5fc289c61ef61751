import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_TOKEN_TTL_MS } from '../../src/resolvers/authentication.js';
import { type JsonResponse, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';

const problemType = 'application/problem+json; charset=utf-8';

describe('POST /authentication', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ roles: ['instance_admin', 'connectivity_check'] });
  });
  afterAll(() => server.close());

  it('when client credentials are right, then it answers a token pair and the user', async () => {
    const now = server.clock.now().getTime();
    const response = await server.anonymous.post('/authentication', {
      client_id: tenant.clientId,
      client_secret: tenant.clientSecret,
    });
    const answered = server.clock.now().getTime();

    expect(response.status).toBe(200);
    const { data } = response.body;
    expect(data).toEqual({
      auth_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      auth_token_expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/),
      auth_refresh_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      auth_refresh_token_expires_at: expect.stringMatching(/\+00:00$/),
      user: {
        id: expect.stringMatching(/^usr_/),
        email: `${tenant.clientId}@applications.invalid`,
        locale: 'en',
        first_name: 'API client',
        last_name: '',
        roles: ['instance_admin', 'connectivity_check'],
      },
    });
    // Issued between `now` and `answered`, an hour on, written to the second (milliseconds dropped): a
    // request that crosses a second may end an hour and a few milliseconds after `now`, never later.
    const expires = Date.parse(data.auth_token_expires_at);
    expect(expires).toBeGreaterThanOrEqual(Math.floor(now / 1000) * 1000 + 3_600_000);
    expect(expires).toBeLessThanOrEqual(answered + 3_600_000);
    const month = Date.parse(data.auth_refresh_token_expires_at) - now;
    expect(Math.round(month / 86_400_000)).toBe(30);
  });

  it('when the secret is wrong, then it answers 401 problem+json', async () => {
    const response = await server.anonymous.post('/authentication', {
      client_id: tenant.clientId,
      client_secret: 'wrong',
    });

    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe(problemType);
    expect(response.body).toEqual({
      type: 'urn:connectivity-gateway:problem:unauthenticated',
      title: 'Authentication required',
      status: 401,
      detail: 'The credentials are invalid or expired.',
    });
  });

  it('when the body has neither form, then it answers 422 naming the rule', async () => {
    const response = await server.anonymous.post('/authentication', { client_id: tenant.clientId });

    expect(response.status).toBe(422);
    expect(response.body.detail).toBe('Give either client_id and client_secret, or auth_refresh_token.');
  });

  it('when a refresh token is used, then it gives a new pair once and never again', async () => {
    const first = await server.anonymous.post('/authentication', {
      client_id: tenant.clientId,
      client_secret: tenant.clientSecret,
    });
    const refreshToken = first.body.data.auth_refresh_token;

    const refreshed = await server.anonymous.post('/authentication', { auth_refresh_token: refreshToken });
    const reused = await server.anonymous.post('/authentication', { auth_refresh_token: refreshToken });

    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.auth_token).not.toBe(first.body.data.auth_token);
    const options = await tenant.api
      .withToken(refreshed.body.data.auth_token)
      .get('/availability-requests?page_size=1');
    expect(options.status).toBe(200);
    expect(reused.status).toBe(401);
  });

  it('when the token is sent as a Bearer token, then it is accepted too', async () => {
    const response = await server.anonymous.request('GET', '/availability-requests', {
      headers: { authorization: `Bearer ${tenant.api.token}` },
    });

    expect(response.status).toBe(200);
  });

  it('when an hour has passed, then the auth token is refused and the refresh token still works', async () => {
    const signIn = await server.anonymous.post('/authentication', {
      client_id: tenant.clientId,
      client_secret: tenant.clientSecret,
    });
    const { auth_token: token, auth_refresh_token: refreshToken } = signIn.body.data;

    server.clock.advance(60 * 60 * 1000 + 1000);
    const expired = await tenant.api.withToken(token).get('/availability-requests');
    const refreshed = await server.anonymous.post('/authentication', { auth_refresh_token: refreshToken });

    expect(expired.status).toBe(401);
    expect(expired.headers.get('content-type')).toBe(problemType);
    expect(expired.body.detail).toBe('The auth token is invalid or expired.');
    expect(refreshed.status).toBe(200);
  });

  it('when a token used before reaches its expiry, then it is refused at that millisecond, not later', async () => {
    // The contract shows `auth_token_expires_at` to the second; the token lives exactly an hour from issue.
    // The clock stands still, so the server issues and checks at exactly the instants the test names.
    server.clock.freeze();
    let fresh: JsonResponse;
    let lastMillisecond: JsonResponse;
    let expired: JsonResponse;
    try {
      const signIn = await server.anonymous.post('/authentication', {
        client_id: tenant.clientId,
        client_secret: tenant.clientSecret,
      });
      const api = tenant.api.withToken(signIn.body.data.auth_token);

      fresh = await api.get('/availability-requests');
      server.clock.advance(AUTH_TOKEN_TTL_MS - 1);
      lastMillisecond = await api.get('/availability-requests');
      server.clock.advance(1);
      expired = await api.get('/availability-requests');
    } finally {
      server.clock.thaw();
    }

    expect([fresh.status, lastMillisecond.status, expired.status]).toEqual([200, 200, 401]);
    expect(expired.body.detail).toBe('The auth token is invalid or expired.');
  });

  it('when a refresh token is rotated, then the auth token issued with it still works until it expires', async () => {
    const signIn = await server.anonymous.post('/authentication', {
      client_id: tenant.clientId,
      client_secret: tenant.clientSecret,
    });
    const { auth_token: token, auth_refresh_token: refreshToken } = signIn.body.data;

    const refreshed = await server.anonymous.post('/authentication', { auth_refresh_token: refreshToken });
    const withOldToken = await tenant.api.withToken(token).get('/availability-requests');
    const withNewToken = await tenant.api
      .withToken(refreshed.body.data.auth_token)
      .get('/availability-requests');

    expect([refreshed.status, withOldToken.status, withNewToken.status]).toEqual([200, 200, 200]);
  });

  it('when no token is sent, then every other route answers 401', async () => {
    for (const path of [
      '/availability-requests',
      '/availability-requests/options?country_code=NL',
      '/availability-requests/avr_x',
    ]) {
      const response = await server.anonymous.get(path);
      expect(response.status).toBe(401);
      expect(response.body.detail).toBe('Send a valid auth token in the X-Auth-Token header.');
    }
  });
});
