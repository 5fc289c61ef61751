import type { StoredFilters } from '../db/rows.js';
import type { SourceOffer } from './sources/types.js';

/**
 * Whether an offer satisfies a request's filters. Each filter that is not empty must contain the
 * offer's value; bandwidths match as exact download/upload pairs (kbps), as the options publish them.
 */
export function offerMatchesFilters(offer: SourceOffer, filters: StoredFilters): boolean {
  const allows = <T>(values: readonly T[], value: T) => values.length === 0 || values.includes(value);
  return (
    allows(filters.networks, offer.network) &&
    allows(filters.technologyTypes, offer.technologyType) &&
    allows(filters.connectionTypes, offer.connectionType) &&
    allows(filters.contractTerms, offer.contractTermMonths) &&
    (filters.bandwidths.length === 0 ||
      filters.bandwidths.some((b) => b.download === offer.downloadKbps && b.upload === offer.uploadKbps))
  );
}

/** Whether a source of `network` is worth asking under the request's network filter. */
export function sourceMatchesFilters(network: string, filters: StoredFilters): boolean {
  return filters.networks.length === 0 || filters.networks.includes(network);
}
