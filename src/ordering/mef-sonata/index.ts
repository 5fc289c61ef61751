/*
 * Ordering from a MEF LSO Sonata seller as its buyer: MEF 123 Product Order Management 10.0.0 (the order,
 * its cancellations, its Charges, its notifications) and MEF 116 Product Inventory 7.0.2, on the
 * `mef-sonata` source's client.
 */

export {
  type CancellationFound,
  cancellationStates,
  parseSonataCancellation,
  parseSonataCancellationList,
  type SonataCancellationState,
  type SonataCancellationView,
} from './cancel-answers.js';
export {
  CANCEL_CONTACT_ROLE,
  type CancellationReasonType,
  cancellationReasonTypes,
  cancelProductOrderBody,
  type SonataCancellationToSend,
} from './cancel-request.js';
export {
  chargeItemStates,
  chargeStates,
  type ProductOrderItemState,
  type ProductOrderState,
  parseSonataCharge,
  parseSonataOrder,
  parseSonataProduct,
  productOrderItemStates,
  productOrderStates,
  productStatuses,
  type SonataChargeItemView,
  type SonataChargeView,
  type SonataOrderItemView,
  type SonataOrderView,
  type SonataProductView,
} from './order-answers.js';
export {
  cancelProductOrderEventTypes,
  chargeEventTypes,
  ORDER_HUB_QUERY,
  ORDER_NOTIFICATION_BASE_PATH,
  type OrderEventParse,
  type OrderEventType,
  orderEventTypes,
  orderListenerEventType,
  parseOrderEvent,
  productOrderEventTypes,
  type SonataOrderEvent,
} from './order-events.js';
export {
  ORDER_CONTACT_ROLE,
  ORDER_ITEM_CONTACT_ROLES,
  productOrderCreateBody,
  requestedItemTerm,
  type SonataOrderContact,
  type SupplierOrderToPlace,
  sonataBillingAccountId,
  sonataOrderContact,
} from './order-request.js';
export { lineStatusOf, orderStatusOf } from './order-states.js';
export { SonataOrdering } from './ordering-client.js';
