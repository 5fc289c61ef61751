import { isDeepStrictEqual } from 'node:util';
import type { ProductRow, SonataItemTerm } from '../../../../src/db/rows.js';
import type { Store } from '../../../../src/db/store.js';
import type { SonataExchange } from '../../../../src/gathering/simulator/sonata/server.js';
import type { SourceOffer } from '../../../../src/gathering/sources/types.js';
import { storedRows } from '../../../helpers/store.js';
import { configuration } from './fixtures.js';

/*
 * What the tests of the order terms a Sonata product keeps share: the install places the adapter sends,
 * the seller's POQ and Quote answers, and the offers with their exact terms.
 */

type Json = Record<string, unknown>;

/** P14–P20: the install place the adapter sends for `exampleAddress` (fixtures.ts). */
export const exampleInstallPlace = {
  '@type': 'FieldedAddress',
  role: 'INSTALL_LOCATION',
  streetName: 'Lijnbaansgracht',
  streetNr: '206',
  streetNrSuffix: 'H',
  postcode: '1016XA',
  city: 'Amsterdam',
  country: 'NL',
};

/** P21: the install place the adapter sends for `coordinateAddress` (fixtures.ts). */
export const coordinateInstallPlace = {
  '@type': 'MEFGeographicPoint',
  role: 'INSTALL_LOCATION',
  spatialRef: 'EPSG:4326 WGS 84',
  x: '52.36801',
  y: '4.879151',
};

/** The POQ and the Quote of one query as the seller last showed them (its create answer or a later read). */
export interface SellerAnswers {
  poq: Json;
  quote: Json;
}

const POQ_RESOURCE = /\/productOfferingQualification\/v7\/productOfferingQualification(\/[^/]+)?$/;
const QUOTE_RESOURCE = /\/quoteManagement\/v8\/quote(\/[^/]+)?$/;

/**
 * The seller's last POQ and Quote answers among `exchanges`: those of the request `externalId` when given (a
 * seller asked about several requests), else of the latest query.
 */
export function sellerAnswers(exchanges: readonly SonataExchange[], externalId?: string): SellerAnswers {
  const last = (resource: RegExp): Json => {
    const answer = exchanges
      .filter((exchange) => resource.test(exchange.path) && [200, 201].includes(exchange.status))
      .map((exchange) => exchange.responseBody as Json)
      .filter((body) => externalId === undefined || body.externalId === externalId)
      .at(-1);
    if (!answer)
      throw new Error(`the seller answered no ${resource.source} for ${externalId ?? 'any request'}`);
    return answer;
  };
  return { poq: last(POQ_RESOURCE), quote: last(QUOTE_RESOURCE) };
}

/** The `MEFItemTerm` the simulator quotes for a term of `months`: rolling monthly at its end (as asked, Q10). */
export function rollingTerm(months: number): SonataItemTerm {
  return {
    name: `${months} months`,
    duration: { amount: months, units: 'calendarMonths' },
    endOfTermAction: 'roll',
    rollInterval: { amount: 1, units: 'calendarMonths' },
  };
}

interface AnsweredQuoteItem {
  id: string;
  product: { productOffering: { id: string }; productConfiguration: unknown };
  quoteItemTerm?: { duration: { amount: number } }[];
  productOfferingQualificationItem: { id: string };
}

/**
 * `offers` (of a simulated seller) with the order terms the adapter should keep for each: the POQ and Quote
 * the seller answered; the quote item that quoted the offer's offering (`basic-internet-access-<technology>-
 * <connection>`), configuration (P9–P13) and term, and the POQ item it names; the simulator's rolling term;
 * `place` as sent; the Quote's `validFor` (the simulator gives its end only).
 */
export function withOrderTerms(
  offers: readonly SourceOffer[],
  answers: SellerAnswers,
  place: Json,
): SourceOffer[] {
  const items = answers.quote.quoteItem as AnsweredQuoteItem[];
  const validFor = answers.quote.validFor as { endDateTime?: string } | undefined;
  if (!validFor?.endDateTime)
    throw new Error('the simulated seller priced a Quote without validFor.endDateTime');
  const { endDateTime } = validFor;
  return offers.map((offer) => {
    const productOfferingId =
      `basic-internet-access-${offer.technologyType}-${offer.connectionType}`.toLowerCase();
    const productConfiguration = configuration(
      offer.downloadKbps,
      offer.uploadKbps,
      offer.connectionType as 'DIA' | 'SHARED',
    );
    const quoting = items.filter(
      (item) =>
        item.product.productOffering.id === productOfferingId &&
        isDeepStrictEqual(item.product.productConfiguration, productConfiguration) &&
        item.quoteItemTerm?.[0]?.duration.amount === offer.contractTermMonths,
    );
    const [item] = quoting;
    if (!item || quoting.length > 1) {
      throw new Error(
        `${quoting.length} quote items quote ${productOfferingId} at ${offer.downloadKbps} kbps`,
      );
    }
    return {
      ...offer,
      orderTerms: {
        kind: 'mef-sonata',
        poqId: answers.poq.id as string,
        poqItemId: item.productOfferingQualificationItem.id,
        quoteId: answers.quote.id as string,
        quoteItemId: item.id,
        productOfferingId,
        itemTerm: rollingTerm(offer.contractTermMonths),
        productConfiguration,
        place: [place],
        validFor: { startDateTime: null, endDateTime },
      },
    };
  });
}

/** The products the store keeps for a request from one source, as the offers they came from. */
export async function storedOffers(
  store: Store,
  requestId: string,
  sourceId: string,
): Promise<SourceOffer[]> {
  const rows = (await storedRows(store, 'availabilityRequestProducts', {
    availabilityRequestId: requestId,
    sourceId,
  })) as ProductRow[];
  return rows.map((row) => ({
    network: row.network,
    technologyType: row.technologyType,
    connectionType: row.connectionType,
    downloadKbps: row.downloadKbps,
    uploadKbps: row.uploadKbps,
    contractTermMonths: row.contractTermMonths,
    purchaseMrcMinor: row.purchaseMrcMinor,
    purchaseNrcMinor: row.purchaseNrcMinor,
    currency: row.currency,
    orderTerms: row.orderTerms,
  }));
}
