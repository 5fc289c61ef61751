import type { Services } from '../context.js';

/** How long `/readyz` and a scrape wait for the store's `select 1` before counting it as down, in ms. */
export const STORE_PING_TIMEOUT_MS = 1_000;

/** Whether the servers this instance depends on answer now (see {@link dependencyHealth}). */
export interface DependencyHealth {
  /** The store answered `select 1` within {@link STORE_PING_TIMEOUT_MS}. */
  database: boolean;
  /** Redis's command connection is up (ioredis status `ready`); null without `REDIS_URL`. */
  redis: boolean | null;
}

/**
 * Whether the store answers `select 1` within {@link STORE_PING_TIMEOUT_MS} (a partitioned server can keep a
 * connection attempt waiting for `connectionTimeoutMillis`). Never throws.
 */
export async function storeAnswers(db: Services['db']): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), STORE_PING_TIMEOUT_MS);
  });
  return Promise.race([db.ping(), timedOut]).finally(() => clearTimeout(timer));
}

/** Whether Redis's command connection is up (ioredis status `ready`); null without `REDIS_URL`. */
export function redisReady(redis: Services['redis']): boolean | null {
  return redis ? redis.commands.status === 'ready' : null;
}

/** {@link storeAnswers} and {@link redisReady} of `services`, as `/readyz` reports them. Never throws. */
export async function dependencyHealth(services: Pick<Services, 'db' | 'redis'>): Promise<DependencyHealth> {
  return { database: await storeAnswers(services.db), redis: redisReady(services.redis) };
}
