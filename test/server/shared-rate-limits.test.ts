import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, startTestServer, type TestServer, tempDatabasePath } from '../helpers/app.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

/*
 * Issue 17: with REDIS_URL the rate limits are counted in Redis, so three instances grant the configured
 * limit in total; without Redis each instance still limits in memory and serves.
 */

/** The value of an unlabelled sample in a Prometheus text exposition. */
function sample(text: string, name: string): number | null {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : null;
}

describe('rate limits in shared mode', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function instances(redis: TestRedis, count: number): Promise<TestServer[]> {
    const database = tempDatabasePath();
    cleanups.push(database.remove);
    const env = {
      REDIS_URL: redis.url,
      RATE_LIMIT_PER_TOKEN: '10',
      RATE_LIMIT_PER_INSTANCE: '1000',
      // One window for the whole test: a window ending halfway would grant a second limit.
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      GATHERING_WORKER: 'off',
    };
    const servers: TestServer[] = [];
    for (let index = 0; index < count; index += 1) {
      const server = await startTestServer({ databasePath: database.path, env });
      cleanups.push(() => server.close());
      servers.push(server);
    }
    return servers;
  }

  it('when one token makes 30 requests spread over three instances, then exactly 10 are served in total', async () => {
    const redis = await startTestRedis();
    cleanups.push(() => redis.stop());
    const servers = await instances(redis, 3);
    const tenant = await servers[0]?.tenant();
    const token = tenant?.api.token ?? '';
    const clients = servers.map((server) => new ApiClient(server.app.url).withToken(token));

    const statuses: number[] = [];
    for (let index = 0; index < 30; index += 1) {
      const response = await clients[index % 3]?.get('/customers');
      statuses.push(response?.status ?? 0);
    }

    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
  });

  it('when Redis goes away, then requests are still served, limited in memory, the failures are counted, and the probes say Redis is down without taking the instance out', async () => {
    const redis = await startTestRedis();
    cleanups.push(() => redis.stop());
    const [server] = await instances(redis, 1);
    if (!server) throw new Error('no server');
    const tenant = await server.tenant();
    const redisUpBefore = sample(await (await fetch(`${server.app.url}/metrics`)).text(), 'redis_up');
    await redis.stop();

    const statuses: number[] = [];
    for (let index = 0; index < 12; index += 1) statuses.push((await tenant.api.get('/customers')).status);
    const metrics = await (await fetch(`${server.app.url}/metrics`)).text();
    const ready = await fetch(`${server.app.url}/readyz`);

    // Issue 48: a server every instance shares being down must not empty the balancer.
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { status: 'ready', database: true, redis: false, worker: false },
    ]);
    expect([redisUpBefore, sample(metrics, 'redis_up'), sample(metrics, 'store_up')]).toEqual([1, 0, 1]);

    // The in-memory insurance has its own count: the token's 10, then 429.
    expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);
    // Per request, the token check and (while the token is under its limit) the instance check.
    expect(sample(metrics, 'rate_limit_store_failures_total')).toBe(10 * 2 + 2);
    expect(server.app.services.rateLimits.storeFailures).toBe(22);
  });
});
