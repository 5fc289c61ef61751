import { z } from 'zod';

/*
 * The buyer side of MEF 123 Product Order Notification 10.0.0 (productOrderNotification.api.yaml): which
 * events the buyer listens to, where the seller sends them, and what one says. Events carry ids only (MEF 123
 * §6.16: "The Buyer needs to query it later by id to get details").
 */

/** The notification API's base path (its `servers`), which the seller appends to the registered callback. */
export const ORDER_NOTIFICATION_BASE_PATH = '/mefApi/sonata/productOrderingNotification/v10';

/** MEF 123 `ProductOrderEventType`: about an order (`event.id`) or one of its items (`event.orderItemId`). */
export const productOrderEventTypes = [
  'productOrderStateChangeEvent',
  'productOrderItemStateChangeEvent',
  'productOrderItemExpectedCompletionDateSet',
  'productSpecificProductOrderItemMilestoneEvent',
] as const;
/** MEF 123 `ChargeEventType`: about a Charge (`event.id`). */
export const chargeEventTypes = [
  'chargeCreateEvent',
  'chargeStateChangeEvent',
  'chargeTimeoutEvent',
] as const;

/** MEF 123 `CancelProductOrderEventType`: about a Cancel Product Order (`event.id`). */
export const cancelProductOrderEventTypes = ['cancelProductOrderStateChangeEvent'] as const;

/**
 * The event types the buyer registers for (`EventSubscriptionInput.query`): every order and item event, every
 * Charge event — `chargeCreateEvent` is required of the buyer (MEF 123 R103, R87) — and the Cancel Product
 * Order event. Delivery-date-change events are left out: the gateway sends no such request.
 */
export const orderEventTypes = [
  ...productOrderEventTypes,
  ...chargeEventTypes,
  ...cancelProductOrderEventTypes,
] as const;
/** An event type the buyer listens to. */
export type OrderEventType = (typeof orderEventTypes)[number];

/** The `query` of the order hub registration (MEF 123 R101: `eventType` is what a seller must support). */
export const ORDER_HUB_QUERY = `eventType=${orderEventTypes.join(',')}`;

const text = z.string().min(1).max(500);

/**
 * MEF 123 `ProductOrderEvent` / `ChargeEvent` / `CancelProductOrderEvent` (with their `Event` base); unknown
 * members are ignored.
 */
const eventSchema = z.object({
  eventId: text,
  eventTime: z.iso.datetime({ offset: true }),
  eventType: z.enum(orderEventTypes),
  event: z.object({
    id: text,
    href: z.string().max(2000).optional(),
    orderItemId: text.optional(),
    milestoneName: text.optional(),
    buyerId: text.optional(),
    sellerId: text.optional(),
  }),
});

/** One order notification, as the buyer acts on it. */
export interface SonataOrderEvent {
  /** `eventId`: a redelivered event has the same one. */
  eventId: string;
  /** `eventTime` (ISO 8601). */
  eventTime: string;
  eventType: OrderEventType;
  /**
   * `event.id` of an order or item event; null for a Charge or Cancel Product Order event, which names only
   * the Charge or the cancellation (their order is learnt by reading them).
   */
  orderId: string | null;
  /** `event.orderItemId` of an item event (MEF 123 R106); null otherwise. */
  itemId: string | null;
  /** `event.id` of a Charge event; null otherwise. */
  chargeId: string | null;
  /** `event.id` of a Cancel Product Order event (`cancelProductOrderStateChangeEvent`); null otherwise. */
  cancellationId: string | null;
  /** `event.milestoneName` of a milestone event (CR7); null otherwise. */
  milestoneName: string | null;
  /** `event.buyerId` / `event.sellerId`, when the seller names them (MEF 79 Sn 8.8). */
  buyerId: string | null;
  sellerId: string | null;
}

/** The outcome of {@link parseOrderEvent}: the event, or why the body is not one. */
export type OrderEventParse = { ok: true; event: SonataOrderEvent } | { ok: false; message: string };

/**
 * Reads a notification body as a MEF 123 `ProductOrderEvent`, `ChargeEvent` or `CancelProductOrderEvent` of
 * a type the buyer listens to ({@link orderEventTypes}).
 *
 * @param listenerEventType the event type of the listener path it was sent to (see
 *   {@link orderListenerEventType}); the body's `eventType` must be the same.
 * @returns `ok: false` with a message naming the first problem (for a `400 invalidBody`); never throws.
 */
export function parseOrderEvent(body: unknown, listenerEventType?: OrderEventType): OrderEventParse {
  const parsed = eventSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      message: `The event does not match the Product Order notification Event at /${issue?.path.join('/') ?? ''}.`,
    };
  }
  const { eventId, eventTime, eventType, event } = parsed.data;
  if (listenerEventType !== undefined && eventType !== listenerEventType) {
    return { ok: false, message: `A ${eventType} was sent to the ${listenerEventType} listener.` };
  }
  const aboutCharge = (chargeEventTypes as readonly string[]).includes(eventType);
  const aboutCancel = (cancelProductOrderEventTypes as readonly string[]).includes(eventType);
  const aboutItem = eventType !== 'productOrderStateChangeEvent' && !aboutCharge && !aboutCancel;
  if (aboutItem && event.orderItemId === undefined) {
    return { ok: false, message: `A ${eventType} must name its orderItemId (MEF 123 R106).` };
  }
  return {
    ok: true,
    event: {
      eventId,
      eventTime,
      eventType,
      orderId: aboutCharge || aboutCancel ? null : event.id,
      itemId: aboutItem ? (event.orderItemId ?? null) : null,
      chargeId: aboutCharge ? event.id : null,
      cancellationId: aboutCancel ? event.id : null,
      milestoneName: event.milestoneName ?? null,
      buyerId: event.buyerId ?? null,
      sellerId: event.sellerId ?? null,
    },
  };
}

/**
 * The event type of a listener path (`…/mefApi/sonata/productOrderingNotification/v10/listener/<type>`, what
 * the seller appends to the callback), or null when the path is no listener of an {@link orderEventTypes} type.
 */
export function orderListenerEventType(path: string): OrderEventType | null {
  const prefix = `${ORDER_NOTIFICATION_BASE_PATH}/listener/`;
  const at = path.indexOf(prefix);
  if (at < 0) return null;
  const type = path.slice(at + prefix.length).replace(/\/+$/, '');
  return (orderEventTypes as readonly string[]).includes(type) ? (type as OrderEventType) : null;
}
