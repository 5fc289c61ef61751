import { randomUUID } from 'node:crypto';
import type { SellerState } from './api.js';
import { CANCEL_CONTACT_ROLE, type CancelOutcome } from './cancel.js';
import { error404, error422, type ItemProblem, type SellerAnswer } from './errors.js';
import type { SellerContext } from './lifecycle.js';
import type { OrderLifecycle } from './order.js';
import { type CancelProductOrderCreate, cancelProductOrderCreateSchema } from './order-requests.js';
import { type ApiCall, listAnswer, parsed } from './routing.js';

type Json = Record<string, unknown>;

/** What the knobs of a call decide for a Cancel Product Order (knobs.ts `orderKnobs`). */
export interface CancelKnobs {
  cancel: CancelOutcome;
  /** Milliseconds from a cancellation Charge's creation to its `responseDueDate`. */
  chargeDueMs: number;
  /** Milliseconds between a cancellation's steps. */
  cancelStepMs: number;
}

/** The orders of the calling buyer at the called seller (order-api.ts). */
export interface BuyerOrders {
  all(): OrderLifecycle[];
  /** The order, when it is one of the buyer's at this seller; else undefined. */
  mine(id: string): OrderLifecycle | undefined;
}

/** `CancelProductOrder_Find` filters of `GET /cancelProductOrder` (MEF 123 O13), by query name. */
const CANCEL_FILTERS: Record<string, (find: Json, value: string) => boolean> = {
  productOrderId: (find, value) => (find.productOrder as Json).productOrderId === value,
  state: (find, value) => find.state === value,
  cancellationReasonType: (find, value) => find.cancellationReasonType === value,
};

/** Orders whose cancellation steps are being taken (one chain of timers per order). */
const following = new WeakSet<OrderLifecycle>();

/**
 * Takes `order`'s cancellation steps every `stepMs` while one is due (cancel.ts `OrderCancellations.due`),
 * publishing each step's events; a chain already running for the order is left to go on. Called after a
 * cancellation is taken, and after a cancellation Charge is answered (order-api.ts).
 */
export function followCancellation(state: SellerState, order: OrderLifecycle, href: string, stepMs: number) {
  if (following.has(order) || !order.cancellations.due()) return;
  following.add(order);
  const step = () =>
    state.after(stepMs, () => {
      state.hub.publish(order, order.cancellations.step(new Date()), href);
      if (order.cancellations.due()) step();
      else following.delete(order);
    });
  step();
}

/**
 * Answers the Cancel Product Order operations of Product Order Management 10.0.0 (MEF 123 UC 8–10):
 *
 * - `POST /cancelProductOrder` (`createCancelProductOrder`): a body that breaks `CancelProductOrder_Create`
 *   is `400 invalidBody`; then `422` (a list of `Error422`; the operation has no `404`) for a request without
 *   a `cancelProductOrderContact` (R74, `missingProperty`), without a `cancellationReasonType` (these sellers
 *   need it: `CancelProductOrder_Find` requires it, `missingProperty`), naming no order of this buyer at this
 *   seller (`referenceNotFound`), or an order that ended or is being cancelled already (`invalidValue`);
 *   else `201` with the `CancelProductOrder` (cancel.ts), its steps taken every `cancel_step_ms`.
 * - `GET /cancelProductOrder`: the buyer's `CancelProductOrder_Find`s, filtered by `productOrderId`, `state`
 *   and `cancellationReasonType`, paged by `offset`/`limit` with `X-Total-Count` (R77, R78).
 * - `GET /cancelProductOrder/{id}`: the `CancelProductOrder` (R79); `404` when it is not the buyer's.
 */
export function answerCancelCall(
  state: SellerState,
  context: SellerContext,
  call: ApiCall,
  id: string | undefined,
  orders: BuyerOrders,
  knobs: CancelKnobs,
): { answer: SellerAnswer; after?: () => void } {
  if (call.method === 'GET' && id === undefined) {
    const finds = orders.all().flatMap((order) => order.cancellations.finds());
    return { answer: listAnswer(finds, CANCEL_FILTERS, call.query) };
  }
  if (call.method === 'GET' && id !== undefined) {
    const order = state.cancellations.get(id);
    const mine = order && orders.mine(order.id) === order ? order : undefined;
    if (!mine) return { answer: error404(`No cancelProductOrder ${id}.`) };
    return { answer: { status: 200, body: mine.cancellations.view(id) } };
  }
  if (call.method !== 'POST' || id !== undefined)
    return { answer: error404(`No operation ${call.method} ${call.path}.`) };

  const body = parsed(cancelProductOrderCreateSchema, call.body, 'CancelProductOrder_Create');
  if ('answer' in body) return body;
  const order = orders.mine(body.data.productOrder.productOrderId);
  const problems = cancelProblems(body.data, order);
  if (!order || problems.length > 0) return { answer: error422(problems) };
  const cancelId = randomUUID();
  const { cancel: outcome, chargeDueMs } = knobs;
  const events = order.cancellations.start(cancelId, body.data, { outcome, chargeDueMs }, call.now);
  state.cancellations.set(cancelId, order);
  const href = `${context.apiBase('order')}/productOrder/${order.id}`;
  return {
    answer: { status: 201, body: order.cancellations.view(cancelId) },
    after: () => {
      state.hub.publish(order, events, href);
      followCancellation(state, order, href, knobs.cancelStepMs);
    },
  };
}

/** The business problems of a Cancel Product Order request (answered `422`); empty when it can be taken. */
function cancelProblems(request: CancelProductOrderCreate, order: OrderLifecycle | undefined): ItemProblem[] {
  const problems: ItemProblem[] = [];
  if (!request.relatedContactInformation.some((contact) => contact.role === CANCEL_CONTACT_ROLE)) {
    problems.push({
      code: 'missingProperty',
      propertyPath: '/relatedContactInformation',
      reason: `A cancellation needs a contact with the role ${CANCEL_CONTACT_ROLE} (MEF 123 R74).`,
    });
  }
  if (request.cancellationReasonType === undefined) {
    problems.push({
      code: 'missingProperty',
      propertyPath: '/cancellationReasonType',
      reason: 'This seller needs to know whether the reason is technical or commercial.',
    });
  }
  const problem = order ? order.cancellations.problem() : null;
  if (!order) {
    problems.push({
      code: 'referenceNotFound',
      propertyPath: '/productOrder/productOrderId',
      reason: `No productOrder ${request.productOrder.productOrderId} of this buyer.`,
    });
  } else if (problem) problems.push(problem);
  return problems;
}
