import { setMaxListeners } from 'node:events';
import { createPubSub } from 'graphql-yoga';
import type { AvailabilityRequestRecord } from './db/rows.js';

/** An availability request was created, or its status or progress changed; `record` is its new state. */
export interface AvailabilityRequestEvent {
  instanceId: string;
  kind: 'created' | 'updated';
  record: AvailabilityRequestRecord;
  /**
   * The event's id in the shared history (shared mode, `REDIS_URL`: a Redis stream entry id, global and
   * ordered), set on delivery; absent in process.
   */
  eventId?: string;
}

/**
 * An EventTarget that counts its listeners, so operators and tests can see that closed subscriptions
 * leave none behind. It sets no listener cap (Yoga's default target warns past ten subscribers).
 */
export class CountingEventTarget extends EventTarget {
  private count = 0;

  constructor() {
    super();
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
    if (listener) this.count += 1;
    super.addEventListener(type, listener, options);
  }

  override removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject | null,
    options?: EventListenerOptions | boolean,
  ): void {
    if (listener) this.count -= 1;
    super.removeEventListener(type, listener, options);
  }
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
}

const changedTopic = 'availabilityRequest:changed';

/**
 * The one event stream inside the service (DESIGN.md, "Architecture"): gathering and resolvers
 * publish, GraphQL subscriptions and the REST event stream read. Topics are scoped by instance.
 */
export function createEventBus(target: EventBusTarget = new CountingEventTarget()) {
  const pubsub = createPubSub<{
    [changedTopic]: [instanceId: string, payload: AvailabilityRequestEvent];
  }>({ eventTarget: target });
  return Object.assign(pubsub, { target });
}

/** The event bus type. */
export type EventBus = ReturnType<typeof createEventBus>;
