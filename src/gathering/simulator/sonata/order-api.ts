import { randomUUID } from 'node:crypto';
import type { SellerState } from './api.js';
import { answerCancelCall, followCancellation } from './cancel-api.js';
import { error5xx, error404, error422, error429, type SellerAnswer } from './errors.js';
import { deliveredProduct } from './inventory.js';
import type { OrderKnobs } from './knobs.js';
import type { SellerContext } from './lifecycle.js';
import { createOrder, type OrderLifecycle } from './order.js';
import { chargeUpdateSchema, productOrderCreateSchema } from './order-requests.js';
import { type OrderLookups, orderProblems, type QuotedItem } from './order-rules.js';
import { type ApiCall, answerHubCall, type CallScope, callScope, listAnswer, parsed } from './routing.js';

type Json = Record<string, unknown>;

/** What the knobs of a call decide for an order and its cancellation (knobs.ts `orderKnobs`). */
export interface OrderCallOptions extends OrderKnobs {
  retryAfter: string | null;
}

/** `ProductOrder_Find` filters of `GET /productOrder` these sellers apply (MEF 123 O9), by query name. */
const ORDER_FILTERS: Record<string, (find: Json, value: string) => boolean> = {
  state: (find, value) => find.state === value,
  externalId: (find, value) => find.externalId === value,
  projectId: (find, value) => find.projectId === value,
  'orderDate.gt': (find, value) => Date.parse(String(find.orderDate)) > Date.parse(value),
  'orderDate.lt': (find, value) => Date.parse(String(find.orderDate)) < Date.parse(value),
  'completionDate.gt': (find, value) =>
    find.completionDate !== undefined && Date.parse(String(find.completionDate)) > Date.parse(value),
  'completionDate.lt': (find, value) =>
    find.completionDate !== undefined && Date.parse(String(find.completionDate)) < Date.parse(value),
};
/** `MEFProductOrderCharge_Find` filters of `GET /charge` (MEF 123 O17), by query name. */
const CHARGE_FILTERS: Record<string, (charge: Json, value: string) => boolean> = {
  state: (charge, value) => charge.state === value,
  productOrderId: (charge, value) =>
    ((charge.productOrderItem ?? charge.productOrder) as Json).productOrderId === value,
  productOrderItemId: (charge, value) =>
    (charge.productOrderItem as Json | undefined)?.productOrderItemId === value,
};

/**
 * Answers one authenticated call to a seller's Product Order Management 10.0.0 API: `POST /productOrder`
 * (`createProductOrder`: `400`, `422` or `201`, order.ts), `GET /productOrder` (filters of MEF 123 O9:
 * `state`, `externalId`, `projectId`, `orderDate.gt/lt`, `completionDate.gt/lt`; `offset`/`limit`),
 * `GET /productOrder/{id}`, `GET /charge` (`productOrderId`, `productOrderItemId`, `state`; the status of
 * `charge_list=` instead when the knob is set),
 * `GET /charge/{id}`, `PATCH /charge/{id}` (the buyer's answer: `200`, `400` for an incomplete answer (R94,
 * R95), `409 conflict` for a Charge already answered or past its `responseDueDate`), `/cancelProductOrder`
 * (cancel-api.ts) and `/hub` (routing.ts). Everything is scoped by `buyerId` / `sellerId` as for POQs and Quotes; a `notify` seller
 * throttles `GET /productOrder/{id}` polling while the buyer has an order listener, as it does for the others.
 */
export function answerOrderCall(
  state: SellerState,
  context: SellerContext,
  call: ApiCall & { api: 'order' },
  options: OrderCallOptions,
): { answer: SellerAnswer; after?: () => void } {
  const scope = callScope(context, call.query);
  if ('status' in scope) return { answer: scope };
  const segments = call.path.split('/').slice(1);
  const [resource, id, extra] = segments;
  const mine = (order: OrderLifecycle | undefined) =>
    order && order.sellerKey === scope.sellerKey && order.buyerId === scope.buyerId ? order : undefined;
  const orders = () =>
    [...state.lifecycles.values()].filter(
      (lifecycle): lifecycle is OrderLifecycle =>
        lifecycle.api === 'order' && mine(lifecycle as OrderLifecycle) !== undefined,
    );
  const notFound = { answer: error404(`No operation ${call.method} ${call.path}.`) };
  if (resource === 'hub')
    return { answer: answerHubCall(state.hub, context, call, scope, segments.slice(1)) };
  if (extra !== undefined) return notFound;
  if (resource === 'cancelProductOrder') {
    const byId = (key: string) => state.lifecycles.get(key);
    const buyerOrders = {
      all: orders,
      mine: (key: string) => (byId(key)?.api === 'order' ? mine(byId(key) as OrderLifecycle) : undefined),
    };
    return answerCancelCall(state, context, call, id, buyerOrders, options);
  }

  if (resource === 'productOrder') {
    if (call.method === 'POST' && id === undefined) return create(state, context, call, scope, options);
    if (call.method === 'GET' && id === undefined)
      return {
        answer: listAnswer(
          orders().map((order) => order.find()),
          ORDER_FILTERS,
          call.query,
        ),
      };
    if (call.method !== 'GET' || id === undefined) return notFound;
    const order = mine(state.lifecycles.get(id) as OrderLifecycle | undefined);
    if (order?.api !== 'order') return { answer: error404(`No productOrder ${id}.`) };
    const throttled =
      context.mode === 'notify' &&
      state.hub.listening(scope.sellerKey, 'order', scope.buyerId) &&
      !order.complete() &&
      order.unread === 0;
    if (throttled) {
      const seconds = Number(options.retryAfter ?? Math.max(1, Math.ceil(context.stepMs / 1000)));
      const text = 'You have a listener registered: read after notifications, do not poll.';
      return { answer: error429(text, seconds) };
    }
    order.unread = 0;
    return { answer: { status: 200, body: order.view() } };
  }

  if (resource === 'charge') {
    if (call.method === 'GET' && id === undefined) {
      // A seller that breaks MEF 123 CR3: it raises Charges but does not list them (`charge_list=`).
      if (options.chargeList === 404) return { answer: error404('This seller does not list charges.') };
      if (options.chargeList === 503) return { answer: error5xx(503, options.retryAfter) };
      const charges = orders().flatMap((order) =>
        [...order.charges.keys()].map((key) => order.chargeView(key)),
      );
      return { answer: listAnswer(charges.map(chargeFind), CHARGE_FILTERS, call.query) };
    }
    const order = id === undefined ? undefined : mine(state.charges.get(id));
    if (!order || id === undefined)
      return call.method === 'GET' || call.method === 'PATCH'
        ? { answer: error404(`No charge ${id}.`) }
        : notFound;
    if (call.method === 'GET') return { answer: { status: 200, body: order.chargeView(id) } };
    if (call.method !== 'PATCH') return notFound;
    const body = parsed(chargeUpdateSchema, call.body, 'MEFProductOrderCharge_Update');
    if ('answer' in body) return body;
    const { answer, events } = order.answerCharge(id, body.data, call.now);
    const href = orderHref(context, order.id);
    return {
      answer,
      after: () => {
        state.hub.publish(order, events, href);
        followCancellation(state, order, href, options.cancelStepMs);
      },
    };
  }
  return notFound;
}

function orderHref(context: SellerContext, id: string): string {
  return `${context.apiBase('order')}/productOrder/${id}`;
}

/** `MEFProductOrderCharge_Find` from a Charge (MEF 123 R98): an item's names the item, a cancellation's the order. */
function chargeFind(charge: Json): Json {
  const { id, productOrderItem, productOrder, state, creationDate, responseDueDate } = charge;
  return {
    id,
    ...(productOrderItem ? { productOrderItem } : { productOrder }),
    state,
    creationDate,
    responseDueDate,
  };
}

function create(
  state: SellerState,
  context: SellerContext,
  call: ApiCall,
  scope: CallScope,
  options: OrderCallOptions,
): { answer: SellerAnswer; after?: () => void } {
  const body = parsed(productOrderCreateSchema, call.body, 'ProductOrder_Create');
  if ('answer' in body) return body;
  const issued = (id: string, api: 'poq' | 'quote') => {
    const lifecycle = state.lifecycles.get(id);
    return lifecycle?.api === api &&
      lifecycle.sellerKey === scope.sellerKey &&
      lifecycle.buyerId === scope.buyerId
      ? lifecycle.view()
      : undefined;
  };
  const lookups: OrderLookups = {
    quotedItem: (quoteId, itemId): QuotedItem | null => {
      const quote = issued(quoteId, 'quote');
      const item = ((quote?.quoteItem ?? []) as Json[]).find((candidate) => candidate.id === itemId);
      if (!quote || !item) return null;
      const validFor = quote.validFor as { endDateTime?: string } | undefined;
      return { quoteId, quoteState: String(quote.state), validUntil: validFor?.endDateTime, item };
    },
    knownPoqItem: (poqId, itemId) =>
      ((issued(poqId, 'poq')?.productOfferingQualificationItem ?? []) as Json[]).some(
        (item) => item.id === itemId,
      ),
  };
  const problems = orderProblems(context, body.data, lookups, call.now);
  if (problems.length > 0) return { answer: error422(problems) };
  const id = randomUUID();
  const href = orderHref(context, id);
  const order: OrderLifecycle = createOrder(context, body.data, {
    id,
    buyerId: scope.buyerId,
    sellerId: scope.sellerId,
    now: call.now,
    outcome: options.outcome,
    holdItems: options.holdItems,
    itemCharges: options.itemCharges,
    chargeDueMs: options.chargeDueMs,
    quoted: body.data.productOrderItem.map((item) =>
      item.quoteItem ? lookups.quotedItem(item.quoteItem.quoteId, item.quoteItem.id) : null,
    ),
    newId: randomUUID,
    onCharge: (charge) => {
      state.charges.set(charge.id, order);
      const due = Date.parse(charge.responseDueDate) - Date.now();
      // One millisecond late: a timer may fire a little early, and the Charge expires only once past due.
      state.after(Math.max(0, due) + 1, () =>
        state.hub.publish(order, order.expireCharge(charge.id, new Date()), href),
      );
    },
    deliver: (item) => {
      const product = deliveredProduct(context, {
        id: item.productId,
        buyerId: scope.buyerId,
        order: { id, href, externalId: body.data.externalId },
        orderItemId: item.orderItemId,
        product: item.request.product ?? {},
        billingAccount: item.request.billingAccount,
        itemTerm: item.itemTerm,
        quotedPrices: (item.quoted?.item.quoteItemPrice ?? []) as Json[],
        completedAt: item.at,
      });
      state.products.set(product.id, product);
      return `${context.apiBase('inventory')}/product/${product.id}`;
    },
  });
  state.lifecycles.set(id, order);
  return {
    answer: { status: 201, body: order.view() },
    after: () => state.schedule(order, context.stepMs, href),
  };
}
