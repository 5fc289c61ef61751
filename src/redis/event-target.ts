import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { EventProgress, RedisEventHistory } from './event-history.js';
import { eventSerializer } from './event-serializer.js';

export { eventSerializer } from './event-serializer.js';

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
 *
 * Publishing goes through {@link RedisEventHistory.publish}: the event gets its history entry (its id, global
 * and ordered, set on the delivered payload as `eventId` when the payload is an object), and an event that
 * `progress` places behind one already published for its subject is dropped for everyone. Redis pub/sub
 * keeps nothing: a process that is disconnected misses what was published meanwhile (ioredis resubscribes
 * on reconnect); the history is what replays (`Last-Event-ID` on the Mercure hub).
 */
export class RedisEventTarget {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly channel: string;
  private count = 0;
  /** Resolves once Redis confirmed the subscription: before it, events published are not heard here. */
  readonly ready: Promise<void>;

  /**
   * @param history publishes (through its connection for commands) and keeps each topic's history.
   * @param subscriber a connection of its own: in subscriber mode Redis takes no other command on it.
   * @param prefix prepended to the channel's name, so deployments can share one Redis.
   * @param progress where a payload stands in its subject's progression, or null (always published).
   */
  constructor(
    private readonly history: RedisEventHistory,
    subscriber: Redis,
    prefix: string,
    private readonly logger: Logger,
    private readonly progress: (detail: unknown) => EventProgress | null = () => null,
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
    const detail = (event as CustomEvent).detail ?? null;
    const message = eventSerializer.stringify({ type: event.type, detail });
    this.history
      .publish(this.channel, event.type, message, this.progress(detail))
      .catch((error: unknown) =>
        this.logger.error({ err: error, channel: this.channel }, 'redis publish failed'),
      );
    return true;
  }

  /** Delivers `<entry id>\n<message>` (see {@link RedisEventHistory.publish}) to this process's listeners. */
  private deliver(text: string): void {
    const newline = text.indexOf('\n');
    const id = text.slice(0, Math.max(0, newline));
    let parsed: { type: string; detail: unknown };
    try {
      if (newline < 0) throw new Error('no entry id line');
      parsed = eventSerializer.parse(text.slice(newline + 1)) as { type: string; detail: unknown };
    } catch (error) {
      this.logger.error({ err: error, channel: this.channel }, 'unreadable event on redis; dropped');
      return;
    }
    const set = this.listeners.get(parsed.type);
    if (!set) return;
    const { detail } = parsed;
    if (id && typeof detail === 'object' && detail !== null) (detail as { eventId?: string }).eventId = id;
    const event = new CustomEvent(parsed.type, { detail });
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
