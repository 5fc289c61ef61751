import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JsonResponse, startTestServer, type TestServer } from '../helpers/app.js';

describe('rate limits', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        RATE_LIMIT_WINDOW_SECONDS: '60',
        RATE_LIMIT_PER_TOKEN: '5',
        RATE_LIMIT_PER_INSTANCE: '8',
        RATE_LIMIT_PER_ANONYMOUS_ADDRESS: '1000',
      },
    });
  });
  afterAll(() => server.close());

  it('when a token makes more calls than its limit, then it gets 429 with Retry-After while another tenant is not slowed', async () => {
    const busy = await server.tenant();
    const calm = await server.tenant();

    const statuses: number[] = [];
    let last: JsonResponse | null = null;
    for (let call = 0; call < 6; call += 1) {
      last = await busy.api.get('/availability-requests');
      statuses.push(last.status);
    }
    const other = await calm.api.get('/availability-requests');

    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last?.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(last?.body.status).toBe(429);
    expect(Number(last?.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last?.headers.get('ratelimit-limit')).toBe('5');
    expect(last?.headers.get('ratelimit-remaining')).toBe('0');
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('when several tokens of one instance together pass the instance limit, then the instance is limited', async () => {
    const tenant = await server.tenant();
    const second = await server.anonymous.post('/authentication', {
      client_id: tenant.clientId,
      client_secret: tenant.clientSecret,
    });
    const other = tenant.api.withToken(second.body.data.auth_token);

    const statuses: number[] = [];
    for (let call = 0; call < 5; call += 1)
      statuses.push((await tenant.api.get('/availability-requests')).status);
    for (let call = 0; call < 4; call += 1) statuses.push((await other.get('/availability-requests')).status);

    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
  });
});
