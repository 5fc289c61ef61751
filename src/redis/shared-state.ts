import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { type BroadcastCodec, RedisBroadcast } from './broadcast.js';
import { closeRedis, openRedis } from './connection.js';
import { type EventProgress, RedisEventHistory } from './event-history.js';
import { RedisEventTarget } from './event-target.js';
import { type RedisGatheringWakeups, redisGatheringWakeups } from './gathering-wakeups.js';
import { type RedisSonataNotifications, redisSonataNotifications } from './sonata-notifications.js';

/** What instances share through Redis when `REDIS_URL` is set (issue 17). */
export interface RedisSharedState {
  /**
   * The event bus's target: every instance hears every event (the events stream); its `history` is every
   * topic's, for `Last-Event-ID` replays on any instance.
   */
  events: RedisEventTarget;
  /** Wake-ups of every instance's gathering worker. */
  wakeups: RedisGatheringWakeups;
  /** MEF Sonata hub notifications, from the instance the seller called to every process's inbox. */
  sonataNotifications: RedisSonataNotifications;
  /** The connection for commands (rate-limit counters, publishing); not in subscriber mode. */
  commands: Redis;
  /**
   * A further channel every process hears (`<prefix><name>`), on these connections; await its `ready`
   * before relying on it. At most once, like every pub/sub channel (see {@link RedisBroadcast}).
   */
  broadcast<T>(name: string, codec: BroadcastCodec<T>, what: string): RedisBroadcast<T>;
  /** Stops reading events and closes the three connections. */
  close(): Promise<void>;
}

/** How instances share events through Redis. */
export interface RedisSharedOptions {
  /** `REDIS_KEY_PREFIX`: prepended to every channel and key. */
  prefix: string;
  /** Events kept per topic for replays (`MERCURE_HISTORY_SIZE`). */
  historySize: number;
  /** Where an event stands in its subject's progression (stale ones are dropped), or null. */
  progress?: (detail: unknown) => EventProgress | null;
  /** How long to wait for Redis at start, in ms (default 10 s). */
  timeoutMs?: number;
}

/**
 * Opens the three Redis connections an instance needs — one for commands and publishing, one in subscriber
 * mode, one for the blocking reads of the events stream — and resolves once its channels are subscribed and
 * it knows where the events stream ends, so the instance hears every event published from the moment it
 * serves anyone.
 *
 * @throws Error when Redis does not confirm the subscriptions within `timeoutMs`.
 */
export async function openRedisSharedState(
  url: string,
  options: RedisSharedOptions,
  logger: Logger,
): Promise<RedisSharedState> {
  const { prefix, timeoutMs = 10_000 } = options;
  const log = logger.child({ component: 'redis' });
  const commands = openRedis(url, 'commands', log);
  const subscriber = openRedis(url, 'subscriber', log);
  const reader = openRedis(url, 'events', log);
  const history = new RedisEventHistory(commands, prefix, options.historySize);
  const events = new RedisEventTarget(history, reader, log, options.progress);
  const close = async () => {
    events.close();
    // A QUIT would wait behind the blocking read: the reader is cut at once, which ends that read.
    reader.disconnect();
    await Promise.all([closeRedis(commands), closeRedis(subscriber)]);
  };
  const wakeups = redisGatheringWakeups(commands, subscriber, prefix, log);
  const sonataNotifications = redisSonataNotifications(commands, subscriber, prefix, log);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all([events.ready, wakeups.ready, sonataNotifications.ready]),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Redis at REDIS_URL did not answer within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (error) {
    await close();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const broadcast = <T>(name: string, codec: BroadcastCodec<T>, what: string) =>
    new RedisBroadcast<T>(commands, subscriber, `${prefix}${name}`, codec, what, log);
  return { events, wakeups, sonataNotifications, commands, broadcast, close };
}
