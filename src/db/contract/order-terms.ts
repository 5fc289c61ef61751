/**
 * How a gathered product is ordered from its seller, kept with the product and snapshotted on the quote
 * lines made from it (issue "Orders, part 1", item 1; issue "Orders, part 2", item 3). Products of
 * `mef-sonata` sources carry it, and those of `http` sources whose offer had an `id`; every other product is
 * ordered by the reseller's own means (`manual` order lines).
 */

/**
 * A `Duration` of the MEF documents (Quote 8.0.1 and Product Order 10.0.0 `Duration`): `amount` of `units`
 * (`calendarMonths`, `calendarDays`, …, MEF `TimeUnit`).
 */
export interface SonataDuration {
  amount: number;
  units: string;
}

/**
 * The quote item's term, as the seller quoted it (`quoteItemTerm[0]`, Quote 8.0.1 `MEFItemTerm`), sent back
 * unchanged as the order item's `requestedItemTerm` (MEF 123 R34, R38).
 */
export interface SonataItemTerm {
  name: string;
  duration: SonataDuration;
  /** MEF `MEFEndOfTermAction`: `roll`, `autoDisconnect` or `autoRenew`. */
  endOfTermAction: string;
  rollInterval?: SonataDuration;
  description?: string;
}

/**
 * What a Sonata seller needs to turn a quoted item into an order item (MEF 123 `MEFProductOrderItem_Create`):
 * the POQ and Quote that qualified and priced it, the offering, the configuration quoted and the place it is
 * installed at. Purchase prices and the source are the product's (and the quote line's) own columns.
 */
export interface SonataOrderTerms {
  kind: 'mef-sonata';
  /** The seller's POQ id and POQ item id (`productOfferingQualificationItem` of the order item). */
  poqId: string;
  poqItemId: string;
  /** The seller's Quote id and quote item id (`quoteItem` of the order item). */
  quoteId: string;
  quoteItemId: string;
  /** `productOffering.id` of the quoted product. */
  productOfferingId: string;
  /**
   * The quoted term: the seller's `quoteItemTerm[0]`, or the term asked for when the seller's lacks a name or
   * end-of-term action. Null only for terms stored without one (the order then asks for the line's
   * `contractTermMonths` in `calendarMonths`, `roll` at its end).
   */
  itemTerm: SonataItemTerm | null;
  /** The `MEFProductConfiguration` (with its `@type`) the Quote was asked for, as JSON. */
  productConfiguration: Record<string, unknown>;
  /** The install place as sent in the POQ and Quote (`RelatedPlaceRefOrValue[]`, JSON). */
  place: Record<string, unknown>[];
  /** The seller quote's `validFor` (ISO 8601 date-times); null when it said none. */
  validFor: { startDateTime: string | null; endDateTime: string | null } | null;
}

/**
 * What an `http` supplier needs to order an offer (docs/supplier-contract.md, "Ordering"): the offer's `id`
 * as the supplier gave it, sent back as the order item's `offer_id`. The contract term is the line's own
 * `contractTermMonths`.
 */
export interface HttpOrderTerms {
  kind: 'http';
  offerId: string;
}

/** The order terms of a product or quote line (by its source's type); null for one ordered by hand. */
export type OrderTerms = SonataOrderTerms | HttpOrderTerms;
