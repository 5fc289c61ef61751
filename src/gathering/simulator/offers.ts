import type { CatalogFile } from '../sources/catalog-file.js';
import type { SupplierRequest, SupplierResponse } from '../sources/supplier-contract.js';

/**
 * Offers a simulated supplier answers with: the offers of one source of a catalogue file for the areas
 * that cover the address (postal-code prefix ranges, else the first area naming its city), in major units.
 */
export function simulatedOffers(
  catalog: CatalogFile,
  sourceKey: string,
  request: SupplierRequest,
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
