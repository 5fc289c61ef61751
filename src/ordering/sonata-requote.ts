/**
 * A seller quote asked for again (issue 36, item 2 "changed prices"): an order line whose seller quote has
 * expired (MEF 115 `validFor`) is quoted anew before it is ordered, through the gathering's own POQ and Quote
 * code, so its purchase price can be compared with the one the customer's quote was made from.
 */
import { z } from 'zod';
import type { SonataOrderTerms } from '../db/contract/order-terms.js';
import type { SonataCallScope, SonataClient } from '../gathering/sources/mef-sonata/client.js';
import { withoutSecret } from '../gathering/sources/mef-sonata/errors.js';
import { qualifyAndQuote } from '../gathering/sources/mef-sonata/gather.js';
import type { SonataHub } from '../gathering/sources/mef-sonata/hub.js';
import type { SonataNotificationInbox } from '../gathering/sources/mef-sonata/inbox.js';
import { informationRateKbps } from '../gathering/sources/mef-sonata/offers.js';
import { emptyGatheringError } from '../gathering/sources/mef-sonata/outcome.js';
import type { Candidate } from '../gathering/sources/mef-sonata/requests.js';
import type { SonataSourceSettings } from '../gathering/sources/mef-sonata/settings.js';
import { SourceError } from '../gathering/sources/types.js';

/** What a new quote of one line says: its order terms and purchase prices. */
export interface SonataRequote {
  /**
   * The terms to order the line with now: the new POQ's and Quote's ids (`poqId`, `poqItemId`, `quoteId`,
   * `quoteItemId`), the new Quote's `validFor` and quoted `itemTerm`; the offering, configuration and place
   * as before.
   */
  terms: SonataOrderTerms;
  /** The new purchase MRC and NRC (before tax), in minor units of `currency`. */
  mrcMinor: number;
  nrcMinor: number;
  /** ISO 4217 code of the new prices. */
  currency: string;
  /**
   * The contract term the seller quoted (months): the one asked for, unless the seller answered another
   * (`approved.orderableAlternate`, MEF 115 R40/R41).
   */
  contractTermMonths: number;
}

/** What {@link requoteSonataLine} needs. */
export interface SonataRequoteDeps {
  /** The source's client: its token cache and resilience policy, as gathering and ordering use them. */
  client: SonataClient;
  now: () => Date;
  /**
   * Where a source in the `notifications` mode hears about its POQ and Quote: the process's inbox and a hub
   * on the same inbox and registrations as the gathering's (the listeners are registered once per source
   * and shared). Without it (no `PUBLIC_BASE_URL`), such a source is polled, as gathering does then.
   */
  notifications?: { inbox: SonataNotificationInbox; hub: SonataHub } | null;
}

/** One order line to quote again. */
export interface SonataLineToRequote {
  /** The order line's id: the new POQ's and Quote's `externalId` (mapping P3, Q3). */
  id: string;
  orderTerms: SonataOrderTerms;
  /** The line's contract term (months); used when the terms hold no quoted term in `calendarMonths`. */
  contractTermMonths: number | null;
}

/**
 * Whether a line's seller quote has expired at `now`: its Quote's `validFor.endDateTime` (MEF 115 Quote
 * 8.0.1 `validFor`: "only the endDateTime attribute must be used") lies before `now`. A quote without one
 * (the seller said none) never expires here.
 */
export function sonataQuoteExpired(terms: SonataOrderTerms, now: Date): boolean {
  const end = terms.validFor?.endDateTime;
  if (!end) return false;
  const at = Date.parse(end);
  return Number.isFinite(at) && at < now.getTime();
}

/** The bandwidth envelopes of a stored MEF 139 configuration, as the gathering built it (mapping P10/P11). */
const storedBandwidthSchema = z.looseObject({
  ipUniAccessLink: z.looseObject({
    egressBwpEnvelope: z.tuple(
      [z.looseObject({ maxIr: z.object({ irValue: z.number(), irUnits: z.string() }) })],
      z.unknown(),
    ),
    ingressBwpEnvelope: z.tuple(
      [z.looseObject({ maxIr: z.object({ irValue: z.number(), irUnits: z.string() }) })],
      z.unknown(),
    ),
  }),
});

/**
 * Asks the seller for a new quote of one line whose quote expired, the way the source gathers
 * (docs/mef-sonata-mapping.md §0): a new POQ for the line's configuration at its place, then a firm Quote at
 * its term naming that POQ's item — instantly, or deferred and then polled or, for a source in the
 * `notifications` mode with {@link SonataRequoteDeps.notifications}, awaited through its hub events (the
 * gathering's `qualifyAndQuote`). A new POQ is made every time: MEF 87 guarantees a qualification only until
 * its `guaranteedUntilDate`, which is not kept with the line, and a Quote naming a lapsed one may be refused.
 *
 * What is sent is what the line was quoted for: the offering (`productOfferingId`), the configuration
 * (`productConfiguration`, as stored) and the place (`place[0]`); the term is the quoted one
 * (`itemTerm.duration` in `calendarMonths`), else the line's `contractTermMonths`, else 12 (as the order
 * asks). The answer is read as the gathering reads it (prices before tax, minor units; B4–B14).
 *
 * Every call runs within `scope` (its deadline bounds the whole: a deferred seller is polled until the
 * scope's deadline at most); give it a deadline of its own rather than the one the placement uses.
 *
 * @throws {SourceError} as the gathering's calls throw them, keeping their `retryable` flag (`TIMEOUT`,
 *   `UPSTREAM_5XX`, `UNREACHABLE`, … retryable; 4xx not), free of the client secret; when the seller answered
 *   without a price for the line, the gathering's own non-retryable codes (`SONATA_NOT_SERVICEABLE`,
 *   `SONATA_POQ_TERMINATED`, `SONATA_UNABLE_TO_PROVIDE`, `SONATA_QUOTE_UNABLE_TO_PROVIDE`, `SONATA_NO_PRICE`,
 *   `INVALID_RESPONSE`); `NOT_CONFIGURED` when the source no longer has the line's offering;
 *   `INVALID_ORDER_TERMS` when the terms lack a place or a readable bandwidth. Rejects with the scope's query
 *   signal's reason when that aborts.
 */
export async function requoteSonataLine(
  deps: SonataRequoteDeps,
  scope: SonataCallScope,
  settings: SonataSourceSettings,
  line: SonataLineToRequote,
): Promise<SonataRequote> {
  try {
    const { orderTerms: terms } = line;
    const scoped: SonataCallScope = { ...scope, settings };
    const candidate = candidateOf(terms, settings);
    const [place] = terms.place;
    if (!place) throw invalidTerms('names no install place');
    const months = termMonths(terms, line.contractTermMonths);
    const notifications = deps.notifications ?? null;
    const listeners =
      notifications && settings.interaction === 'notifications'
        ? await notifications.hub.listeners(scoped)
        : null;
    const gathering = await qualifyAndQuote(
      {
        client: deps.client,
        scope: scoped,
        notifications: notifications && listeners ? { inbox: notifications.inbox, listeners } : null,
        place,
        now: deps.now,
      },
      line.id,
      [candidate],
      () => [months],
    );
    const [offer] = gathering.offers;
    if (offer?.orderTerms?.kind !== 'mef-sonata') {
      throw (
        emptyGatheringError(gathering) ??
        new SourceError('SONATA_NO_PRICE', 'The seller quoted the line without a price.', false)
      );
    }
    return {
      terms: offer.orderTerms,
      mrcMinor: offer.purchaseMrcMinor,
      nrcMinor: offer.purchaseNrcMinor,
      currency: offer.currency,
      contractTermMonths: offer.contractTermMonths,
    };
  } catch (error) {
    if (scope.querySignal.aborted) throw scope.querySignal.reason;
    throw error instanceof SourceError ? withoutSecret(error, settings.oauth2.clientSecret) : error;
  }
}

/** The one thing to qualify and quote again: the line's offering, bandwidth and stored configuration. */
function candidateOf(terms: SonataOrderTerms, settings: SonataSourceSettings): Candidate {
  const offering = settings.productOfferings.find(
    (each) => each.productOfferingId === terms.productOfferingId,
  );
  if (!offering) {
    throw new SourceError(
      'NOT_CONFIGURED',
      `The source no longer has the product offering ${terms.productOfferingId} the line was quoted for.`,
      false,
    );
  }
  const parsed = storedBandwidthSchema.safeParse(terms.productConfiguration);
  const link = parsed.success ? parsed.data.ipUniAccessLink : null;
  const downloadKbps = link ? informationRateKbps(link.egressBwpEnvelope[0].maxIr) : null;
  const uploadKbps = link ? informationRateKbps(link.ingressBwpEnvelope[0].maxIr) : null;
  if (downloadKbps === null || uploadKbps === null) {
    throw invalidTerms('have no bandwidth (ipUniAccessLink maxIr) in whole kbps');
  }
  return {
    itemId: '1',
    offering,
    downloadKbps,
    uploadKbps,
    configuration: terms.productConfiguration,
  };
}

/** The term to ask for (months): the quoted one in `calendarMonths`, else the line's, else 12. */
function termMonths(terms: SonataOrderTerms, lineMonths: number | null): number {
  const duration = terms.itemTerm?.duration;
  if (duration?.units === 'calendarMonths' && Number.isInteger(duration.amount) && duration.amount > 0) {
    return duration.amount;
  }
  return lineMonths ?? 12;
}

function invalidTerms(what: string): SourceError {
  return new SourceError('INVALID_ORDER_TERMS', `The line's order terms ${what}.`, false);
}
