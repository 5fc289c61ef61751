/*
 * PLACEHOLDER (issue 33, being rewritten by hand): Quotes and their lines.
 * Derived from the SQLite queries until this file states the contract itself.
 */

import type * as quotes from '../sqlite/queries/quotes.js';
import type { Operation } from './operation.js';

export type {
  NewQuote,
  NewQuoteLine,
  QuoteLineRow,
  QuoteRecord,
  QuoteRow,
} from '../sqlite/queries/quotes.js';

/** Quotes and their lines. */
export type QuoteOperations = {
  insertQuote: Operation<typeof quotes.insertQuote>;
  addQuoteLines: Operation<typeof quotes.addQuoteLines>;
  findQuote: Operation<typeof quotes.findQuote>;
  countQuotes: Operation<typeof quotes.countQuotes>;
  sliceQuotes: Operation<typeof quotes.sliceQuotes>;
  findRequestProducts: Operation<typeof quotes.findRequestProducts>;
};
