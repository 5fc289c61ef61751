import { error400, error422, type ItemProblem, type SellerAnswer, terminationError } from './errors.js';
import { itemProblems } from './item-rules.js';
import { calendarDays, type Lifecycle, later, type SellerContext, sellerContact } from './lifecycle.js';
import { closestTerm, matchingOffers, offersAtPlace, type PlacedOffer } from './offerings.js';
import { installPlace, isProblem } from './place.js';
import { requestedBandwidth } from './product.js';
import { type ItemRecord, Progression } from './progression.js';
import { priceAgain, quoteKnobs } from './quote-knobs.js';
import type { QuoteCreate, QuoteCreateItem } from './requests.js';

type Verdict =
  | { kind: 'priced'; offer: PlacedOffer; alternate: boolean }
  | { kind: 'unable'; problem: ItemProblem };

/** Quote completion states (MEF 115 §6.2.1), after which a Quote takes no deferred steps here. */
const FINAL = ['answered', 'approved.orderable', 'approved.orderableAlternate', 'unableToProvide'];
/** The Netherlands' VAT rate, for `Price.taxRate` / `taxIncludedAmount`: purchase prices are before tax. */
const TAX_RATE = 21;

function businessProblems(
  context: SellerContext,
  body: QuoteCreate,
  knownPoqItem: (poqId: string, itemId: string) => boolean,
): ItemProblem[] {
  const problems: ItemProblem[] = [];
  if (!body.instantSyncQuote) {
    if (body.requestedQuoteCompletionDate === undefined) {
      problems.push({
        code: 'missingProperty',
        propertyPath: '/requestedQuoteCompletionDate',
        reason: 'requestedQuoteCompletionDate is required when instantSyncQuote is false (MEF 115 R19).',
      });
    }
    if (!body.relatedContactInformation?.some((contact) => contact.role === 'buyerContactInformation')) {
      problems.push({
        code: 'missingProperty',
        propertyPath: '/relatedContactInformation',
        reason: 'A buyerContactInformation contact is required when instantSyncQuote is false (MEF 115 R18).',
      });
    }
  }
  body.quoteItem.forEach((item, index) => {
    const pointer = `/quoteItem/${index}`;
    problems.push(...itemProblems(context, item, pointer));
    const poq = item.productOfferingQualificationItem;
    if (poq && !knownPoqItem(poq.productOfferingQualificationId, poq.id)) {
      problems.push({
        code: 'referenceNotFound',
        propertyPath: `${pointer}/productOfferingQualificationItem`,
        reason: `No item ${poq.id} in POQ ${poq.productOfferingQualificationId}.`,
      });
    }
    const units = item.requestedQuoteItemTerm?.duration.units;
    if (units !== undefined && units !== 'calendarMonths') {
      problems.push({
        code: 'invalidValue',
        propertyPath: `${pointer}/requestedQuoteItemTerm/duration/units`,
        reason: 'Terms are quoted in calendarMonths.',
      });
    }
  });
  return problems;
}

function verdict(context: SellerContext, item: QuoteCreateItem, pointer: string): Verdict {
  const place = installPlace(item.product?.place, `${pointer}/product`);
  if (isProblem(place)) return { kind: 'unable', problem: place };
  const bandwidth = requestedBandwidth(
    item.product?.productConfiguration,
    `${pointer}/product/productConfiguration`,
  );
  if (isProblem(bandwidth)) return { kind: 'unable', problem: bandwidth };
  const placed = offersAtPlace(context.catalog, context.sourceKey, place);
  const offers =
    matchingOffers(context.offerings, context.offeringPrefix, placed, {
      productOfferingId: item.product?.productOffering?.id ?? '',
      ...bandwidth,
    }) ?? [];
  const profiles = new Set(offers.map((offer) => `${offer.bandwidth.download}/${offer.bandwidth.upload}`));
  if (profiles.size === 0) {
    return {
      kind: 'unable',
      problem: {
        code: 'invalidValue',
        propertyPath: `${pointer}/product`,
        reason: 'Not deliverable as specified at this place.',
      },
    };
  }
  if (profiles.size > 1) {
    return {
      kind: 'unable',
      problem: {
        code: 'missingProperty',
        propertyPath: `${pointer}/product/productConfiguration/ipUniAccessLink`,
        reason: 'Name the bandwidth (maxIr of both envelopes) to be priced.',
      },
    };
  }
  const terms = offers.map((offer) => offer.contract_term);
  const requested = item.requestedQuoteItemTerm?.duration.amount ?? Math.min(...terms);
  const term = closestTerm(terms, requested) ?? requested;
  const offer = offers.find((candidate) => candidate.contract_term === term) as PlacedOffer;
  return { kind: 'priced', offer, alternate: term !== requested };
}

const money = (unit: string, value: number) => ({ unit, value });

/** `QuotePrice`s of an offer: one monthly `recurring` (MRC) and one `nonRecurring` (NRC), before tax. */
function prices(offer: PlacedOffer): Record<string, unknown>[] {
  const price = (value: number) => ({
    dutyFreeAmount: money(offer.currency, value),
    taxRate: TAX_RATE,
    taxIncludedAmount: money(offer.currency, Math.round(value * (100 + TAX_RATE)) / 100),
  });
  return [
    {
      name: 'Monthly charge',
      priceType: 'recurring',
      recurringChargePeriod: 'month',
      price: price(offer.mrc),
    },
    { name: 'One-off installation charge', priceType: 'nonRecurring', price: price(offer.nrc) },
  ];
}

/**
 * Creates a Quote (Quote 8.0.1 `createQuote`). Answers `422` (a list of `Error422`) when business rules fail,
 * else `201` with the Quote. Instantly (`instantSyncQuote` true, or any request to a `sync-only` seller,
 * MEF 115 use case 1c) it is complete at once; a `deferred`/`notify` seller refuses an instant request with a
 * Quote in `unableToProvide` ("not able to provide the answer for any other reason", §6.2.1); else it is
 * `acknowledged` and progressed by {@link Lifecycle.advance}. A deliverable item is priced for the closest
 * contract term the catalogue holds (R40): `approved.orderable` (`approved.orderableAlternate` for another term,
 * R41; `answered` for a budgetary quote) with a monthly MRC and an NRC, unless `withoutPrice` (the
 * `price=none` knob: priced states without `quoteItemPrice`, which MEF 115 Table 6 forbids and buyers must
 * survive). An item not deliverable at the place, or with an open bandwidth matching several profiles, is
 * `unableToProvide` with a `terminationError`; so is every item of a deferred Quote past its
 * `requestedQuoteCompletionDate`, or one created with `unableToProvide`. A priced Quote is valid for 30 days
 * after its completion (`validFor.endDateTime`), or as long as the `quote_valid_ms` knob of `query` says; an
 * item priced before costs more with `requote_price=changed` (quote-knobs.ts `quoteKnobs`). An unusable
 * knob is answered `400 invalidQuery`.
 */
export function createQuote(
  context: SellerContext,
  body: QuoteCreate,
  options: {
    id: string;
    buyerId?: string;
    sellerId?: string;
    unableToProvide: boolean;
    withoutPrice: boolean;
    knownPoqItem: (poqId: string, itemId: string) => boolean;
    now: Date;
    /** The call's query: its quote knobs (`quote_valid_ms`, `requote_price`). */
    query?: URLSearchParams;
  },
): { answer: SellerAnswer; lifecycle?: Lifecycle } {
  const knobs = quoteKnobs(options.query ?? new URLSearchParams());
  if (typeof knobs === 'string') return { answer: error400('invalidQuery', knobs) };
  const problems = businessProblems(context, body, options.knownPoqItem);
  if (problems.length > 0) return { answer: error422(problems) };
  const refused = body.instantSyncQuote && (context.mode === 'deferred' || context.mode === 'notify');
  const instant = context.mode === 'sync-only' || body.instantSyncQuote;
  const { quoteItem: requestItems, ...common } = body;
  const created = options.now.toISOString();
  const firm = body.buyerRequestedQuoteLevel === 'firm';
  const progression = new Progression(
    options.now,
    requestItems,
    (request, index) => {
      const found = verdict(context, request, `/quoteItem/${index}`);
      if (found.kind !== 'priced' || refused) return found;
      const offer = priceAgain(
        context,
        {
          buyerId: options.buyerId,
          place: request.product?.place,
          productOfferingId: request.product?.productOffering?.id ?? '',
          offer: found.offer,
        },
        knobs,
      );
      return { ...found, offer };
    },
    { item: 'quoteItemStateChangeEvent', whole: 'quoteStateChangeEvent' },
    FINAL,
  );
  const finish = (now: Date) => {
    const deadline = body.requestedQuoteCompletionDate ? Date.parse(body.requestedQuoteCompletionDate) : null;
    const late = !instant && deadline !== null && now.getTime() > deadline;
    const unable: ItemProblem | null = refused
      ? {
          code: 'otherIssue',
          propertyPath: '/instantSyncQuote',
          reason: 'This seller answers deferred only: send instantSyncQuote false.',
        }
      : late || options.unableToProvide
        ? {
            code: 'otherIssue',
            propertyPath: '/requestedQuoteCompletionDate',
            reason: 'The seller cannot quote within the requested time.',
          }
        : null;
    if (unable) for (const item of progression.items) item.verdict = { kind: 'unable', problem: unable };
    return progression.end(
      now,
      ({ verdict: v }) =>
        v.kind === 'unable'
          ? 'unableToProvide'
          : !firm
            ? 'answered'
            : v.alternate
              ? 'approved.orderableAlternate'
              : 'approved.orderable',
      (items) =>
        items.every((item) => item.state === 'unableToProvide')
          ? 'unableToProvide'
          : !firm
            ? 'answered'
            : items.every((item) => item.state === 'approved.orderable')
              ? 'approved.orderable'
              : 'approved.orderableAlternate',
    );
  };
  const itemView = (item: ItemRecord<QuoteCreateItem, Verdict>): Record<string, unknown> => {
    const view = progression.itemView(item);
    const { verdict: v } = item;
    if (v.kind === 'unable' && item.state === 'unableToProvide')
      view.terminationError = [terminationError(v.problem)];
    if (v.kind === 'priced' && FINAL.includes(item.state)) {
      const requested = item.request.requestedQuoteItemTerm;
      const roll = (requested?.endOfTermAction ?? 'roll') === 'roll';
      view.quoteItemTerm = [
        {
          duration: { amount: v.offer.contract_term, units: 'calendarMonths' },
          endOfTermAction: requested?.endOfTermAction ?? 'roll',
          ...(roll
            ? { rollInterval: requested?.rollInterval ?? { amount: 1, units: 'calendarMonths' } }
            : {}),
          name: `${v.offer.contract_term} months`,
        },
      ];
      if (!options.withoutPrice) view.quoteItemPrice = prices(v.offer);
      view.quoteItemInstallationInterval = calendarDays(v.offer.lead_time_days ?? 30);
      if (firm) view.subjectToFeasibilityCheck = false;
    }
    return view;
  };
  const priced = () => progression.state !== 'unableToProvide' && progression.complete();
  const lifecycle: Lifecycle = {
    api: 'quote',
    id: options.id,
    sellerKey: `${context.sourceKey}/${context.mode}`,
    buyerId: options.buyerId,
    sellerId: options.sellerId,
    unread: 0,
    complete: () => progression.complete(),
    view: () => ({
      ...common,
      relatedContactInformation: [...(common.relatedContactInformation ?? []), sellerContact(context)],
      id: options.id,
      href: `${context.apiBase('quote')}/quote/${options.id}`,
      quoteDate: created,
      state: progression.state,
      stateChange: progression.stateChange,
      ...(!firm || priced() ? { quoteLevel: body.buyerRequestedQuoteLevel } : {}),
      ...(progression.completedAt
        ? { effectiveQuoteCompletionDate: progression.completedAt }
        : { expectedQuoteCompletionDate: later(options.now, 2 * context.stepMs) }),
      ...(priced()
        ? { validFor: { endDateTime: later(new Date(progression.completedAt ?? created), knobs.validMs) } }
        : {}),
      quoteItem: progression.items.map(itemView),
    }),
    advance: (now) => progression.advance(now, finish),
  };
  if (instant || refused) finish(options.now);
  return { answer: { status: 201, body: lifecycle.view() }, lifecycle };
}
