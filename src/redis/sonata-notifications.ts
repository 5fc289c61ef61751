import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { SonataNotification } from '../gathering/sources/mef-sonata/index.js';
import type { Logger } from '../logger.js';

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
export class RedisSonataNotifications {
  private readonly channel: string;
  private readonly listeners = new Set<(notification: SonataNotification) => void>();
  /** Resolves once Redis confirmed the subscription. */
  readonly ready: Promise<void>;

  constructor(
    private readonly publisher: Redis,
    subscriber: Redis,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.channel = `${prefix}sonata-notifications`;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const notification = this.parse(message);
      if (!notification) return;
      for (const listener of this.listeners) listener(notification);
    });
    this.ready = subscriber.subscribe(this.channel).then(() => undefined);
  }

  /** Hands an accepted notification to every process (this one's listeners too, through Redis). */
  publish(notification: SonataNotification): void {
    this.publisher
      .publish(this.channel, JSON.stringify(notification))
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'could not forward a Sonata notification to the other processes'),
      );
  }

  /** Calls `listener` with every notification any process accepted; returns the function that stops it. */
  onNotification(listener: (notification: SonataNotification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private parse(message: string): SonataNotification | null {
    try {
      return notificationSchema.parse(JSON.parse(message));
    } catch (error) {
      this.logger.warn({ err: error }, 'ignored a malformed forwarded Sonata notification');
      return null;
    }
  }
}
