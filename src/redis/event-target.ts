import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/** An ISO 8601 timestamp as `Date.prototype.toJSON` writes it. */
const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Event payloads on the wire: JSON, with the `Date`s of rows (`createdAt`, `updatedAt`, … — every key ending
 * in `At`) turned back into `Date`s on arrival, so a subscriber reads the same record whether the event was
 * published in its own process or another.
 */
export const eventSerializer = {
  stringify: (value: unknown): string => JSON.stringify(value),
  parse: (text: string): unknown =>
    JSON.parse(text, (key, value) =>
      key.endsWith('At') && typeof value === 'string' && isoTimestamp.test(value) ? new Date(value) : value,
    ),
};

type Listener = (event: CustomEvent) => void;

/**
 * The event bus's target when `REDIS_URL` is set (issue 17): every event is published on one Redis channel
 * (`<prefix>events`, the event's type inside the message), which every process subscribes to once at start,
 * and each process delivers to its own listeners what arrives there — its own events included, so all
 * processes see the events of one publisher in one order. The same interface as the in-process target
 * (`createPubSub`'s `eventTarget`), in the manner of `@graphql-yoga/redis-event-target`, with two
 * differences that make subscriptions exact:
 * - One channel, subscribed before the process serves anyone ({@link ready}), instead of a channel per
 *   topic subscribed when its first listener comes: a listener hears every event published after it was
 *   attached, with no window while a `SUBSCRIBE` is in flight in which a change could fall between a
 *   subscription's snapshot and its live events.
 * - {@link listenerCount}, for `/metrics` and the tests; a message that does not parse is logged and
 *   dropped, not thrown into ioredis.
 *
 * Each process receives every instance's events and drops those nobody listens to here: one JSON parse per
 * event and process, against one `SUBSCRIBE` round trip per topic and subscriber churn otherwise.
 * Redis pub/sub keeps nothing: a process that is disconnected misses what was published meanwhile (ioredis
 * resubscribes on reconnect); the Mercure history (`Last-Event-ID`) is what replays.
 */
export class RedisEventTarget {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly channel: string;
  private count = 0;
  /** Resolves once Redis confirmed the subscription: before it, events published are not heard here. */
  readonly ready: Promise<void>;

  /**
   * @param publisher a connection for `PUBLISH` (may be shared with other commands).
   * @param subscriber a connection of its own: in subscriber mode Redis takes no other command on it.
   * @param prefix prepended to the channel's name, so deployments can share one Redis.
   */
  constructor(
    private readonly publisher: Redis,
    subscriber: Redis,
    prefix: string,
    private readonly logger: Logger,
  ) {
    this.channel = `${prefix}events`;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.channel) this.deliver(message);
    });
    this.ready = subscriber.subscribe(this.channel).then(() => undefined);
  }

  /** Listeners attached right now, across all event types. */
  get listenerCount(): number {
    return this.count;
  }

  addEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    if (!listener) return;
    const callback = toCallback(listener);
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    if (!set.has(callback)) this.count += 1;
    set.add(callback);
  }

  removeEventListener(type: string, listener: EventListenerOrEventListenerObject | null): void {
    if (!listener) return;
    const set = this.listeners.get(type);
    if (!set?.delete(toCallback(listener))) return;
    this.count -= 1;
    if (set.size === 0) this.listeners.delete(type);
  }

  /** Publishes the event on the channel; listeners here get it back from Redis like any other process. */
  dispatchEvent(event: Event): boolean {
    const message = eventSerializer.stringify({
      type: event.type,
      detail: (event as CustomEvent).detail ?? null,
    });
    this.publisher
      .publish(this.channel, message)
      .catch((error: unknown) =>
        this.logger.error({ err: error, channel: this.channel }, 'redis publish failed'),
      );
    return true;
  }

  private deliver(message: string): void {
    let parsed: { type: string; detail: unknown };
    try {
      parsed = eventSerializer.parse(message) as { type: string; detail: unknown };
    } catch (error) {
      this.logger.error({ err: error, channel: this.channel }, 'unreadable event on redis; dropped');
      return;
    }
    const set = this.listeners.get(parsed.type);
    if (!set) return;
    const event = new CustomEvent(parsed.type, { detail: parsed.detail });
    for (const callback of [...set]) callback(event);
  }
}

const callbacks = new WeakMap<EventListenerObject, Listener>();

/** The function to call for `listener`, the same one each time for the same listener object. */
function toCallback(listener: EventListenerOrEventListenerObject): Listener {
  if (typeof listener === 'function') return listener as Listener;
  let callback = callbacks.get(listener);
  if (!callback) {
    callback = (event) => listener.handleEvent(event);
    callbacks.set(listener, callback);
  }
  return callback;
}
