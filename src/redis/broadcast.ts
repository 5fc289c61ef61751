import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/** How a broadcast's messages travel: `encode` for publishing, `decode` throws on a message it refuses. */
export interface BroadcastCodec<T> {
  encode(value: T): string;
  decode(message: string): T;
}

/**
 * One Redis channel (`<prefix><name>`) that every process of a shared deployment publishes on and hears,
 * itself included (issue 17). Delivery is Redis pub/sub's: at most once, to the processes subscribed at
 * that moment, so what is broadcast must be something whose loss costs only time (a wake-up, a
 * notification the receiver can also poll for). A message `decode` refuses is logged and dropped: the
 * channel is ours, but the Redis may be shared.
 */
export class RedisBroadcast<T> {
  private readonly channel: string;
  private readonly listeners = new Set<(value: T) => void>();
  /** Resolves once Redis confirmed the subscription. */
  readonly ready: Promise<void>;

  /**
   * @param what what the channel carries, for log lines (`gathering wake-up`).
   */
  constructor(
    private readonly publisher: Redis,
    subscriber: Redis,
    channel: string,
    private readonly codec: BroadcastCodec<T>,
    private readonly what: string,
    private readonly logger: Logger,
  ) {
    this.channel = channel;
    subscriber.on('message', (from: string, message: string) => {
      if (from !== this.channel) return;
      let value: T;
      try {
        value = this.codec.decode(message);
      } catch (error) {
        this.logger.warn({ err: error, channel }, `ignored a malformed ${this.what}`);
        return;
      }
      for (const listener of this.listeners) listener(value);
    });
    this.ready = subscriber.subscribe(this.channel).then(() => undefined);
  }

  /** Sends `value` to every process's listeners (this one's too, through Redis); a failure is logged. */
  publish(value: T): void {
    this.publisher
      .publish(this.channel, this.codec.encode(value))
      .catch((error: unknown) => this.logger.warn({ err: error }, `could not publish a ${this.what}`));
  }

  /** Calls `listener` with every value any process publishes; returns the function that stops it. */
  listen(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
