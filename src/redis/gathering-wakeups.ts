import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/**
 * Wake-ups of the gathering workers of every process (issue 17): a create publishes one on a Redis channel
 * (`<prefix>gathering`), and each process that runs a worker wakes it, so tasks queued on one instance are
 * claimed at once by a worker on another instead of at its next idle poll. A lost wake-up (Redis down)
 * costs only that wait: the claim itself goes through the database.
 */
export class RedisGatheringWakeups {
  private readonly channel: string;
  private readonly listeners = new Set<() => void>();
  /** Resolves once Redis confirmed the subscription. */
  readonly ready: Promise<void>;

  constructor(
    private readonly publisher: Redis,
    subscriber: Redis,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.channel = `${prefix}gathering`;
    subscriber.on('message', (channel: string) => {
      if (channel !== this.channel) return;
      for (const listener of this.listeners) listener();
    });
    this.ready = subscriber.subscribe(this.channel).then(() => undefined);
  }

  /** Tells every process's worker (this one's too, through Redis) that tasks are waiting. */
  publish(): void {
    this.publisher
      .publish(this.channel, 'tasks-queued')
      .catch((error: unknown) => this.logger.warn({ err: error }, 'could not publish a gathering wake-up'));
  }

  /** Calls `listener` on every wake-up from any process; returns the function that stops it. */
  onWake(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
