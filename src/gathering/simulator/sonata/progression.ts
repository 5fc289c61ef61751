import type { LifecycleEvent, StateChange } from './lifecycle.js';

/** One item of a POQ or Quote: the buyer's item, the seller's verdict on it, and the item's state log. */
export interface ItemRecord<R extends { id: string }, V> {
  request: R;
  verdict: V;
  state: string;
  stateChange: StateChange[];
}

/**
 * The states a POQ or Quote moves through at a simulated seller, and its items' (MEF 87 §6.3, MEF 115
 * §6.2): `acknowledged` at creation; then, one deferred step at a time, `inProgress`; then a final state
 * the caller decides ({@link end}). Every move is logged (`stateChange`) and gives the notification
 * documents' events: one per item, then one for the POQ or Quote.
 */
export class Progression<R extends { id: string }, V> {
  state = 'acknowledged';
  readonly stateChange: StateChange[];
  /** When it reached its final state (ISO 8601), undefined before. */
  completedAt: string | undefined;
  readonly items: ItemRecord<R, V>[];

  /**
   * @param events the event types of an item's and of the whole's state changes
   *   (`poqItemStateChangeEvent` / `poqStateChangeEvent`, `quoteItemStateChangeEvent` / `quoteStateChangeEvent`).
   * @param finalStates the completion states, after which no deferred step is taken.
   */
  constructor(
    created: Date,
    requests: readonly R[],
    verdictOf: (request: R, index: number) => V,
    private readonly events: { item: string; whole: string },
    private readonly finalStates: readonly string[],
  ) {
    const at = created.toISOString();
    this.stateChange = [{ changeDate: at, state: this.state }];
    this.items = requests.map((request, index) => ({
      request,
      verdict: verdictOf(request, index),
      state: 'acknowledged',
      stateChange: [{ changeDate: at, state: 'acknowledged' }],
    }));
  }

  /** Whether it reached a completion state. */
  complete(): boolean {
    return this.finalStates.includes(this.state);
  }

  /**
   * Ends it at `now`: each item moves to `itemState(item)`, then the whole to `state(items)` (read after the
   * items moved). Returns the events of those changes, the items' first.
   */
  end(
    now: Date,
    itemState: (item: ItemRecord<R, V>) => string,
    state: (items: readonly ItemRecord<R, V>[]) => string,
  ): LifecycleEvent[] {
    const at = now.toISOString();
    const events = this.items.map((item) => this.move(item, itemState(item), at));
    this.state = state(this.items);
    this.stateChange.push({ changeDate: at, state: this.state });
    this.completedAt = at;
    events.push({ eventType: this.events.whole });
    return events;
  }

  /**
   * The next deferred step at `now`: from `acknowledged`, everything to `inProgress`; from `inProgress`,
   * `end` (the caller's {@link end}); none once complete. Returns the step's events.
   */
  advance(now: Date, end: (now: Date) => LifecycleEvent[]): LifecycleEvent[] {
    if (this.state === 'inProgress') return end(now);
    if (this.state !== 'acknowledged') return [];
    const at = now.toISOString();
    const events = this.items.map((item) => this.move(item, 'inProgress', at));
    this.state = 'inProgress';
    this.stateChange.push({ changeDate: at, state: this.state });
    events.push({ eventType: this.events.whole });
    return events;
  }

  /** An item as the seller shows it: the buyer's item with its state and state log. */
  itemView(item: ItemRecord<R, V>): Record<string, unknown> {
    return { ...item.request, state: item.state, stateChange: item.stateChange };
  }

  private move(item: ItemRecord<R, V>, next: string, at: string): LifecycleEvent {
    item.state = next;
    item.stateChange.push({ changeDate: at, state: next });
    return { eventType: this.events.item, itemId: item.request.id };
  }
}
