import { randomUUID } from 'node:crypto';
import type { Lifecycle, LifecycleEvent, NotifyingApi } from './lifecycle.js';

/** A buyer's registration for notifications (POQ / Quote / Product Order `EventSubscription`). */
export interface Listener {
  id: string;
  sellerKey: string;
  api: NotifyingApi;
  buyerId: string | undefined;
  sellerId: string | undefined;
  callback: string;
  query: string | undefined;
  /** The event types the `query` asks for; null for all (an empty query, `EventSubscriptionInput`). */
  eventTypes: Set<string> | null;
}

/** A notification the seller sent: the listener URL, the `Event` body, the buyer's status (0: no answer). */
export interface SentNotification {
  url: string;
  body: unknown;
  status: number;
}

/**
 * The notification document's base path a listener path is appended to (POQ-N 7.0.1, Quote-N 8.0.1,
 * Product Order Notification 10.0.0).
 */
const NOTIFICATION_BASE: Record<NotifyingApi, string> = {
  poq: '/mefApi/sonata/productOfferingQualificationNotification/v7',
  quote: '/mefApi/sonata/quoteNotification/v8',
  order: '/mefApi/sonata/productOrderingNotification/v10',
};

/** The event payload's item id property (`PoqEventPayload.poqItemId`, …, `ProductOrderEventPayload.orderItemId`). */
const ITEM_KEY: Record<NotifyingApi, string> = {
  poq: 'poqItemId',
  quote: 'quoteItemId',
  order: 'orderItemId',
};

/**
 * The event types a buyer may ask for (`PoqEventType`, `QuoteEventType`; for orders `ProductOrderEventType`,
 * `ChargeEventType`, `CancelProductOrderEventType` and `ModifyProductOrderItemRequestedDeliveryDateEventType`
 * of the order notification document 10.0.0, though these sellers never send the last two).
 */
export const EVENT_TYPES: Record<NotifyingApi, readonly string[]> = {
  poq: ['poqCreateEvent', 'poqStateChangeEvent', 'poqItemStateChangeEvent'],
  quote: ['quoteStateChangeEvent', 'quoteItemStateChangeEvent'],
  order: [
    'productOrderStateChangeEvent',
    'productOrderItemStateChangeEvent',
    'productOrderItemExpectedCompletionDateSet',
    'productSpecificProductOrderItemMilestoneEvent',
    'chargeCreateEvent',
    'chargeStateChangeEvent',
    'chargeTimeoutEvent',
    'cancelProductOrderStateChangeEvent',
    'modifyProductOrderItemRequestedDeliveryDateStateChangeEvent',
  ],
};

/**
 * Names the MEF 123 developer guide (§6.15) spells differently from the notification document, whose name the
 * seller sends (the document wins).
 */
const ALIASES: Record<string, string> = {
  productOrderItemExpectedCompletionDateSetEvent: 'productOrderItemExpectedCompletionDateSet',
};

/**
 * Reads an `EventSubscriptionInput.query` such as `eventType=poqCreateEvent,poqStateChangeEvent` or
 * `eventType=a&eventType=b` (both TMF 630 forms, MEF 123 §6.15; spaces around `=` allowed, as in the
 * documents' own example); only `eventType` is supported (MEF 115 R55, MEF 123 R101).
 * @returns the event types, null for "all", or an error message for an unknown attribute or type.
 */
export function parseEventQuery(api: NotifyingApi, query: string | undefined): Set<string> | null | string {
  if (query === undefined || query.trim() === '') return null;
  const types: string[] = [];
  for (const part of query.split('&')) {
    const match = /^\s*eventType\s*=\s*(.+)$/.exec(part);
    if (!match?.[1]) return `only eventType can be queried, not "${query}"`;
    types.push(...match[1].split(',').map((type) => ALIASES[type.trim()] ?? type.trim()));
  }
  const unknown = types.find((type) => !EVENT_TYPES[api].includes(type));
  return unknown === undefined ? new Set(types) : `unknown eventType ${unknown}`;
}

/**
 * The listeners of all sellers, and the notifications sent to them. Each listener's notifications go out in
 * order, one at a time, as `POST {callback}{notification base}/listener/{eventType}` with the notification
 * document's `Event` (`eventId`, `eventTime`, `eventType`, `event.id`, `event.href`, the item id, a
 * milestone's name, and the registration's `buyerId`/`sellerId`, MEF 87 R6). An event about an order's
 * Charge names the Charge (`ChargeEventPayload`), not the order.
 */
export class Hub {
  readonly listeners = new Map<string, Listener>();
  readonly sent: SentNotification[] = [];
  private readonly queues = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();

  /** @param record whether to keep every notification in {@link Hub.sent} (tests read them). */
  constructor(private readonly record = true) {}

  register(listener: Omit<Listener, 'id'>): Listener {
    const registered = { ...listener, id: randomUUID() };
    this.listeners.set(registered.id, registered);
    return registered;
  }

  /** Whether the buyer has a listener for this API at this seller (polling is then throttled by `notify`). */
  listening(sellerKey: string, api: NotifyingApi, buyerId: string | undefined): boolean {
    return [...this.listeners.values()].some(
      (listener) => listener.sellerKey === sellerKey && listener.api === api && listener.buyerId === buyerId,
    );
  }

  /** Queues the notifications of `events` about `lifecycle` to each listener of its buyer that asked for them. */
  publish(lifecycle: Lifecycle, events: LifecycleEvent[], href: string): void {
    for (const listener of this.listeners.values()) {
      if (listener.sellerKey !== lifecycle.sellerKey || listener.api !== lifecycle.api) continue;
      if (listener.buyerId !== lifecycle.buyerId) continue;
      for (const event of events) {
        if (listener.eventTypes && !listener.eventTypes.has(event.eventType)) continue;
        lifecycle.unread += 1;
        const body = {
          eventId: randomUUID(),
          eventTime: new Date().toISOString(),
          eventType: event.eventType,
          event: {
            id: event.subject?.id ?? lifecycle.id,
            href: event.subject?.href ?? href,
            ...(event.itemId === undefined ? {} : { [ITEM_KEY[lifecycle.api]]: event.itemId }),
            ...(event.milestoneName === undefined ? {} : { milestoneName: event.milestoneName }),
            ...(listener.buyerId === undefined ? {} : { buyerId: listener.buyerId }),
            ...(listener.sellerId === undefined ? {} : { sellerId: listener.sellerId }),
          },
        };
        const url = `${listener.callback.replace(/\/$/, '')}${NOTIFICATION_BASE[lifecycle.api]}/listener/${event.eventType}`;
        const previous = this.queues.get(listener.id) ?? Promise.resolve();
        const next = previous.then(() => this.send(url, body));
        this.queues.set(listener.id, next);
      }
    }
  }

  private async send(url: string, body: unknown): Promise<void> {
    if (this.abort.signal.aborted) return;
    let status = 0;
    try {
      const response = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/json;charset=utf-8' },
        body: JSON.stringify(body),
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(5_000)]),
      });
      await response.body?.cancel();
      status = response.status;
    } catch {
      // An unreachable or slow listener is the buyer's problem: recorded as status 0, never retried.
    }
    if (this.record) this.sent.push({ url, body, status });
  }

  /** Waits for every queued notification (tests read `sent` after it). */
  async settled(): Promise<void> {
    await Promise.all(this.queues.values());
  }

  /** Aborts notifications in flight and drops the queues. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.settled();
  }
}
