import type { SourceOffer, SourceQuery } from '../types.js';
import {
  type Poq,
  type PoqItem,
  poqExpectedAt,
  poqIsFinal,
  poqSchema,
  type Quote,
  quoteExpectedAt,
  quoteIsFinal,
  quoteSchema,
} from './answers.js';
import type { SonataCallScope, SonataClient } from './client.js';
import { createAndAwait } from './deferred.js';
import type { SonataHubListeners } from './hub.js';
import type { SonataNotificationInbox } from './inbox.js';
import {
  describeTermination,
  isDeclined,
  offerFromQuoteItem,
  type QuoteOrdering,
  type SonataDeclinedItem,
} from './offers.js';
import {
  type Candidate,
  candidatesFor,
  poqCreateBody,
  type QuoteWish,
  quoteCreateBody,
  termsFor,
} from './requests.js';

/**
 * What one query gathered from a Sonata seller: the offers, the items the seller answered without one
 * (recorded, not invented), and the final states of the POQ and Quote (null when not sent).
 */
export interface SonataGathering {
  offers: SourceOffer[];
  declined: SonataDeclinedItem[];
  poq: { id: string; state: string; terminationErrors: string } | null;
  quote: { id: string; state: string } | null;
}

/** Quote states whose items are read for prices (mapping B2; `accepted` follows the buyer's own accept). */
const ANSWERED_QUOTE_STATES = ['approved.orderable', 'approved.orderableAlternate', 'answered', 'accepted'];

/** What asking a seller needs: the client, the call scope (its source and settings), where answers come from. */
export interface AskContext {
  client: SonataClient;
  scope: SonataCallScope;
  /** The inbox and the source's hub listeners in the notifications mode; null otherwise. */
  notifications: { inbox: SonataNotificationInbox; listeners: SonataHubListeners } | null;
  /** The install place (mapping P14–P21). */
  place: Record<string, unknown>;
  now: () => Date;
}

/** What one gathering needs: the seller context and the query. */
export interface GatherContext extends AskContext {
  query: SourceQuery;
}

/**
 * POQ then Quote for one query (docs/mef-sonata-mapping.md §0): qualify every candidate, quote every
 * qualified one at each contract term, map each priced quote item to an offer.
 *
 * @throws {SourceError} of the calls (see `SonataClient.call`), `TIMEOUT` at the deadline.
 */
export async function gatherFromSeller(context: GatherContext): Promise<SonataGathering> {
  const { scope, query } = context;
  const candidates = candidatesFor(scope.settings.productOfferings, query.request.filters);
  return qualifyAndQuote(context, query.request.id, candidates, (candidate) =>
    termsFor(candidate, query.request.filters),
  );
}

/**
 * POQ then Quote for given candidates (mapping §0, P1–P22, Q1–Q11): one POQ qualifying every candidate, then
 * one Quote with an item per qualified candidate and each of its `termsOf` (months), each priced quote item
 * mapped to an offer (B1–B14), the rest declined. Sent instantly or deferred as the source's `interaction`
 * says; a deferred answer is awaited through the inbox when `context.notifications` holds the listeners, else
 * polled — everything within the scope's deadline. The gathering asks for a query's candidates; ordering asks
 * again for one expired quote line (src/ordering/sonata-requote.ts).
 *
 * @param externalId the POQ's and Quote's `externalId` (P3, Q3).
 * @throws {SourceError} of the calls (see `SonataClient.call`), `TIMEOUT` at the deadline.
 */
export async function qualifyAndQuote(
  context: AskContext,
  externalId: string,
  candidates: readonly Candidate[],
  termsOf: (candidate: Candidate) => number[],
): Promise<SonataGathering> {
  const { scope } = context;
  const result: SonataGathering = { offers: [], declined: [], poq: null, quote: null };
  if (candidates.length === 0) return result;
  const timing = {
    instant: scope.settings.interaction === 'instant',
    completionBy: new Date(context.now().getTime() + scope.source.timeoutMs),
  };
  const poq = await createAndAwait(
    context.client,
    scope,
    {
      api: 'poq',
      collection: '/productOfferingQualification',
      body: poqCreateBody(scope.settings, externalId, candidates, context.place, timing),
      what: 'POQ',
      schema: poqSchema,
      isFinal: poqIsFinal,
      expectedAt: poqExpectedAt,
      inbox: context.notifications?.listeners.poq ? context.notifications.inbox : null,
    },
    context.now,
  );
  result.poq = {
    id: poq.id,
    state: poq.state,
    terminationErrors: describeTermination(
      poq.productOfferingQualificationItem.flatMap((item) => item.terminationError ?? []),
    ),
  };
  if (poq.state !== 'done.ready') return result;
  const qualified = qualifiedCandidates(poq, candidates, result.declined);
  if (qualified.length === 0) return result;
  const wishes: QuoteWish[] = qualified.flatMap((candidate) =>
    termsOf(candidate).map((termMonths) => ({ itemId: '', candidate, termMonths })),
  );
  wishes.forEach((wish, index) => {
    wish.itemId = String(index + 1);
  });
  const quote = await createAndAwait(
    context.client,
    scope,
    {
      api: 'quote',
      collection: '/quote',
      body: quoteCreateBody(scope.settings, externalId, poq.id, wishes, context.place, timing),
      what: 'Quote',
      schema: quoteSchema,
      isFinal: quoteIsFinal,
      expectedAt: quoteExpectedAt,
      inbox: context.notifications?.listeners.quote ? context.notifications.inbox : null,
    },
    context.now,
  );
  result.quote = { id: quote.id, state: quote.state };
  mapQuote(context, poq.id, quote, wishes, result);
  return result;
}

/**
 * The candidates a `done.ready` POQ qualified (item `done.ready` with `green` or `yellow`; mapping A4–A7);
 * the others are added to `declined`.
 */
function qualifiedCandidates(
  poq: Poq,
  candidates: readonly Candidate[],
  declined: SonataDeclinedItem[],
): Candidate[] {
  const items = new Map<string, PoqItem>(poq.productOfferingQualificationItem.map((item) => [item.id, item]));
  const qualified: Candidate[] = [];
  for (const candidate of candidates) {
    const item = items.get(candidate.itemId);
    const decline = (reason: SonataDeclinedItem['reason'], detail: string) =>
      declined.push({
        stage: 'poq',
        reason,
        productOfferingId: candidate.offering.productOfferingId,
        downloadKbps: candidate.downloadKbps,
        uploadKbps: candidate.uploadKbps,
        contractTermMonths: null,
        detail,
      });
    if (!item) {
      decline('unusableAnswer', `POQ item ${candidate.itemId} is missing from the answer`);
    } else if (item.state === 'done.ready' && item.serviceabilityConfidence === 'red') {
      decline('notServiceable', 'POQ item done.ready, serviceabilityConfidence red');
    } else if (item.state === 'done.ready' && item.serviceabilityConfidence) {
      qualified.push(candidate);
    } else if (item.state === 'terminatedWithError') {
      decline('terminated', `POQ item terminatedWithError: ${describeTermination(item.terminationError)}`);
    } else if (item.state === 'done.abandoned') {
      decline('abandoned', 'POQ item done.abandoned');
    } else {
      decline('unusableAnswer', `POQ item ${item.state} without a serviceability confidence`);
    }
  }
  return qualified;
}

/** Maps a final quote's items onto offers (mapping B2–B14), declining the rest. */
function mapQuote(
  context: AskContext,
  poqId: string,
  quote: Quote,
  wishes: QuoteWish[],
  result: SonataGathering,
): void {
  const items = new Map(quote.quoteItem.map((item) => [item.id, item]));
  const ordering: QuoteOrdering = {
    poqId,
    quoteId: quote.id,
    place: context.place,
    validFor: quote.validFor
      ? {
          startDateTime: quote.validFor.startDateTime ?? null,
          endDateTime: quote.validFor.endDateTime ?? null,
        }
      : null,
  };
  const answered = ANSWERED_QUOTE_STATES.includes(quote.state);
  for (const wish of wishes) {
    const item = items.get(wish.itemId);
    const decline = (reason: SonataDeclinedItem['reason'], detail: string) =>
      result.declined.push({
        stage: 'quote',
        reason,
        productOfferingId: wish.candidate.offering.productOfferingId,
        downloadKbps: wish.candidate.downloadKbps,
        uploadKbps: wish.candidate.uploadKbps,
        contractTermMonths: wish.termMonths,
        detail,
      });
    if (!answered) {
      const why = item ? describeTermination(item.terminationError) : '';
      decline('unableToProvide', `quote ${quote.state}${why ? `: ${why}` : ''}`);
    } else if (!item) {
      decline('unusableAnswer', `quote item ${wish.itemId} is missing from the answer`);
    } else {
      const mapped = offerFromQuoteItem(
        context.scope.source,
        context.scope.settings.productOfferings,
        wish,
        item,
        ordering,
      );
      if (isDeclined(mapped)) result.declined.push(mapped);
      else result.offers.push(mapped);
    }
  }
}
