import type { SonataItemTerm, SonataOrderTerms } from '../../db/contract/order-terms.js';
import type { SonataSourceSettings } from '../../gathering/sources/mef-sonata/settings.js';

/*
 * The body the buyer sends to place an order: MEF 123 Product Order Management 10.0.0 `ProductOrder_Create`,
 * one `add` item per ordered product, each naming the POQ item and quote item that qualified and priced it.
 */

type Json = Record<string, unknown>;

/** A person the seller may contact about the order (MEF 123 `RelatedContactInformation` without its role). */
export interface SonataOrderContact {
  name: string;
  emailAddress: string;
  /** Required by the document; when left out, the source's buyer contact number is sent. */
  number?: string;
}

/** One supplier order to place at a Sonata seller: the products of one source in one of our orders. */
export interface SupplierOrderToPlace {
  /** Our supplier order id, sent as `externalId` (how we find the order again after a crash). */
  externalId: string;
  /** MEF `requestedCompletionDate` of each item. */
  requestedCompletionDate: Date;
  /** The contact for every buyer role R13/R14 require (default the source's buyerContact; an order may override). */
  contact: SonataOrderContact;
  billingAccountId: string;
  endCustomerName?: string;
  /** `id`: the order item id (unique within the order, MEF 123 `MEFProductOrderItem_Common.id`). */
  items: { id: string; terms: SonataOrderTerms; contractTermMonths: number }[];
}

/** The order-level contact role MEF 123 R13 requires (MEF 57.2 R61). */
export const ORDER_CONTACT_ROLE = 'productOrderContact';
/** The item-level contact roles MEF 123 R14 requires on every item (MEF 57.2 R16, R22). */
export const ORDER_ITEM_CONTACT_ROLES = [
  'buyerProductOrderItemContact',
  'buyerImplementationContact',
  'buyerTechnicalContact',
] as const;

/**
 * The billing account a source's orders name (MEF 123 R33 `billingAccount.id`): the source's
 * `billingAccountId`, else its `buyerId` (the buyer as the seller knows it, MEF 79 Sn 8.8), else `instanceCode`,
 * the code of the instance the source belongs to.
 */
export function sonataBillingAccountId(settings: SonataSourceSettings, instanceCode: string): string {
  return settings.billingAccountId ?? settings.buyerId ?? instanceCode;
}

/** The default order contact of a source: its buyer contact (the one its POQs and Quotes carry). */
export function sonataOrderContact(settings: SonataSourceSettings): SonataOrderContact {
  const { name, emailAddress, number } = settings.buyerContact;
  return { name, emailAddress, number };
}

/** One `RelatedContactInformation` per role, all for the same person. */
function contacts(contact: SonataOrderContact, fallbackNumber: string, roles: readonly string[]): Json[] {
  return roles.map((role) => ({
    role,
    name: contact.name,
    emailAddress: contact.emailAddress,
    number: contact.number ?? fallbackNumber,
  }));
}

/**
 * The `requestedItemTerm` of an item (MEF 123 R34): the quoted term unchanged, since a term that differs from
 * the referenced quote's is rejected (R38); without one, `contractTermMonths` calendar months, rolling
 * monthly at its end. A rolling term always carries a `rollInterval` (R35); a quoted one without it gets a
 * month, the shortest interval a monthly price rolls by.
 */
export function requestedItemTerm(term: SonataItemTerm | null, contractTermMonths: number): Json {
  if (!term) {
    return {
      name: `${contractTermMonths} months`,
      duration: { amount: contractTermMonths, units: 'calendarMonths' },
      endOfTermAction: 'roll',
      rollInterval: { amount: 1, units: 'calendarMonths' },
    };
  }
  const rollInterval =
    term.rollInterval ??
    (term.endOfTermAction === 'roll' ? { amount: 1, units: 'calendarMonths' } : undefined);
  return {
    name: term.name,
    duration: { amount: term.duration.amount, units: term.duration.units },
    endOfTermAction: term.endOfTermAction,
    ...(rollInterval ? { rollInterval: { amount: rollInterval.amount, units: rollInterval.units } } : {}),
    ...(term.description !== undefined ? { description: term.description } : {}),
  };
}

/**
 * MEF 123 Product Order Management 10.0.0 `ProductOrder_Create` for a supplier order:
 *
 * - order: `externalId` (our supplier order id), `relatedContactInformation` with `productOrderContact` (R13);
 * - per item (`action: add`, MEF 123 §6.1.6): `product.productOffering.id` (R32), the quoted
 *   `product.productConfiguration` (R30) and the install `product.place`, never `product.id` (R36);
 *   `quoteItem` {`quoteId`, `id`} (CR6) and `productOfferingQualificationItem` {`productOfferingQualificationId`,
 *   `id`} (CR5); `requestedItemTerm` (R34, R35, R38; see {@link requestedItemTerm}); `billingAccount.id`
 *   (R33); `requestedCompletionDate` and the contacts `buyerProductOrderItemContact`,
 *   `buyerImplementationContact`, `buyerTechnicalContact` (R14); `endCustomerName` when given.
 *
 * `buyerId`/`sellerId` go in the query (the client adds them). The caller checks there is at least one item
 * (R12).
 *
 * @param fallbackNumber the phone number sent when `order.contact` has none (the document requires one): the
 *   source's buyer contact number.
 */
export function productOrderCreateBody(order: SupplierOrderToPlace, fallbackNumber: string): Json {
  const requestedCompletionDate = order.requestedCompletionDate.toISOString();
  return {
    externalId: order.externalId,
    relatedContactInformation: contacts(order.contact, fallbackNumber, [ORDER_CONTACT_ROLE]),
    productOrderItem: order.items.map(({ id, terms, contractTermMonths }) => ({
      id,
      action: 'add',
      product: {
        productOffering: { id: terms.productOfferingId },
        productConfiguration: terms.productConfiguration,
        place: terms.place,
      },
      quoteItem: { quoteId: terms.quoteId, id: terms.quoteItemId },
      productOfferingQualificationItem: {
        productOfferingQualificationId: terms.poqId,
        id: terms.poqItemId,
      },
      requestedItemTerm: requestedItemTerm(terms.itemTerm, contractTermMonths),
      billingAccount: { id: order.billingAccountId },
      requestedCompletionDate,
      relatedContactInformation: contacts(order.contact, fallbackNumber, ORDER_ITEM_CONTACT_ROLES),
      ...(order.endCustomerName ? { endCustomerName: order.endCustomerName } : {}),
    })),
  };
}
