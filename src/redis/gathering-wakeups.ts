import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { RedisBroadcast } from './broadcast.js';

/**
 * Wake-ups of the gathering workers of every process (issue 17): a create publishes one on
 * `<prefix>gathering`, and each process that runs a worker wakes it, so tasks queued on one instance are
 * claimed at once by a worker on another instead of at its next idle poll. A lost wake-up (Redis down)
 * costs only that wait: the claim itself goes through the database.
 */
export type RedisGatheringWakeups = RedisBroadcast<void>;

/** The gathering wake-ups' channel on these connections; see {@link RedisGatheringWakeups}. */
export function redisGatheringWakeups(
  publisher: Redis,
  subscriber: Redis,
  prefix: string,
  logger: Logger,
): RedisGatheringWakeups {
  return new RedisBroadcast<void>(
    publisher,
    subscriber,
    `${prefix}gathering`,
    { encode: () => 'tasks-queued', decode: () => undefined },
    'gathering wake-up',
    logger,
  );
}
