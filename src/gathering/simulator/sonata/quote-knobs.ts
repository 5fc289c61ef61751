import type { SellerContext } from './lifecycle.js';
import { VALIDITY_MS } from './lifecycle.js';
import type { PlacedOffer } from './offerings.js';

/** How a seller prices a quote item it quoted before: as the catalogue says, or dearer each time. */
export const requotePrices = ['same', 'changed'] as const;
/** One of {@link requotePrices}. */
export type RequotePrice = (typeof requotePrices)[number];

/** What the quote knobs of a call decide (see {@link quoteKnobs}). */
export interface QuoteKnobs {
  /** Milliseconds from a priced Quote's completion to its `validFor.endDateTime`. */
  validMs: number;
  requotePrice: RequotePrice;
}

/**
 * The quote knobs of a call (Quote Management), from the base URL's query: `quote_valid_ms=<ms>`, how long a
 * priced Quote is valid after its completion (`validFor.endDateTime`; default 30 days, `VALIDITY_MS`; 0 lets
 * it lapse at once), and `requote_price=same|changed` (default `same`): with `changed`, a quote item the
 * seller priced before — same buyer, install place, offering, bandwidth and term, at the same seller
 * whatever the query — costs 10 % more MRC for each earlier time (the second quote 110 %, the third 120 %
 * of the catalogue's MRC, rounded to the cent; the NRC unchanged), so every later quote's price differs.
 *
 * @returns the knobs, or the message of an unusable value (answered `400 invalidQuery`).
 */
export function quoteKnobs(query: URLSearchParams): QuoteKnobs | string {
  const requotePrice = query.get('requote_price') ?? 'same';
  if (!requotePrices.includes(requotePrice as RequotePrice)) {
    return `Unknown requote_price knob ${requotePrice}: use ${requotePrices.join(', ')}.`;
  }
  const given = query.get('quote_valid_ms');
  const validMs = given === null ? VALIDITY_MS : Number(given);
  if (!Number.isFinite(validMs) || validMs < 0) {
    return `quote_valid_ms must be a number of ms, not ${given}.`;
  }
  return { validMs, requotePrice: requotePrice as RequotePrice };
}

/** Per seller (its context): how many times each quote item key was priced. Gone with the simulator. */
const pricedBefore = new WeakMap<SellerContext, Map<string, number>>();

/** What makes two quote items "the same" to a seller pricing again. */
export interface QuotedItemKey {
  buyerId: string | undefined;
  /** The item's `product.place`, as the buyer sent it. */
  place: unknown;
  productOfferingId: string;
  offer: PlacedOffer;
}

/**
 * Records that the seller priced an item now, and returns the offer to price it with: the catalogue's
 * `offer`, or — with `requote_price=changed` and an item priced before ({@link quoteKnobs}) — the offer with
 * its MRC raised 10 % for each earlier time.
 */
export function priceAgain(context: SellerContext, key: QuotedItemKey, knobs: QuoteKnobs): PlacedOffer {
  const counts = pricedBefore.get(context) ?? new Map<string, number>();
  pricedBefore.set(context, counts);
  const { offer } = key;
  const id = stableJson([
    key.buyerId ?? '',
    key.place,
    key.productOfferingId,
    offer.bandwidth.download,
    offer.bandwidth.upload,
    offer.contract_term,
  ]);
  const earlier = counts.get(id) ?? 0;
  counts.set(id, earlier + 1);
  if (knobs.requotePrice === 'same' || earlier === 0) return offer;
  const cents = Math.round(offer.mrc * 100);
  return { ...offer, mrc: Math.round((cents * (10 + earlier)) / 10) / 100 };
}

/** JSON with object keys sorted, so a place stored and sent back in another key order is the same place. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, each: unknown) =>
    each && typeof each === 'object' && !Array.isArray(each)
      ? Object.fromEntries(Object.entries(each).sort(([a], [b]) => a.localeCompare(b)))
      : each,
  );
}
