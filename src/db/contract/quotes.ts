/** Quotes for customers and their lines: snapshots of products with their sale prices. */

import type { QuoteLineKind, SourceType } from '../values.js';
import type { ProductRow } from './availability.js';
import type { OrderTerms } from './order-terms.js';

/** A quote for a customer. */
export interface QuoteRow {
  id: string;
  instanceId: string;
  customerId: string;
  /** The user who created it; null when an operator did. */
  createdByUserId: string | null;
  name: string;
  /** The customer's own reference, if given. */
  referenceNumber: string | null;
  /** UTC year of creation: quote numbers restart at 0001 every year. */
  year: number;
  /** Position within the instance's quotes of the year: 1, 2, 3… without gaps. */
  sequence: number;
  /** `<year>-<sequence, 4 digits>-<instance code>`, e.g. `2026-0003-ACM`. */
  quoteNumber: string;
  /** ISO 4217, the unit of every line's prices. */
  currency: string;
  validityDays: number;
  /** Calendar date (UTC) `YYYY-MM-DD`: creation date + validity days. */
  expirationDate: string;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A product on a quote: a snapshot of its name, kind, bandwidth, term and sale prices taken when it was
 * added, so later catalogue changes never move a quote's totals.
 */
export interface QuoteLineRow {
  id: string;
  instanceId: string;
  quoteId: string;
  kind: QuoteLineKind;
  /** The product the line was made from (an availability-request product or an instance product). */
  productId: string;
  name: string;
  /** Connection lines only (null for instance products), as are the bandwidth and the term. */
  network: string | null;
  technologyType: string | null;
  connectionType: string | null;
  downloadKbps: number | null;
  uploadKbps: number | null;
  contractTermMonths: number | null;
  /** Monthly recurring charge, in minor units of `currency`. */
  mrcMinor: number;
  /** Non-recurring (one-off) charge, in minor units of `currency`. */
  nrcMinor: number;
  currency: string;
  /** The source of a connection line; null for the instance's own products. */
  sourceId: string | null;
  /** Its name and type when the line was added (issue 49); null for the instance's own products. */
  sourceName: string | null;
  sourceType: SourceType | null;
  /** The product's purchase prices (minor units of `currency`); null for the instance's own products. */
  purchaseMrcMinor: number | null;
  purchaseNrcMinor: number | null;
  /** How to order the line from its seller, snapshotted from the product; null when ordered by hand. */
  orderTerms: OrderTerms | null;
  /** 1, 2, 3… in the order lines were added. */
  position: number;
  createdAt: Date;
}

/** A line to add: everything but what the store assigns (id, quote, position, time). */
export type NewQuoteLine = Omit<QuoteLineRow, 'id' | 'instanceId' | 'quoteId' | 'position' | 'createdAt'>;

/** A quote with the names its document nests and its lines in position order. */
export interface QuoteRecord {
  quote: QuoteRow;
  instance: { id: string; name: string };
  customer: { id: string; name: string };
  lines: QuoteLineRow[];
}

/** A quote to create (validated); id, year, sequence and number are the store's. */
export interface NewQuote {
  instanceId: string;
  /** The instance's code, the quote number's suffix. */
  instanceCode: string;
  customerId: string;
  userId: string | null;
  name: string;
  referenceNumber: string | null;
  currency: string;
  validityDays: number;
  /** Calendar date (UTC) `YYYY-MM-DD`. */
  expirationDate: string;
  lines: NewQuoteLine[];
  now: Date;
}

/** Input of `addQuoteLines`. */
export interface QuoteLinesToAdd {
  instanceId: string;
  /** A quote of the instance (the caller checked). */
  quoteId: string;
  lines: NewQuoteLine[];
  now: Date;
}

/** A quote's position in the list order (newest first, ties by id bytewise, descending): a cursor. */
export interface QuotePosition {
  createdAt: Date;
  id: string;
}

/** A slice of the quotes list after a position (from the newest when null). */
export interface QuoteSliceQuery {
  after: QuotePosition | null;
  limit: number;
}

/** Quote operations. */
export interface QuoteOperations {
  /**
   * Creates a quote with its lines in one transaction; products repeated in `lines` are added once (the
   * first occurrence wins), at positions 1, 2, 3…. The sequence is the instance's highest of the year
   * (UTC) plus one, assigned under a lock on the instance's quotes of the year, so concurrent creations
   * get consecutive numbers with no gaps; a creation that fails uses no number up.
   */
  insertQuote: (input: NewQuote) => Promise<QuoteRow>;
  /**
   * Adds lines to a quote in one transaction, one addition to a quote at a time: products already on it,
   * or repeated in `lines`, are skipped; positions continue after the last line. The quote's `updatedAt`
   * moves to `now` when a line was added. A quote with an order that is neither `failed` nor `cancelled` is
   * frozen (issue 49): checked under the lock `insertOrder` takes too, and then nothing is written.
   * @returns how many lines were added, or `'quote_ordered'` with nothing written.
   */
  addQuoteLines: (input: QuoteLinesToAdd) => Promise<number | 'quote_ordered'>;
  /** One quote of the instance with its lines, or undefined (also for another instance's id). */
  findQuote: (instanceId: string, id: string) => Promise<QuoteRecord | undefined>;
  /** Number of quotes of the instance, read from its list total (no scan). */
  countQuotes: (instanceId: string) => Promise<number>;
  /**
   * Up to `limit` quotes of the instance with their lines, newest first (ties by id bytewise,
   * descending), after a position, for cursor connections; a position no quote holds starts at the next
   * older one.
   */
  sliceQuotes: (instanceId: string, query: QuoteSliceQuery) => Promise<QuoteRecord[]>;
  /** Those of the ids that are availability-request products of the instance, in no set order. */
  findRequestProducts: (instanceId: string, ids: readonly string[]) => Promise<ProductRow[]>;
}
