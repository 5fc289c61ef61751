import type { CatalogFile } from '../../sources/catalog-file.js';
import type { SupplierRequest, SupplierResponse } from '../../sources/supplier-contract.js';
import { simulatedOffers } from '../offers.js';

/** Default prefix of the simulated sellers' product offering ids (issue 18: `basic-internet-access`). */
export const DEFAULT_OFFERING_PREFIX = 'basic-internet-access';

/**
 * One product offering of a simulated seller, as a buyer learns it at onboarding (MEF 87
 * `ProductOfferingRef`: "ids are exchanged during the onboarding process"): the MEF 139 Basic Internet Access
 * product for one technology type and connection type, with the bandwidths (kbps) and contract terms
 * (months) the seller's catalogue holds for it anywhere.
 */
export interface SonataProductOffering {
  productOfferingId: string;
  technologyType: string;
  connectionType: string;
  bandwidths: { download: number; upload: number }[];
  contractTerms: number[];
}

/** An offer deliverable at a place: one catalogue offer for one contract term, prices in major units. */
export type PlacedOffer = SupplierResponse['offers'][number];

/** The place a seller qualifies: the catalogue's coverage is by postal code, else by city. */
export interface SellerPlace {
  countryCode: string;
  postalCode: string;
  city: string;
}

/** `basic-internet-access-ftth-shared`: the offering id of one technology and connection type. */
export function offeringId(prefix: string, technologyType: string, connectionType: string): string {
  return `${prefix}-${technologyType}-${connectionType}`.toLowerCase();
}

/**
 * The product offerings of one source of a catalogue (one per technology type and connection type, in
 * catalogue order), with ids `<prefix>-<technology>-<connection>` in lower case. Empty for an unknown key.
 */
export function sonataProductOfferings(
  catalog: CatalogFile,
  sourceKey: string,
  prefix = DEFAULT_OFFERING_PREFIX,
): SonataProductOffering[] {
  const offerings = new Map<string, SonataProductOffering>();
  for (const offer of catalog.offers.filter((candidate) => candidate.source === sourceKey)) {
    const id = offeringId(prefix, offer.technology_type, offer.connection_type);
    const offering = offerings.get(id) ?? {
      productOfferingId: id,
      technologyType: offer.technology_type,
      connectionType: offer.connection_type,
      bandwidths: [],
      contractTerms: [],
    };
    offerings.set(id, offering);
    if (
      !offering.bandwidths.some(
        (b) => b.download === offer.bandwidth.download && b.upload === offer.bandwidth.upload,
      )
    )
      offering.bandwidths.push({ ...offer.bandwidth });
    for (const term of Object.keys(offer.prices).map(Number))
      if (!offering.contractTerms.includes(term)) offering.contractTerms.push(term);
  }
  for (const offering of offerings.values()) offering.contractTerms.sort((a, b) => a - b);
  return [...offerings.values()];
}

/**
 * The offers of one source deliverable at a place, one per contract term, through the same coverage rule as
 * the `http` simulator ({@link simulatedOffers}); none outside the Netherlands, the demo catalogue's country.
 */
export function offersAtPlace(catalog: CatalogFile, sourceKey: string, place: SellerPlace): PlacedOffer[] {
  if (place.countryCode !== catalog.country_code) return [];
  const request: SupplierRequest = {
    request_id: 'sonata',
    address: {
      country_code: place.countryCode,
      postal_code: place.postalCode,
      house_number: '',
      house_number_addition: '',
      street: '',
      city: place.city,
      coordinates: null,
    },
    filters: { bandwidths: [], networks: [], contract_terms: [], connection_types: [], technology_types: [] },
  };
  return simulatedOffers(catalog, sourceKey, request);
}

/** What a POQ or quote item asks for: an offering id and, when given, a bandwidth pair in kbps. */
export interface ItemWish {
  productOfferingId: string;
  downloadKbps: number | null;
  uploadKbps: number | null;
}

/**
 * The placed offers an item's wish matches: same technology and connection type as the offering (any, for the
 * bare prefix, the technology-neutral offering) and the bandwidth when the item names one.
 * Returns null when the offering id is not one of the seller's.
 */
export function matchingOffers(
  offerings: SonataProductOffering[],
  prefix: string,
  placed: PlacedOffer[],
  wish: ItemWish,
): PlacedOffer[] | null {
  const offering = offerings.find((candidate) => candidate.productOfferingId === wish.productOfferingId);
  if (!offering && wish.productOfferingId !== prefix) return null;
  return placed.filter(
    (offer) =>
      (!offering ||
        (offer.technology_type === offering.technologyType &&
          offer.connection_type === offering.connectionType)) &&
      (wish.downloadKbps === null || offer.bandwidth.download === wish.downloadKbps) &&
      (wish.uploadKbps === null || offer.bandwidth.upload === wish.uploadKbps),
  );
}

/**
 * The contract term a seller quotes for a requested one: the closest it offers (MEF 115 R40), the shorter on a
 * tie, since the buyer names the longest term it accepts (`MEFItemTerm` description).
 */
export function closestTerm(offered: number[], requested: number): number | null {
  let best: number | null = null;
  for (const term of [...offered].sort((a, b) => a - b)) {
    if (best === null || Math.abs(term - requested) < Math.abs(best - requested)) best = term;
  }
  return best;
}
