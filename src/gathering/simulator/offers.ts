import type { CatalogFile } from '../sources/catalog-file.js';
import type { SupplierRequest, SupplierResponse } from '../sources/supplier-contract.js';

type CatalogOffer = CatalogFile['offers'][number];

/**
 * The `id` a simulated supplier gives an offer of its catalogue for one contract term: stable, and read back
 * by {@link simulatedOfferOf} when the offer is ordered, e.g. `kpn-wba-fiber-dia-100000-100000-36`.
 */
export function simulatedOfferId(sourceKey: string, offer: CatalogOffer, term: number): string {
  const { download, upload } = offer.bandwidth;
  return [sourceKey, offer.technology_type, offer.connection_type, download, upload, term]
    .join('-')
    .toLowerCase();
}

/** Whether a simulated supplier offers `offerId` (one of {@link simulatedOfferId}'s) anywhere. */
export function simulatedOfferOf(catalog: CatalogFile, sourceKey: string, offerId: string): boolean {
  return catalog.offers.some(
    (offer) =>
      offer.source === sourceKey &&
      Object.keys(offer.prices).some((term) => simulatedOfferId(sourceKey, offer, Number(term)) === offerId),
  );
}

/**
 * Offers a simulated supplier answers with: the offers of one source of a catalogue file for the areas
 * that cover the address (postal-code prefix ranges, else the first area naming its city), in major units,
 * each with its {@link simulatedOfferId} unless `ids` is false (a supplier that takes no orders).
 */
export function simulatedOffers(
  catalog: CatalogFile,
  sourceKey: string,
  request: SupplierRequest,
  options: { ids?: boolean } = {},
): SupplierResponse['offers'] {
  const source = catalog.sources.find((candidate) => candidate.key === sourceKey);
  if (!source) return [];
  const postalCode = request.address.postal_code.replace(/\s+/g, '').toUpperCase();
  const city = request.address.city.toLowerCase();
  const covering = new Set(
    postalCode !== ''
      ? catalog.areas
          .filter((area) =>
            area.postal_code_ranges.some(
              ([from, to]) =>
                postalCode.slice(0, from.length) >= from && postalCode.slice(0, to.length) <= to,
            ),
          )
          .map((area) => area.key)
      : catalog.areas
          .filter((area) => area.cities.some((name) => name.toLowerCase() === city))
          .slice(0, 1)
          .map((area) => area.key),
  );
  const divisor = 100;
  return catalog.offers
    .filter((offer) => offer.source === sourceKey)
    .filter((offer) => offer.areas === '*' || offer.areas.some((area) => covering.has(area)))
    .flatMap((offer) =>
      Object.entries(offer.prices).map(([term, price]) => ({
        ...(options.ids === false ? {} : { id: simulatedOfferId(sourceKey, offer, Number(term)) }),
        network: source.network,
        technology_type: offer.technology_type,
        connection_type: offer.connection_type,
        bandwidth: offer.bandwidth,
        contract_term: Number(term),
        mrc: price.mrc / divisor,
        nrc: price.nrc / divisor,
        currency: catalog.currency,
        lead_time_days: offer.connection_type === 'DIA' ? 45 : 10,
      })),
    );
}
