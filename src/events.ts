import { setMaxListeners } from 'node:events';
import { createPubSub } from 'graphql-yoga';
import { v7 as uuidv7 } from 'uuid';
import type { AvailabilityRequestRecord, OrderRecord } from './db/rows.js';
import { inProcessSpan, type TraceCarrier } from './telemetry/event-spans.js';
import { outsideTrace } from './telemetry/trace-context.js';

/** An availability request was created, or its status or progress changed; `record` is its new state. */
export interface AvailabilityRequestEvent {
  instanceId: string;
  kind: 'created' | 'updated';
  record: AvailabilityRequestRecord;
  /**
   * The event's id in its history (see {@link EventHistory}), set on delivery: in process a UUIDv7, in the
   * shared mode (`REDIS_URL`) a Redis stream entry id, global and ordered.
   */
  eventId?: string;
}

/** An order was placed, or it or one of its lines changed; `record` is its state at that commit. */
export interface OrderEvent {
  instanceId: string;
  kind: 'created' | 'updated';
  record: OrderRecord;
  /** As {@link AvailabilityRequestEvent.eventId}. */
  eventId?: string;
}

/** An event as its history keeps it. */
export interface HistoryEntry {
  /** The event's id, ordered by {@link EventHistory.compare}. */
  id: string;
  /** The event bus type (`availabilityRequest:changed:<instance id>`). */
  type: string;
  detail: unknown;
}

/**
 * The recent events of every event bus type, for subscribers that reconnect (`Last-Event-ID` on the Mercure
 * hub): in process ({@link LocalEventHistory}) or in Redis (`RedisEventHistory`), written as each event is
 * published — not by a listener — so it is kept whether or not anyone listens.
 */
export interface EventHistory {
  /** The IRI an event id is shown under (`urn:uuid:` in process). */
  readonly idPrefix: string;
  /** Orders two event ids of this history. */
  compare(a: string, b: string): number;
  /**
   * What a subscriber of `types` that last saw `lastId` missed, oldest first over all the types. `found`
   * tells whether `lastId` is still kept in one of them; without it (`null`, trimmed, never sent) the
   * answer is the whole kept history.
   */
  after(
    types: readonly string[],
    lastId: string | null,
  ): Promise<{ found: boolean; entries: HistoryEntry[] }>;
}

/**
 * The in-process history (the embedded default): the last `size` events of each type, with UUIDv7 ids —
 * monotonic within the process, so their order as strings is the order they were published in. Lost with
 * the process, as its subscribers are.
 */
export class LocalEventHistory implements EventHistory {
  readonly idPrefix = 'urn:uuid:';
  private readonly kept = new Map<string, HistoryEntry[]>();

  constructor(private readonly size: number) {}

  compare(a: string, b: string): number {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** Keeps an event and returns its new id. */
  append(type: string, detail: unknown): string {
    const id = uuidv7();
    if (this.size <= 0) return id;
    let entries = this.kept.get(type);
    if (!entries) {
      entries = [];
      this.kept.set(type, entries);
    }
    entries.push({ id, type, detail });
    if (entries.length > this.size) entries.shift();
    return id;
  }

  async after(
    types: readonly string[],
    lastId: string | null,
  ): Promise<{ found: boolean; entries: HistoryEntry[] }> {
    const kept = types.flatMap((type) => this.kept.get(type) ?? []).sort((a, b) => this.compare(a.id, b.id));
    const found = lastId !== null && kept.some((entry) => entry.id === lastId);
    return {
      found,
      entries: found ? kept.filter((entry) => (entry.id as string) > (lastId as string)) : kept,
    };
  }
}

/**
 * An EventTarget that counts its listeners, so operators and tests can see that closed subscriptions
 * leave none behind. It sets no listener cap (Yoga's default target warns past ten subscribers).
 */
export class CountingEventTarget extends EventTarget {
  private count = 0;
  /** Listeners per event type, so an event nobody here listens to gets no `process` span. */
  private readonly counts = new Map<string, number>();
  readonly history: LocalEventHistory;
  readonly messagingSystem = 'in-process';

  /** @param historySize events kept per type for replays (`MERCURE_HISTORY_SIZE`). */
  constructor(historySize = 0) {
    super();
    this.history = new LocalEventHistory(historySize);
    // Node's EventTarget warns past ten listeners per type; thousands of subscribers are expected here.
    setMaxListeners(0, this);
  }

  /** Listeners attached right now, across all event types. */
  get listenerCount(): number {
    return this.count;
  }

  override addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: AddEventListenerOptions | boolean,
  ): void {
    if (listener) {
      this.count += 1;
      this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
    }
    super.addEventListener(type, listener, options);
  }

  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: EventListenerOptions | boolean,
  ): void {
    if (listener) {
      this.count -= 1;
      const left = (this.counts.get(type) ?? 0) - 1;
      if (left > 0) this.counts.set(type, left);
      else this.counts.delete(type);
    }
    super.removeEventListener(type, listener, options);
  }

  /**
   * Keeps each event in the history, with its id as `eventId`, and delivers it to this process's listeners
   * — in a `process` span when it carries a trace context and someone listens (`inProcessSpan`).
   */
  async publishAll(events: readonly PublishedEvent[]): Promise<boolean[]> {
    return events.map(({ type, detail, trace }) => {
      const id = this.history.append(type, detail);
      detail.eventId = id;
      const event = new CustomEvent(type, { detail });
      if (trace === undefined || !this.counts.has(type)) this.dispatchEvent(event);
      else
        inProcessSpan(this.messagingSystem, eventTopicOf(type), trace, { 'messaging.message.id': id }, () =>
          this.dispatchEvent(event),
        );
      return true;
    });
  }
}

/** An event to publish: its bus type (`<topic>:<instance id>`) and payload. */
export interface PublishedEvent {
  type: string;
  detail: AvailabilityRequestEvent | OrderEvent;
  /**
   * The W3C trace context of the relay's `publish` span (`inPublishSpans`), which the message carries to
   * every process's `process` span; absent for an event in no trace.
   */
  trace?: TraceCarrier;
}

/**
 * What the event bus publishes through: in process ({@link CountingEventTarget}, the embedded default) or
 * through Redis (`RedisEventTarget`, with `REDIS_URL`: every instance hears every event). Either way a
 * listener hears every event published after it was attached, which lets a subscription attach first and
 * read its snapshot after.
 */
export interface EventBusTarget extends EventTarget {
  /** Listeners attached right now, across all event types. */
  readonly listenerCount: number;
  /** Where published events are kept for replays. */
  readonly history: EventHistory;
  /** The bus as OpenTelemetry's `messaging.system` names it in event spans: `redis` or `in-process`. */
  readonly messagingSystem: string;
  /**
   * Publishes events in order, each kept in {@link history} first; resolves once every one is out or
   * failed, with whether each was published (false: Redis down — the outbox relay tries it again).
   */
  publishAll(events: readonly PublishedEvent[]): Promise<boolean[]>;
}

const changedTopic = 'availabilityRequest:changed';

/** The event bus type of an instance's request changes: what listeners attach to and histories key. */
export function requestEventType(instanceId: string): string {
  return `${changedTopic}:${instanceId}`;
}

const orderTopic = 'order:changed';

/** The topic of an event bus type (`order:changed` of `order:changed:<instance id>`). */
export function eventTopicOf(type: string): string {
  if (type.startsWith(`${orderTopic}:`)) return orderTopic;
  if (type.startsWith(`${changedTopic}:`)) return changedTopic;
  return type;
}

/** The event bus type of an instance's order changes. */
export function orderEventType(instanceId: string): string {
  return `${orderTopic}:${instanceId}`;
}

/**
 * The one event stream inside the service (DESIGN.md, "Architecture"): the outbox relay publishes
 * (`src/event-relay.ts`, through `target.publishAll`), GraphQL subscriptions and the REST event stream read.
 * Topics are scoped by instance.
 */
export function createEventBus(target: EventBusTarget = new CountingEventTarget()) {
  const pubsub = createPubSub<{
    [changedTopic]: [instanceId: string, payload: AvailabilityRequestEvent];
    [orderTopic]: [instanceId: string, payload: OrderEvent];
  }>({ eventTarget: target });
  const writes = new EventTarget();
  return Object.assign(pubsub, {
    target,
    /**
     * Tells the outbox relay of this process that a committed change wrote events (the store writes them;
     * this only makes them go out now rather than at the relay's next poll). The listeners — the relay, the
     * workers' wake-ups — run outside the writer's trace (`outsideTrace`): the rounds and claims they
     * schedule serve every writer, and would otherwise join the trace of whichever woke them.
     */
    written(): void {
      outsideTrace(() => writes.dispatchEvent(new Event('written')));
    },
    /** Calls `listener` on every {@link written}; returns the function that stops it. */
    onWritten(listener: () => void): () => void {
      writes.addEventListener('written', listener);
      return () => writes.removeEventListener('written', listener);
    },
  });
}

/** The event bus type. */
export type EventBus = ReturnType<typeof createEventBus>;
