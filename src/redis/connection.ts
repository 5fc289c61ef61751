import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/** Longest wait between two reconnection attempts, in milliseconds. */
const MAX_RECONNECT_DELAY_MS = 5_000;

/**
 * Reconnection back-off (ioredis `retryStrategy`): 50 ms after the first failure, doubling to at most
 * {@link MAX_RECONNECT_DELAY_MS}, for as long as the process runs. Redis going away for a while must not
 * end the gateway: what it carries (events, wake-ups) resumes when it is back.
 */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(MAX_RECONNECT_DELAY_MS, 50 * 2 ** Math.min(attempt - 1, 10));
}

/** Longest a command on the `commands` connection may take before it fails, in milliseconds. */
const COMMAND_TIMEOUT_MS = 2_000;

/**
 * Opens a Redis connection for `REDIS_URL` (`redis://[user:password@]host:port[/db]`, `rediss://` for
 * TLS) with ioredis: reconnects with {@link reconnectDelayMs} and logs connection losses once per outage
 * instead of throwing. `name` labels its log lines.
 * - `commands` (rate-limit counters, publishing): a command fails after one retry or
 *   {@link COMMAND_TIMEOUT_MS}, so a request never waits on Redis for long — the callers have their
 *   fallbacks (the rate limits' in-memory insurance; an event lost in an outage is one the disconnected
 *   subscribers could not have heard anyway).
 * - `subscriber`: its subscriptions wait for the reconnect, and ioredis subscribes its channels again.
 * - `events`: the blocking reads of the events stream (`RedisEventTarget`); a read cut by a lost connection
 *   is sent again once it is back.
 */
export function openRedis(url: string, name: 'commands' | 'subscriber' | 'events', logger: Logger): Redis {
  const redis = new Redis(url, {
    connectionName: `connectivity-gateway:${name}`,
    retryStrategy: reconnectDelayMs,
    ...(name === 'commands'
      ? { maxRetriesPerRequest: 1, commandTimeout: COMMAND_TIMEOUT_MS }
      : { maxRetriesPerRequest: null }),
  });
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn({ err: error, connection: name }, 'redis connection lost; reconnecting');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ connection: name }, 'redis connection restored');
  });
  return redis;
}

/**
 * Closes `redis` politely (`QUIT`), or at once when it is not connected (a `QUIT` would wait for a
 * reconnect that may never come).
 */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    await redis.quit().catch(() => redis.disconnect());
    return;
  }
  redis.disconnect();
}
