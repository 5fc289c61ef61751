import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { SonataNotification } from '../gathering/sources/mef-sonata/index.js';
import type { Logger } from '../logger.js';
import { RedisBroadcast } from './broadcast.js';

/** A forwarded notification as it travels (only what the inbox keeps; ours, but Redis may be shared). */
const notificationSchema = z.object({
  sourceId: z.string().min(1).max(200),
  api: z.enum(['poq', 'quote']),
  eventId: z.string().min(1).max(500),
  eventType: z.string().min(1).max(100),
  eventTime: z.string().max(100),
  resourceId: z.string().min(1).max(500),
  itemId: z.string().max(500).nullable(),
});

/**
 * MEF Sonata hub notifications across the processes of a shared deployment (issue 18 with issue 17): the
 * seller's callback lands on whichever API instance the load balancer picks, while the query waiting for
 * it runs in a worker process elsewhere. The instance that accepted an event publishes it on
 * `<prefix>sonata-notifications`; every process (itself too) hands it to its own inbox, whose idempotency
 * makes the second delivery in the accepting process a no-op. An event lost while Redis is away costs only
 * time: the waiting query polls at its deadline's end, or the seller's next event wakes it.
 */
export type RedisSonataNotifications = RedisBroadcast<SonataNotification>;

/** The Sonata notifications' channel on these connections; see {@link RedisSonataNotifications}. */
export function redisSonataNotifications(
  publisher: Redis,
  subscriber: Redis,
  prefix: string,
  logger: Logger,
): RedisSonataNotifications {
  return new RedisBroadcast<SonataNotification>(
    publisher,
    subscriber,
    `${prefix}sonata-notifications`,
    {
      encode: (notification) => JSON.stringify(notification),
      decode: (message) => notificationSchema.parse(JSON.parse(message)),
    },
    'forwarded Sonata notification',
    logger,
  );
}
