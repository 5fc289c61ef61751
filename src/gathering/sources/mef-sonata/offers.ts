import type { SonataItemTerm, SonataOrderTerms, SourceRow } from '../../../db/rows.js';
import { isCurrencyCode, toMinorUnits } from '../../../money.js';
import type { SourceOffer } from '../types.js';
import type { QuoteItem, QuotePrice, TerminationError } from './answers.js';
import { itemTerm, productConfiguration, type QuoteWish } from './requests.js';
import type { SonataProductOfferingSettings } from './settings.js';

/**
 * Why a candidate or quote item gave no offer (docs/mef-sonata-mapping.md §4):
 * - `notServiceable`: POQ item `done.ready` with `serviceabilityConfidence: red` (A5);
 * - `terminated`: POQ or quote item `terminatedWithError` (A6);
 * - `abandoned`: POQ item `done.abandoned` (A6) or quote item `abandoned` (B5);
 * - `unableToProvide`: quote item (or whole quote) `unableToProvide`, `rejected` or another non-completion (B3, B5);
 * - `noPrice`: quoted in a completion state but without exactly one monthly recurring price (B4, B7);
 * - `unusableAnswer`: priced, but the price, currency, term or bandwidth cannot be read exactly (B7, B9–B12).
 */
export type SonataDeclineReason =
  | 'notServiceable'
  | 'terminated'
  | 'abandoned'
  | 'unableToProvide'
  | 'noPrice'
  | 'unusableAnswer';

/** An item the seller answered without an offer: recorded, never turned into a made-up offer. */
export interface SonataDeclinedItem {
  stage: 'poq' | 'quote';
  reason: SonataDeclineReason;
  productOfferingId: string;
  downloadKbps: number;
  uploadKbps: number;
  /** The quoted term (months); null for a POQ item. */
  contractTermMonths: number | null;
  /** What the seller said: state, confidence, termination errors. */
  detail: string;
}

/** A quote item's completion states that carry prices (mapping B2/B4; `accepted` follows the buyer's own accept). */
const PRICED_STATES = ['approved.orderable', 'approved.orderableAlternate', 'answered', 'accepted'];

/** MEF 139 `InformationRateUnits` in kbps ("1 KBPS is 1000 bits per second", `InformationRate`; B11). */
const KBPS_PER_UNIT: Record<string, number> = {
  BPS: 0.001,
  KBPS: 1,
  MBPS: 1_000,
  GBPS: 1_000_000,
  TBPS: 1e9,
};

/** One line about termination errors: `code at propertyPath (value)`. */
export function describeTermination(errors: readonly TerminationError[] | undefined): string {
  if (!errors || errors.length === 0) return '';
  return errors
    .slice(0, 3)
    .map((error) => {
      const at = error.propertyPath ? ` at ${error.propertyPath.slice(0, 200)}` : '';
      const value = error.value ? ` (${error.value.replace(/\s+/g, ' ').slice(0, 200)})` : '';
      return `${(error.code ?? 'otherIssue').slice(0, 100)}${at}${value}`;
    })
    .join('; ');
}

/** An amount in major units as exact, non-negative integer minor units of the currency, or null (B7). */
function minorUnits(amount: number, currency: string): number | null {
  const minor = toMinorUnits(amount, currency);
  return minor !== null && minor >= 0 ? minor : null;
}

/** A rate in kbps from an MEF 139 `InformationRate`, or null when it is not a whole number of kbps (B11/B12). */
export function informationRateKbps(rate: { irValue: number; irUnits: string } | undefined): number | null {
  if (!rate) return null;
  const factor = KBPS_PER_UNIT[rate.irUnits];
  if (factor === undefined) return null;
  const value = rate.irValue * factor;
  const rounded = Math.round(value);
  return Math.abs(value - rounded) < 1e-6 && rounded > 0 ? rounded : null;
}

/** What every offer of one Quote keeps for ordering it: the POQ and Quote ids, the install place, `validFor`. */
export interface QuoteOrdering {
  poqId: string;
  quoteId: string;
  /** The install place as sent in the POQ and Quote (`RelatedPlaceRefOrValue`). */
  place: Record<string, unknown>;
  validFor: SonataOrderTerms['validFor'];
}

/**
 * The term to order a quote item with (MEF 123 R34, R38: the quoted one): the seller's `quoteItemTerm[0]`
 * when it names everything `MEFItemTerm` requires, else the term asked for (Quote `requestedQuoteItemTerm`,
 * mapping Q10), which the seller then did not change.
 */
function quotedItemTerm(item: QuoteItem, months: number): SonataItemTerm {
  const quoted = item.quoteItemTerm?.[0];
  if (quoted?.name && quoted.endOfTermAction) {
    return {
      name: quoted.name,
      duration: { amount: quoted.duration.amount, units: quoted.duration.units },
      endOfTermAction: quoted.endOfTermAction,
      ...(quoted.rollInterval
        ? { rollInterval: { amount: quoted.rollInterval.amount, units: quoted.rollInterval.units } }
        : {}),
      ...(quoted.description ? { description: quoted.description } : {}),
    };
  }
  return itemTerm(months);
}

/**
 * One quote item as an offer (mapping B4–B14), or the reason it is none.
 *
 * - MRC: the one `recurring` price with `recurringChargePeriod: month`; NRC: the sum of the `nonRecurring`
 *   prices (0 when none); both from `price.dutyFreeAmount` (before tax), in one currency, as exact minor units.
 * - Term: `quoteItemTerm[0].duration` in `calendarMonths` (the seller may answer another term than asked,
 *   MEF 115 R40/R41); without one, the term asked for.
 * - Bandwidth: the item's `ipUniAccessLink` egress/ingress `maxIr`; without one, the bandwidth asked for.
 * - Network: the source's; technology and connection type: those of the configured offering the item names
 *   (`product.productOffering.id`; without one, the offering asked for).
 */
export function offerFromQuoteItem(
  source: SourceRow,
  offerings: readonly SonataProductOfferingSettings[],
  wish: QuoteWish,
  item: QuoteItem,
  ordering: QuoteOrdering,
): SourceOffer | SonataDeclinedItem {
  const { candidate } = wish;
  const decline = (
    reason: SonataDeclineReason,
    detail: string,
    term = wish.termMonths,
  ): SonataDeclinedItem => ({
    stage: 'quote',
    reason,
    productOfferingId: candidate.offering.productOfferingId,
    downloadKbps: candidate.downloadKbps,
    uploadKbps: candidate.uploadKbps,
    contractTermMonths: term,
    detail,
  });
  const terminated = describeTermination(item.terminationError);
  if (!PRICED_STATES.includes(item.state)) {
    const reason = item.state === 'abandoned' ? 'abandoned' : 'unableToProvide';
    return decline(reason, `quote item ${item.state}${terminated ? `: ${terminated}` : ''}`);
  }
  const prices = item.quoteItemPrice ?? [];
  const monthly = prices.filter(
    (price) => price.priceType === 'recurring' && price.recurringChargePeriod === 'month',
  );
  if (monthly.length !== 1 || !monthly[0]?.price?.dutyFreeAmount) {
    return decline(
      'noPrice',
      `quote item ${item.state} with ${monthly.length} monthly recurring prices (exactly one is needed)`,
    );
  }
  const oneOff = prices.filter((price) => price.priceType === 'nonRecurring');
  const amounts = [monthly[0], ...oneOff].map((price: QuotePrice) => price.price?.dutyFreeAmount);
  const currency = amounts[0]?.unit;
  if (!isCurrencyCode(currency) || amounts.some((amount) => amount?.unit !== currency)) {
    return decline('unusableAnswer', 'quote item prices without one ISO 4217 currency');
  }
  const minor = amounts.map((amount) =>
    typeof amount?.value === 'number' ? minorUnits(amount.value, currency) : null,
  );
  const [mrc, ...nrcs] = minor;
  if (mrc === null || mrc === undefined || nrcs.some((value) => value === null)) {
    return decline('unusableAnswer', `a price is negative or has more decimals than ${currency} allows`);
  }
  const termDuration = item.quoteItemTerm?.[0]?.duration;
  if (termDuration && (termDuration.units !== 'calendarMonths' || !Number.isInteger(termDuration.amount))) {
    return decline('unusableAnswer', `quote item term of ${termDuration.amount} ${termDuration.units}`);
  }
  const term = termDuration ? termDuration.amount : wish.termMonths;
  const link = item.product?.productConfiguration?.ipUniAccessLink;
  const download = link?.egressBwpEnvelope?.[0]?.maxIr;
  const upload = link?.ingressBwpEnvelope?.[0]?.maxIr;
  const downloadKbps = download ? informationRateKbps(download) : candidate.downloadKbps;
  const uploadKbps = upload ? informationRateKbps(upload) : candidate.uploadKbps;
  if (downloadKbps === null || uploadKbps === null) {
    return decline('unusableAnswer', 'quote item bandwidth is not a whole number of kbps', term);
  }
  const offeringId = item.product?.productOffering?.id ?? candidate.offering.productOfferingId;
  const offering = offerings.find((candidateOffering) => candidateOffering.productOfferingId === offeringId);
  if (!offering) {
    return decline(
      'unusableAnswer',
      `quote item names the offering ${offeringId.slice(0, 200)}, not configured`,
      term,
    );
  }
  return {
    network: source.network,
    technologyType: offering.technologyType,
    connectionType: offering.connectionType,
    downloadKbps,
    uploadKbps,
    contractTermMonths: term,
    purchaseMrcMinor: mrc,
    purchaseNrcMinor: nrcs.reduce<number>((sum, value) => sum + (value ?? 0), 0),
    currency,
    orderTerms: {
      kind: 'mef-sonata',
      poqId: ordering.poqId,
      poqItemId: candidate.itemId,
      quoteId: ordering.quoteId,
      quoteItemId: item.id,
      productOfferingId: offeringId,
      itemTerm: quotedItemTerm(item, term),
      productConfiguration: productConfiguration(candidate),
      place: [ordering.place],
      validFor: ordering.validFor,
    },
  };
}

/** Whether a mapping result is a declined item rather than an offer. */
export function isDeclined(value: SourceOffer | SonataDeclinedItem): value is SonataDeclinedItem {
  return 'reason' in value;
}
