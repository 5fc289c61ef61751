import type { ChargeRecord } from './charge.js';
import { type ItemProblem, terminationError } from './errors.js';
import type { StateChange } from './lifecycle.js';
import type { ProductOrderCreateItem } from './order-requests.js';
import type { QuotedItem } from './order-rules.js';

type Json = Record<string, unknown>;

/** One item of a Product Order at the seller: the buyer's item, its quote, and what the seller did with it. */
export interface OrderItem {
  request: ProductOrderCreateItem;
  quoted: QuotedItem | null;
  state: string;
  stateChange: StateChange[];
  /** Whether it passed the site survey (its milestone). */
  surveyed: boolean;
  /** ISO 8601 date-times. */
  expectedCompletionDate?: string;
  completionDate?: string;
  milestone: { date: string; name: string; note: string }[];
  charges: string[];
  productId?: string;
  problem?: ItemProblem;
}

/**
 * An item as the seller shows it (`ProductOrderItem`): the buyer's item echoed (MEF 123 R16) with its state
 * and log; `expectedCompletionDate` once validated (R28/R46; dropped when it fails, R27); `completionDate`
 * once completed (R48/R49); the agreed `itemTerm` once validated; its `milestone`s (CR8<O19); its Charges;
 * its `terminationError` when rejected or failed (Table 11); the delivered `product.id` and `href` (R61).
 */
export function orderItemView(
  item: OrderItem,
  chargeHref: (id: string) => string,
  productHref: string | undefined,
): Json {
  const validated = item.state !== 'acknowledged' && !item.state.startsWith('rejected');
  return {
    ...item.request,
    ...(item.productId === undefined
      ? {}
      : { product: { ...item.request.product, id: item.productId, href: productHref } }),
    state: item.state,
    stateChange: item.stateChange,
    ...(item.expectedCompletionDate === undefined
      ? {}
      : { expectedCompletionDate: item.expectedCompletionDate }),
    ...(item.completionDate === undefined ? {} : { completionDate: item.completionDate }),
    ...(validated && item.request.requestedItemTerm ? { itemTerm: [item.request.requestedItemTerm] } : {}),
    ...(item.milestone.length > 0 ? { milestone: item.milestone } : {}),
    ...(item.charges.length > 0 ? { charge: item.charges.map((id) => ({ id, href: chargeHref(id) })) } : {}),
    ...(item.problem ? { terminationError: [terminationError(item.problem)] } : {}),
  };
}

/** R38: the term the item asks differs from its quote's (duration and end-of-term action). */
export function termProblem(item: OrderItem, index: number): ItemProblem | null {
  const quoted = (item.quoted?.item.quoteItemTerm as Json[] | undefined)?.[0];
  const requested = item.request.requestedItemTerm;
  if (!quoted || !requested) return null;
  const duration = quoted.duration as { amount: number; units: string };
  const same =
    duration.amount === requested.duration.amount &&
    duration.units === requested.duration.units &&
    quoted.endOfTermAction === requested.endOfTermAction;
  return same
    ? null
    : {
        code: 'invalidValue',
        propertyPath: `/productOrderItem/${index}/requestedItemTerm`,
        reason: `The term differs from the quoted ${duration.amount} ${duration.units}, ${String(quoted.endOfTermAction)} (MEF 123 R38).`,
      };
}

/** The termination error of an item failed on its Charge (declined or unanswered, MEF 123 §6.12, R96). */
export function declinedProblem(index: number, reason: string): ItemProblem {
  return { code: 'otherIssue', propertyPath: `/productOrderItem/${index}/charge`, reason };
}

/** The currency of a quoted item's prices (EUR when unpriced). */
export function currencyOf(quoted: QuotedItem | null): string {
  const prices = (quoted?.item.quoteItemPrice ?? []) as { price?: { dutyFreeAmount?: { unit?: string } } }[];
  return prices[0]?.price?.dutyFreeAmount?.unit ?? 'EUR';
}

/**
 * The ids of an item's completed Charges with accepted items: what MEF 123 `ProductOrderItem.charge` lists
 * ("all completed Charges containing accepted Charge Items"; the `item_charges=accepted` knob).
 */
export function acceptedCharges(item: OrderItem, charges: ReadonlyMap<string, ChargeRecord>): string[] {
  return item.charges.filter((id) => {
    const charge = charges.get(id);
    return charge?.state === 'completed' && charge.items.some((each) => each.state === 'acceptedByBuyer');
  });
}
