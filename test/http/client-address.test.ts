import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';

/*
 * TRUSTED_PROXIES (issue 17, behind nginx): sign-ins are limited per client address, which behind a trusted
 * balancer is the one its X-Forwarded-For names, and otherwise the connection's.
 */
describe('the client address of anonymous requests', () => {
  let server: TestServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  /** Statuses of sign-in attempts with wrong credentials, each sent as from `forwardedFor`. */
  async function signIns(target: TestServer, forwardedFor: string[]): Promise<number[]> {
    const statuses: number[] = [];
    for (const address of forwardedFor) {
      const response = await target.anonymous.request('POST', '/authentication', {
        body: { client_id: 'nobody', client_secret: 'wrong' },
        headers: { 'x-forwarded-for': address },
      });
      statuses.push(response.status);
    }
    return statuses;
  }

  it('when the balancer is trusted, then each forwarded client has its own sign-in budget', async () => {
    server = await startTestServer({
      env: { TRUSTED_PROXIES: '127.0.0.1', RATE_LIMIT_PER_ANONYMOUS_ADDRESS: '2' },
    });
    expect(await signIns(server, ['203.0.113.1', '203.0.113.1', '203.0.113.1', '203.0.113.2'])).toEqual([
      401, 401, 429, 401,
    ]);
  });

  it('when no proxy is trusted, then X-Forwarded-For is ignored and every request counts against the connection’s address', async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_ANONYMOUS_ADDRESS: '2' } });
    expect(await signIns(server, ['203.0.113.1', '203.0.113.2', '203.0.113.3'])).toEqual([401, 401, 429]);
  });

  it('when the connection comes from an untrusted peer, then its X-Forwarded-For is not believed', async () => {
    server = await startTestServer({
      env: { TRUSTED_PROXIES: '10.0.0.0/8', RATE_LIMIT_PER_ANONYMOUS_ADDRESS: '2' },
    });
    expect(await signIns(server, ['203.0.113.1', '203.0.113.2', '203.0.113.3'])).toEqual([401, 401, 429]);
  });
});
