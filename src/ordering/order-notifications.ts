import type { SonataNotificationInbox } from '../gathering/sources/mef-sonata/inbox.js';
import {
  eventBody,
  invalidBody,
  listenerPath,
  NotificationAnswer,
  noListener,
  type SonataNotificationRequest,
  type SonataNotificationResponse,
} from '../gathering/sources/mef-sonata/notification-handler.js';
import {
  ORDER_NOTIFICATION_BASE_PATH,
  orderListenerEventType,
  parseOrderEvent,
  type SonataOrderEvent,
} from './mef-sonata/order-events.js';

/** Whether a callback path (after the source id: `/<token>/mefApi/…`) is one of the order listeners'. */
export function isOrderNotificationPath(path: string): boolean {
  return path.includes(`${ORDER_NOTIFICATION_BASE_PATH}/`);
}

/**
 * Answers a seller's Product Order notification (MEF 123 Product Order Notification 10.0.0) at the gateway's
 * callback route, as the document defines: `401` for a missing or wrong token (the HMAC of the source id,
 * as for POQ and Quote), `404` for no listener of that event type, `400` for a body that is not its
 * `ProductOrderEvent` / `ChargeEvent` or names another buyer or seller, `204` otherwise. An accepted event
 * is handed to `accept` — which only makes the source's supplier orders due (`hurrySupplierOrders`), so an
 * event delivered twice changes nothing but one more read.
 */
export function handleOrderNotification(
  inbox: SonataNotificationInbox,
  request: SonataNotificationRequest,
  accept: (sourceId: string, event: SonataOrderEvent) => void,
): SonataNotificationResponse {
  const rest = listenerPath(inbox, request);
  if (typeof rest !== 'string') return rest;
  const eventType = rest.startsWith(`${ORDER_NOTIFICATION_BASE_PATH}/listener/`)
    ? orderListenerEventType(rest)
    : null;
  if (!eventType) return noListener;
  const body = eventBody(request);
  if (body instanceof NotificationAnswer) return body.response;
  const parsed = parseOrderEvent(body, eventType);
  if (!parsed.ok) return invalidBody(parsed.message);
  const { event } = parsed;
  const ids = {
    ...(event.buyerId ? { buyerId: event.buyerId } : {}),
    ...(event.sellerId ? { sellerId: event.sellerId } : {}),
  };
  if (!inbox.idsFit(request.sourceId, ids)) {
    return invalidBody('The event names another buyerId or sellerId than the source registered with.');
  }
  accept(request.sourceId, event);
  return { status: 204, body: null };
}
