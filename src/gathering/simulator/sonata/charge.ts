import type { ItemProblem } from './errors.js';
import type { ChargeUpdate } from './order-requests.js';

/** `MEFProductOrderChargeStateType` (they withdraw a Charge only of an item a cancellation ended). */
export type ChargeState = 'awaitingResponse' | 'completed' | 'timeout' | 'withdrawnBySeller';
/** `MEFProductOrderChargeItemStateType`. */
export type ChargeItemState =
  | 'awaitingResponse'
  | 'acceptedByBuyer'
  | 'declinedByBuyer'
  | 'withdrawnBySeller';

/** One item of a Charge (`MEFProductOrderChargeItem`) and the buyer's answer to it. */
export interface ChargeItemRecord {
  id: string;
  state: ChargeItemState;
  blocking: boolean;
  /** The body of the item as the seller states it (`activityType`, `priceType`, `priceCategory`, `price`, …). */
  terms: Record<string, unknown>;
  acceptanceIndicator?: 'accepted' | 'rejected';
  /** Notes the buyer appended (MEF 123 O16). */
  note: unknown[];
}

/**
 * A Charge the seller initiated: for one Product Order Item (MEF 123 UC 11a, `orderItemId`) or for the order
 * because of a Cancel Product Order (UC 11c, `cancelId`, R89/R91). The ids of its order and item or
 * cancellation, when it was created and when the buyer must have answered, its state and its items.
 */
export interface ChargeRecord {
  id: string;
  orderId: string;
  orderItemId?: string;
  cancelId?: string;
  /** ISO 8601 date-times. */
  creationDate: string;
  responseDueDate: string;
  state: ChargeState;
  items: ChargeItemRecord[];
}

/** The Netherlands' VAT rate, for `Price.taxRate`: charges are stated before tax. */
const TAX_RATE = 21;

/** A Charge of one blocking one-off (`nonRecurring`, MEF 123 R92/R93) item stated before tax. */
function blockingOneOff(
  ids: { id: string; orderId: string; orderItemId?: string; cancelId?: string },
  item: { priceCategory: string; description: string; value: number; currency: string },
  now: Date,
  due: Date,
): ChargeRecord {
  const { value, currency } = item;
  return {
    ...ids,
    creationDate: now.toISOString(),
    responseDueDate: due.toISOString(),
    state: 'awaitingResponse',
    items: [
      {
        id: '1',
        state: 'awaitingResponse',
        blocking: true,
        note: [],
        terms: {
          activityType: 'new',
          priceType: 'nonRecurring',
          priceCategory: item.priceCategory,
          description: item.description,
          price: {
            dutyFreeAmount: { unit: currency, value },
            taxRate: TAX_RATE,
            taxIncludedAmount: { unit: currency, value: Math.round(value * (100 + TAX_RATE)) / 100 },
          },
        },
      },
    ],
  };
}

/**
 * The one blocking charge a `order=hold-charge` seller raises per item: a one-off construction charge
 * (`nonRecurring`, `construction`, MEF 123 R92/R93) of 750 in the quote's currency, found at the site survey.
 * @param due when the buyer must have answered (`responseDueDate`).
 */
export function constructionCharge(
  ids: { id: string; orderId: string; orderItemId: string },
  currency: string,
  now: Date,
  due: Date,
): ChargeRecord {
  const description =
    'The site survey found that the last-mile connection must be built: a one-off construction charge.';
  return blockingOneOff(ids, { priceCategory: 'construction', description, value: 750, currency }, now, due);
}

/**
 * The charge a `cancel=charge` seller raises for cancelling an order (MEF 123 UC 11c): one blocking one-off
 * cancellation charge (`nonRecurring`, `cancellation`) of 500 in the quote's currency, for the order as a
 * whole (R89) and naming its Cancel Product Order (R91).
 * @param due when the buyer must have answered (`responseDueDate`).
 */
export function cancellationCharge(
  ids: { id: string; orderId: string; cancelId: string },
  currency: string,
  now: Date,
  due: Date,
): ChargeRecord {
  const description = 'Work on the order has started: cancelling it costs a one-off cancellation charge.';
  return blockingOneOff(ids, { priceCategory: 'cancellation', description, value: 500, currency }, now, due);
}

/**
 * A Charge as the seller shows it (`MEFProductOrderCharge`, MEF 123 R88/R100): `productOrderItem` names the
 * order item of an item's Charge (the document's `MEFProductOrderItemRef`; the developer guide's example
 * flattens it, the YAML wins); a cancellation's Charge names the order (`productOrder`, R89) and its
 * `cancelProductOrder` (R91) instead.
 */
export function chargeView(
  charge: ChargeRecord,
  hrefs: { charge: string; order: string; cancel?: string },
): Record<string, unknown> {
  const subject =
    charge.orderItemId === undefined
      ? {
          productOrder: { productOrderId: charge.orderId, productOrderHref: hrefs.order },
          ...(charge.cancelId === undefined
            ? {}
            : { cancelProductOrder: { id: charge.cancelId, href: hrefs.cancel } }),
        }
      : {
          productOrderItem: {
            productOrderId: charge.orderId,
            productOrderItemId: charge.orderItemId,
            productOrderHref: hrefs.order,
          },
        };
  return {
    id: charge.id,
    href: hrefs.charge,
    creationDate: charge.creationDate,
    responseDueDate: charge.responseDueDate,
    state: charge.state,
    ...subject,
    chargeItem: charge.items.map((item) => ({
      id: item.id,
      ...item.terms,
      blocking: item.blocking,
      state: item.state,
      ...(item.acceptanceIndicator ? { acceptanceIndicator: item.acceptanceIndicator } : {}),
      ...(item.note.length > 0 ? { note: item.note } : {}),
    })),
  };
}

/**
 * Checks the buyer's answer against the Charge: every Charge Item answered, at once, and nothing else
 * (MEF 123 R94, R95). Returns the problem, or null when the answer can be applied.
 */
export function answerProblem(charge: ChargeRecord, update: ChargeUpdate): ItemProblem | null {
  const ids = update.chargeItem.map((item) => item.id);
  const known = new Set(charge.items.map((item) => item.id));
  const unknown = ids.findIndex((id) => !known.has(id));
  if (unknown >= 0) {
    return {
      code: 'referenceNotFound',
      propertyPath: `/chargeItem/${unknown}/id`,
      reason: `The charge has no item ${ids[unknown]}.`,
    };
  }
  const missing = charge.items.find((item) => !ids.includes(item.id));
  if (missing || new Set(ids).size !== ids.length) {
    return {
      code: 'missingProperty',
      propertyPath: '/chargeItem',
      reason: 'Answer every charge item exactly once, in one request (MEF 123 R94, R95).',
    };
  }
  return null;
}

/**
 * Applies an answer checked by {@link answerProblem}: each item `acceptedByBuyer` or `declinedByBuyer` with the
 * buyer's `acceptanceIndicator` and notes, the Charge `completed` (MEF 123 §6.12).
 * @returns whether a blocking item was declined (the order item then fails, the cancellation is declined).
 */
export function applyAnswer(charge: ChargeRecord, update: ChargeUpdate): boolean {
  for (const answer of update.chargeItem) {
    const item = charge.items.find((candidate) => candidate.id === answer.id);
    if (!item) continue;
    item.acceptanceIndicator = answer.acceptanceIndicator;
    item.state = answer.acceptanceIndicator === 'accepted' ? 'acceptedByBuyer' : 'declinedByBuyer';
    item.note.push(...(answer.note ?? []));
  }
  charge.state = 'completed';
  return charge.items.some((item) => item.blocking && item.state === 'declinedByBuyer');
}

/** A Charge left unanswered past its `responseDueDate`: every item `declinedByBuyer`, the Charge `timeout` (MEF 123 R96). */
export function expire(charge: ChargeRecord): void {
  for (const item of charge.items) item.state = 'declinedByBuyer';
  charge.state = 'timeout';
}

/**
 * A Charge the seller no longer asks for, its item having been cancelled: every item and the Charge
 * `withdrawnBySeller` (MEF 123 `MEFProductOrderChargeStateType`).
 */
export function withdraw(charge: ChargeRecord): void {
  for (const item of charge.items) item.state = 'withdrawnBySeller';
  charge.state = 'withdrawnBySeller';
}

/** Why a Charge that no longer awaits the buyer cannot be answered (the reason of the `409 conflict`). */
export function closedReason(charge: ChargeRecord): string {
  if (charge.state === 'timeout')
    return `The charge's responseDueDate ${charge.responseDueDate} has passed: its items count as declined (MEF 123 R96).`;
  return charge.state === 'withdrawnBySeller'
    ? 'The seller withdrew the charge: the order item was cancelled.'
    : 'The charge was answered already.';
}
