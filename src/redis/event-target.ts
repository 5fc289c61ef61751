import type { Redis } from 'ioredis';
import { eventTopicOf, type PublishedEvent } from '../events.js';
import type { Logger } from '../logger.js';
import { inProcessSpan, type TraceCarrier } from '../telemetry/event-spans.js';
import type { EventProgress, RedisEventHistory } from './event-history.js';
import { eventSerializer } from './event-serializer.js';

export { eventSerializer } from './event-serializer.js';

type Listener = (event: CustomEvent) => void;

/** Entries read from the events stream at a time. */
const READ_COUNT = 500;
/** How long one blocking read waits for new entries before it is asked again (ms). */
const READ_BLOCK_MS = 5_000;

/**
 * The event bus's target when `REDIS_URL` is set (issues 17 and 34): every event is appended to one Redis
 * stream (`<prefix>events`, see {@link RedisEventHistory.publish}), which every process reads from where it
 * stopped (`XREAD BLOCK` on a connection of its own), delivering to its own listeners — its own events
 * included, so all processes see the events in one order. The same interface as the in-process target
 * (`createPubSub`'s `eventTarget`), in the manner of `@graphql-yoga/redis-event-target`, with what makes
 * subscriptions exact:
 * - A stream, not pub/sub: a process whose connection drops (Redis restarted, a network blip) reads on from
 *   the last entry it had once it is back, so it misses nothing published meanwhile, as long as it is less
 *   than `EVENT_STREAM_LENGTH` entries behind. Pub/sub would drop what was published while it reconnected.
 * - Reading starts at the stream's end as it was before the process serves anyone ({@link ready}): a
 *   listener hears every event published after it was attached, with no window in which a change could
 *   fall between a subscription's snapshot and its live events.
 * - {@link listenerCount}, for `/metrics` and the tests; an entry that does not parse is logged and skipped.
 *
 * Each process receives every instance's events and drops those nobody listens to here: one JSON parse per
 * event and process, against a read per topic and subscriber churn otherwise.
 *
 * Publishing goes through {@link publishAll}, awaited by the outbox relay: each event gets its stream entry
 * (its id, global and ordered, set on the delivered payload as `eventId`), and an event that `progress`
 * places at or behind one already published for its subject is dropped for everyone.
 *
 * An event in a trace carries its publish span's W3C context in its entry (`trace`, issue 37); each process
 * that delivers it to listeners of its own does so in one `process` span (`inProcessSpan`), whatever the
 * number of listeners.
 */
export class RedisEventTarget {
  private readonly listeners = new Map<string, Set<Listener>>();
  private count = 0;
  readonly messagingSystem = 'redis';
  private closed = false;
  /** Resolves once the process knows where the stream ends: events published after it are heard here. */
  readonly ready: Promise<void>;

  /**
   * @param history publishes (through its connection for commands) and keeps each topic's history.
   * @param reader a connection of its own: a blocking read holds it.
   * @param progress where a payload stands in its subject's progression, or null (always published).
   */
  constructor(
    readonly history: RedisEventHistory,
    private readonly reader: Redis,
    private readonly logger: Logger,
    private readonly progress: (detail: unknown) => EventProgress | null = () => null,
  ) {
    // Where the stream ends now (`0-0` when empty): reading starts after it. Asked on the reader, which
    // waits for Redis as long as it takes (the caller times the start out).
    this.ready = reader.xrevrange(history.streamKey, '+', '-', 'COUNT', 1).then(([newest]) => {
      void this.read(newest?.[0] ?? '0-0');
    });
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

  /** Publishes one event without waiting; a failure is logged. The relay uses {@link publishAll}. */
  dispatchEvent(event: Event): boolean {
    const detail = (event as CustomEvent).detail ?? null;
    this.publishOne(event.type, detail).catch((error: unknown) =>
      this.logger.error({ err: error }, 'redis publish failed'),
    );
    return true;
  }

  /**
   * Publishes events in order (one pipeline: commands on one connection run in the order sent); listeners
   * here get them back from the stream like any other process's.
   *
   * @returns per event whether Redis took it (a stale one it dropped counts as taken); a failure (Redis
   *   down) is logged once per call.
   */
  async publishAll(events: readonly PublishedEvent[]): Promise<boolean[]> {
    const results = await Promise.allSettled(
      events.map(({ type, detail, trace }) => this.publishOne(type, detail, trace)),
    );
    const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) this.logger.warn({ err: failure.reason }, 'publishing events to redis failed');
    return results.map((result) => result.status === 'fulfilled');
  }

  /**
   * Stops reading; the reader connection is closed by its owner, which ends the read in flight. (Not awaited:
   * a read queued while Redis is away may only end when ioredis gives it up.)
   */
  close(): void {
    this.closed = true;
  }

  private publishOne(type: string, detail: unknown, trace?: TraceCarrier): Promise<string | null> {
    const message = eventSerializer.stringify(trace ? { type, detail, trace } : { type, detail });
    return this.history.publish(type, message, this.progress(detail));
  }

  /** Reads the stream from `lastId` on until closed, through reconnections (ioredis resends the read). */
  private async read(lastId: string): Promise<void> {
    let last = lastId;
    while (!this.closed) {
      let batches: [string, [string, string[]][]][] | null;
      try {
        batches = (await this.reader.xread(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          READ_BLOCK_MS,
          'STREAMS',
          this.history.streamKey,
          last,
        )) as [string, [string, string[]][]][] | null;
      } catch (error) {
        if (this.closed) return;
        this.logger.warn({ err: error }, 'reading the events stream failed; retrying');
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      for (const [, entries] of batches ?? []) {
        for (const [id, fields] of entries) {
          last = id;
          this.deliver(id, fields[1] ?? '');
        }
      }
    }
  }

  /** Delivers one stream entry to this process's listeners, with its id as `eventId`. */
  private deliver(id: string, text: string): void {
    let parsed: { type: string; detail: unknown; trace?: TraceCarrier };
    try {
      parsed = eventSerializer.parse(text) as { type: string; detail: unknown; trace?: TraceCarrier };
    } catch (error) {
      this.logger.error({ err: error, id }, 'unreadable event on redis; skipped');
      return;
    }
    const set = this.listeners.get(parsed.type);
    if (!set) return;
    const { detail } = parsed;
    if (typeof detail === 'object' && detail !== null) (detail as { eventId?: string }).eventId = id;
    const event = new CustomEvent(parsed.type, { detail });
    const deliver = () => {
      for (const callback of [...set]) callback(event);
    };
    if (parsed.trace === undefined) deliver();
    else
      inProcessSpan(
        this.messagingSystem,
        eventTopicOf(parsed.type),
        parsed.trace,
        { 'messaging.message.id': id },
        deliver,
      );
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
