import type { AddressRow, SonataItemTerm, StoredFilters } from '../../../db/rows.js';
import { isExactPlace } from '../../../geo/index.js';
import type { SonataProductOfferingSettings, SonataSourceSettings } from './settings.js';

/*
 * The bodies the buyer sends: POQ 7.0.1 `ProductOfferingQualification_Create` and Quote 8.0.1
 * `Quote_Create`, row by row as docs/mef-sonata-mapping.md §2 (P1–P22) and §3 (Q1–Q11) define them.
 */

/** `@type` of MEF 139 Basic Internet Access: the schema's `$id` (mapping P9). */
export const BASIC_INTERNET_ACCESS_TYPE = 'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all';
/** The install place's role (MEF 87 §6.3.4; mapping P14). */
export const INSTALL_ROLE = 'INSTALL_LOCATION';
/** `spatialRef` of a WGS 84 point (MEF 87 §6.3.4.3; mapping P21). */
export const WGS84_SPATIAL_REF = 'EPSG:4326 WGS 84';

/** One thing the buyer asks the seller about: an offering at one bandwidth (kbps). */
export interface Candidate {
  /** The POQ item id (`"1"`, `"2"`, …; mapping P6). */
  itemId: string;
  offering: SonataProductOfferingSettings;
  downloadKbps: number;
  uploadKbps: number;
  /**
   * The `MEFProductConfiguration` to send as it is, instead of the one {@link productConfiguration} builds:
   * a quote asked again for an order line sends the configuration its first quote was made for.
   */
  configuration?: Json;
}

type Json = Record<string, unknown>;

/**
 * The candidates of a request (mapping §2b): each configured offering whose technology and connection
 * type pass the request's filters, at each bandwidth of the filter (or, without one, of the offering).
 */
export function candidatesFor(
  offerings: readonly SonataProductOfferingSettings[],
  filters: StoredFilters,
): Candidate[] {
  const allows = (values: readonly string[], value: string) => values.length === 0 || values.includes(value);
  const candidates: Candidate[] = [];
  for (const offering of offerings) {
    if (!allows(filters.technologyTypes, offering.technologyType)) continue;
    if (!allows(filters.connectionTypes, offering.connectionType)) continue;
    const bandwidths = filters.bandwidths.length > 0 ? filters.bandwidths : offering.bandwidths;
    for (const bandwidth of bandwidths) {
      candidates.push({
        itemId: String(candidates.length + 1),
        offering,
        downloadKbps: bandwidth.download,
        uploadKbps: bandwidth.upload,
      });
    }
  }
  return candidates;
}

/** The contract terms to quote for a candidate (mapping §2b): the filter's, else the offering's. */
export function termsFor(candidate: Candidate, filters: StoredFilters): number[] {
  return filters.contractTerms.length > 0
    ? [...filters.contractTerms]
    : [...candidate.offering.contractTerms];
}

/**
 * The install place (mapping P14–P22): a `FieldedAddress` when the address record has a street, else a
 * `MEFGeographicPoint` when its coordinates are the place itself (precision `given` or `address`), else null
 * (no POQ can be asked). A postal-code-area or city centre is never sent: a seller would qualify the wrong
 * building (issue 32).
 */
export function installPlace(address: AddressRow): Json | null {
  if (address.street !== '') {
    return {
      '@type': 'FieldedAddress',
      role: INSTALL_ROLE,
      streetName: address.street,
      ...(address.houseNumber !== '' ? { streetNr: address.houseNumber } : {}),
      ...(address.houseNumberAddition !== '' ? { streetNrSuffix: address.houseNumberAddition } : {}),
      ...(address.postalCode !== '' ? { postcode: address.postalCode } : {}),
      city: address.city,
      country: address.countryCode,
    };
  }
  if (address.latitude !== null && address.longitude !== null && isExactPlace(address.coordinatesPrecision)) {
    return {
      '@type': 'MEFGeographicPoint',
      role: INSTALL_ROLE,
      spatialRef: WGS84_SPATIAL_REF,
      x: String(address.latitude),
      y: String(address.longitude),
    };
  }
  return null;
}

/** MEF 139 `InformationRate` for a rate in kbps, in Mbit/s (mapping P10/P11). */
function informationRate(kbps: number): { irValue: number; irUnits: 'MBPS' } {
  return { irValue: kbps / 1000, irUnits: 'MBPS' };
}

/**
 * The Basic Internet Access configuration of a candidate (mapping P9–P13): download as the UNI access
 * link's egress `maxIr`, upload as its ingress `maxIr`; `cir` equal to `maxIr` for `DIA` (committed), 0 for
 * `SHARED` (contended). The other components are required by the schema but nothing the gateway chooses.
 * A candidate's own `configuration` is returned as it is.
 */
export function productConfiguration(candidate: Candidate): Json {
  if (candidate.configuration) return candidate.configuration;
  const envelope = (kbps: number) => {
    const maxIr = informationRate(kbps);
    const cir = candidate.offering.connectionType === 'DIA' ? maxIr : { irValue: 0, irUnits: 'MBPS' };
    return [{ cir, maxIr }];
  };
  return {
    '@type': BASIC_INTERNET_ACCESS_TYPE,
    ipvc: { ipvcEndPoint: {} },
    ipUni: {},
    ipUniAccessLink: {
      egressBwpEnvelope: envelope(candidate.downloadKbps),
      ingressBwpEnvelope: envelope(candidate.uploadKbps),
    },
    ipUniAccessLinkTrunk: {},
  };
}

/** `RelatedContactInformation` of the buyer (mapping P5/Q5). */
function buyerContact(settings: SonataSourceSettings): Json {
  const { name, emailAddress, number, organization } = settings.buyerContact;
  return {
    role: 'buyerContactInformation',
    name,
    emailAddress,
    number,
    ...(organization ? { organization } : {}),
  };
}

/** What the create bodies share: instant or deferred (P1–P3, Q1, Q3, Q4). */
interface Timing {
  instant: boolean;
  /** The latest completion the buyer asks for in deferred mode (now + the source's timeout). */
  completionBy: Date;
}

/**
 * POQ 7.0.1 `ProductOfferingQualification_Create` (mapping P1–P21).
 *
 * @param externalId the availability request's id (P3).
 */
export function poqCreateBody(
  settings: SonataSourceSettings,
  externalId: string,
  candidates: readonly Candidate[],
  place: Json,
  timing: Timing,
): Json {
  return {
    instantSyncQualification: timing.instant,
    ...(timing.instant ? {} : { requestedPOQCompletionDate: timing.completionBy.toISOString() }),
    externalId,
    provideAlternative: false,
    relatedContactInformation: [buyerContact(settings)],
    productOfferingQualificationItem: candidates.map((candidate) => ({
      id: candidate.itemId,
      action: 'add',
      product: {
        productOffering: { id: candidate.offering.productOfferingId },
        productConfiguration: productConfiguration(candidate),
        place: [place],
      },
    })),
  };
}

/** One quote item the buyer asks for: a qualified candidate at one contract term. */
export interface QuoteWish {
  /** The quote item id (`"1"`, `"2"`, …; mapping Q6). */
  itemId: string;
  candidate: Candidate;
  termMonths: number;
}

/** `MEFItemTerm` for a term in months (mapping Q10). */
export function itemTerm(months: number): SonataItemTerm {
  return {
    duration: { amount: months, units: 'calendarMonths' },
    endOfTermAction: 'roll',
    rollInterval: { amount: 1, units: 'calendarMonths' },
    name: `${months} months`,
  };
}

/**
 * Quote 8.0.1 `Quote_Create` (mapping Q1–Q11): one firm quote item per qualified candidate and term,
 * naming the POQ item that qualified it.
 */
export function quoteCreateBody(
  settings: SonataSourceSettings,
  externalId: string,
  poqId: string,
  wishes: readonly QuoteWish[],
  place: Json,
  timing: Timing,
): Json {
  return {
    instantSyncQuote: timing.instant,
    buyerRequestedQuoteLevel: 'firm',
    ...(timing.instant ? {} : { requestedQuoteCompletionDate: timing.completionBy.toISOString() }),
    externalId,
    relatedContactInformation: [buyerContact(settings)],
    quoteItem: wishes.map((wish) => ({
      id: wish.itemId,
      action: 'add',
      product: {
        productOffering: { id: wish.candidate.offering.productOfferingId },
        productConfiguration: productConfiguration(wish.candidate),
        place: [place],
      },
      requestedQuoteItemTerm: itemTerm(wish.termMonths),
      productOfferingQualificationItem: {
        productOfferingQualificationId: poqId,
        id: wish.candidate.itemId,
      },
    })),
  };
}
