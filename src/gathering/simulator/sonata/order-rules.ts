import type { ItemProblem } from './errors.js';
import { itemProblems } from './item-rules.js';
import type { SellerContext } from './lifecycle.js';
import type { ProductOrderCreate, ProductOrderCreateItem } from './order-requests.js';

type Json = Record<string, unknown>;

/** A quote item a buyer orders, as the seller issued it: its quote's id, state and validity, and the item. */
export interface QuotedItem {
  quoteId: string;
  quoteState: string;
  /** `validFor.endDateTime` of the quote (ISO 8601), when priced. */
  validUntil: string | undefined;
  /** The item as `GET /quote/{id}` shows it (`state`, `product`, `quoteItemTerm`, `quoteItemPrice`, …). */
  item: Json;
}

/** What the rules look up in what the seller issued to this buyer. */
export interface OrderLookups {
  quotedItem(quoteId: string, itemId: string): QuotedItem | null;
  knownPoqItem(poqId: string, itemId: string): boolean;
}

/** Item contact roles every order item must carry (MEF 123 R14). */
export const ITEM_CONTACT_ROLES = [
  'buyerProductOrderItemContact',
  'buyerImplementationContact',
  'buyerTechnicalContact',
] as const;
/** The order contact role an order must carry (MEF 123 R13). */
export const ORDER_CONTACT_ROLE = 'productOrderContact';

const ORDERABLE = ['approved.orderable', 'approved.orderableAlternate'];

const missing = (propertyPath: string, reason: string): ItemProblem => ({
  code: 'missingProperty',
  propertyPath,
  reason,
});

/**
 * The business rules a seller checks when an order arrives, answered `422` (a list of `Error422`) when
 * broken; empty when the order can be acknowledged. The order needs a `productOrderContact` (MEF 123 R13) and
 * unique item ids. Each item must: add a product (these sellers sell new connections only) of one of the
 * seller's offerings with a readable MEF 139 configuration and an install place (R30, R32, item-rules.ts);
 * not name a `product.id` (R36); carry a `requestedCompletionDate` and the three buyer contacts (R14), a
 * `billingAccount` (R33), a `requestedItemTerm` (R34) with a `rollInterval` when it rolls (R35); and name,
 * in `quoteItem`, an orderable item of a valid quote this seller gave this buyer for the same offering —
 * these sellers require a quote before an order (O5, CR6<O5). A `productOfferingQualificationItem`, when
 * given, must name a POQ item the seller answered. A term that differs from the quoted one is not refused
 * here: the order is acknowledged and the item then `rejected` (R38, order.ts).
 */
export function orderProblems(
  context: SellerContext,
  body: ProductOrderCreate,
  lookups: OrderLookups,
  now: Date,
): ItemProblem[] {
  const problems: ItemProblem[] = [];
  if (!body.relatedContactInformation.some((contact) => contact.role === ORDER_CONTACT_ROLE)) {
    problems.push(
      missing('/relatedContactInformation', `A ${ORDER_CONTACT_ROLE} contact is required (MEF 123 R13).`),
    );
  }
  const ids = body.productOrderItem.map((item) => item.id);
  body.productOrderItem.forEach((item, index) => {
    const pointer = `/productOrderItem/${index}`;
    if (ids.indexOf(item.id) !== index) {
      problems.push({
        code: 'invalidValue',
        propertyPath: `${pointer}/id`,
        reason: `Item id ${item.id} is used twice.`,
      });
    }
    const general = itemProblems(context, item, pointer);
    problems.push(...general);
    if (item.action !== 'add') return;
    problems.push(...addProblems(item, pointer));
    problems.push(...quoteProblems(item, pointer, lookups, now));
  });
  return problems;
}

/** R14, R33–R36 of an `add` item. */
function addProblems(item: ProductOrderCreateItem, pointer: string): ItemProblem[] {
  const problems: ItemProblem[] = [];
  if (item.product?.id !== undefined) {
    problems.push({
      code: 'unexpectedProperty',
      propertyPath: `${pointer}/product/id`,
      reason: 'The seller assigns the product id of a new product (MEF 123 R36).',
    });
  }
  if (item.requestedCompletionDate === undefined) {
    problems.push(
      missing(`${pointer}/requestedCompletionDate`, 'requestedCompletionDate is required (MEF 123 R14).'),
    );
  }
  const roles = new Set((item.relatedContactInformation ?? []).map((contact) => contact.role));
  const absent = ITEM_CONTACT_ROLES.filter((role) => !roles.has(role));
  if (absent.length > 0) {
    problems.push(
      missing(
        `${pointer}/relatedContactInformation`,
        `Contacts with the roles ${absent.join(', ')} are required (MEF 123 R14).`,
      ),
    );
  }
  if (item.billingAccount === undefined) {
    problems.push(missing(`${pointer}/billingAccount`, 'A billingAccount is required (MEF 123 R33).'));
  }
  const term = item.requestedItemTerm;
  if (term === undefined) {
    problems.push(missing(`${pointer}/requestedItemTerm`, 'A requestedItemTerm is required (MEF 123 R34).'));
  } else if (term.endOfTermAction === 'roll' && term.rollInterval === undefined) {
    problems.push(
      missing(
        `${pointer}/requestedItemTerm/rollInterval`,
        'A rolling term needs its rollInterval (MEF 123 R35).',
      ),
    );
  }
  return problems;
}

/** CR6<O5 and the references of an `add` item. */
function quoteProblems(
  item: ProductOrderCreateItem,
  pointer: string,
  lookups: OrderLookups,
  now: Date,
): ItemProblem[] {
  const problems: ItemProblem[] = [];
  const poq = item.productOfferingQualificationItem;
  if (poq && !lookups.knownPoqItem(poq.productOfferingQualificationId, poq.id)) {
    problems.push({
      code: 'referenceNotFound',
      propertyPath: `${pointer}/productOfferingQualificationItem`,
      reason: `No item ${poq.id} in POQ ${poq.productOfferingQualificationId}.`,
    });
  }
  const reference = item.quoteItem;
  if (!reference) {
    problems.push(
      missing(`${pointer}/quoteItem`, 'This seller requires a quote before an order (MEF 123 CR6<O5).'),
    );
    return problems;
  }
  const quoted = lookups.quotedItem(reference.quoteId, reference.id);
  if (!quoted) {
    problems.push({
      code: 'referenceNotFound',
      propertyPath: `${pointer}/quoteItem`,
      reason: `No item ${reference.id} in a quote ${reference.quoteId} of this seller.`,
    });
    return problems;
  }
  if (!ORDERABLE.includes(String(quoted.item.state))) {
    problems.push({
      code: 'invalidValue',
      propertyPath: `${pointer}/quoteItem`,
      reason: `Quote item ${reference.id} is ${String(quoted.item.state)}, not orderable.`,
    });
  } else if (quoted.validUntil !== undefined && Date.parse(quoted.validUntil) < now.getTime()) {
    problems.push({
      code: 'invalidValue',
      propertyPath: `${pointer}/quoteItem`,
      reason: `Quote ${reference.quoteId} expired at ${quoted.validUntil}.`,
    });
  }
  const quotedOffering = ((quoted.item.product as Json | undefined)?.productOffering as Json | undefined)?.id;
  const offering = item.product?.productOffering?.id;
  if (offering !== undefined && quotedOffering !== undefined && offering !== quotedOffering) {
    problems.push({
      code: 'invalidValue',
      propertyPath: `${pointer}/product/productOffering/id`,
      reason: `Quote item ${reference.id} is for ${String(quotedOffering)}, not ${offering}.`,
    });
  }
  return problems;
}
