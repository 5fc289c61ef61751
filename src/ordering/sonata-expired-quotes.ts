/**
 * Lines whose seller quote has expired, quoted again before they are ordered (issue "Orders, part 2",
 * item 2): a line whose new purchase price is the one the customer's quote was made from is ordered with
 * the new quote's terms; one whose price changed is not ordered and fails with `SUPPLIER_PRICE_CHANGED`,
 * showing both prices, while the other lines go on.
 */
import type { OrderLineRow, SupplierLineProgress } from '../db/rows.js';
import type { SonataCallScope } from '../gathering/sources/mef-sonata/client.js';
import type { SonataSourceSettings } from '../gathering/sources/mef-sonata/settings.js';
import { SourceError } from '../gathering/sources/types.js';
import { currencyFractionDigits, toMajorUnits } from '../money.js';
import {
  requoteSonataLine,
  type SonataRequote,
  type SonataRequoteDeps,
  sonataQuoteExpired,
} from './sonata-requote.js';

/** The error code of a line not ordered because the seller's new quote changed its purchase price. */
export const SUPPLIER_PRICE_CHANGED = 'SUPPLIER_PRICE_CHANGED';

/** What quoting the expired lines again found. */
export interface ExpiredQuotesOutcome {
  /** The lines to order, with their new terms where they were quoted again. */
  lines: OrderLineRow[];
  /** What to record: new terms of lines quoted again, and the lines that fail. */
  progress: SupplierLineProgress[];
}

/** Whether a new quote has the price and term the customer's quote was made from. */
function samePrice(line: OrderLineRow, requote: SonataRequote): boolean {
  return (
    requote.currency === line.currency &&
    requote.mrcMinor === line.purchaseMrcMinor &&
    requote.nrcMinor === line.purchaseNrcMinor &&
    (line.contractTermMonths === null || requote.contractTermMonths === line.contractTermMonths)
  );
}

/**
 * Quotes again, one after another, the lines whose seller quote (`validFor`) has expired at `now`; the
 * others pass unchanged. A line the seller cannot quote any more (a final refusal) fails with the seller's
 * code.
 *
 * @throws {SourceError} a retryable failure of the seller (the step tries again after its back-off).
 */
export async function requoteExpiredLines(
  deps: SonataRequoteDeps,
  scope: SonataCallScope,
  settings: SonataSourceSettings,
  lines: readonly OrderLineRow[],
  now: Date,
): Promise<ExpiredQuotesOutcome> {
  const outcome: ExpiredQuotesOutcome = { lines: [], progress: [] };
  for (const line of lines) {
    const terms = line.orderTerms;
    if (terms?.kind !== 'mef-sonata' || !sonataQuoteExpired(terms, now)) {
      outcome.lines.push(line);
      continue;
    }
    let requote: SonataRequote;
    try {
      requote = await requoteSonataLine(deps, scope, settings, {
        id: line.id,
        orderTerms: terms,
        contractTermMonths: line.contractTermMonths,
      });
    } catch (error) {
      if (!(error instanceof SourceError) || error.retryable) throw error;
      outcome.progress.push({
        lineId: line.id,
        status: 'failed',
        errorCode: error.code,
        errorMessage: `The seller’s quote had expired and it could not be quoted again: ${error.message}`,
      });
      continue;
    }
    if (samePrice(line, requote)) {
      outcome.lines.push({ ...line, orderTerms: requote.terms });
      outcome.progress.push({ lineId: line.id, orderTerms: requote.terms });
      continue;
    }
    const major = (minor: number, currency: string) =>
      toMajorUnits(minor, currency).toFixed(currencyFractionDigits(currency));
    outcome.progress.push({
      lineId: line.id,
      status: 'failed',
      errorCode: SUPPLIER_PRICE_CHANGED,
      errorMessage:
        `The seller’s quote had expired; its new quote costs ${requote.currency} ${major(requote.mrcMinor, requote.currency)} a month ` +
        `and ${major(requote.nrcMinor, requote.currency)} once (${requote.contractTermMonths} months) instead of ` +
        `${line.currency} ${major(line.purchaseMrcMinor ?? 0, line.currency)} and ${major(line.purchaseNrcMinor ?? 0, line.currency)}: not ordered.`,
      priceChange: {
        currency: requote.currency,
        quotedMrcMinor: line.purchaseMrcMinor ?? 0,
        quotedNrcMinor: line.purchaseNrcMinor ?? 0,
        newMrcMinor: requote.mrcMinor,
        newNrcMinor: requote.nrcMinor,
      },
    });
  }
  return outcome;
}
