import type { CatalogFile } from '../gathering/sources/catalog-file.js';
import { newId } from '../ids.js';
import type { CatalogOfferRow } from './rows.js';

/**
 * The `catalog_offers` rows of a catalogue file, for both stores' `importCatalog`: one row per offer, area
 * (`'*'` is every area: a null area id) and contract term, with purchase prices in minor units.
 *
 * @param sourceIds the new id of each source key of the file.
 * @param areaIds the new id of each area key of the file (an unknown key becomes a null area).
 * @throws Error for an offer of a source key the file does not declare (the import's transaction rolls back).
 */
export function catalogOfferRows(
  instanceId: string,
  catalog: CatalogFile,
  sourceIds: ReadonlyMap<string, string>,
  areaIds: ReadonlyMap<string, string>,
  now: Date,
): CatalogOfferRow[] {
  const rows: CatalogOfferRow[] = [];
  for (const offer of catalog.offers) {
    const sourceId = sourceIds.get(offer.source);
    if (!sourceId) throw new Error(`unknown source ${offer.source}`);
    const offerAreas = offer.areas === '*' ? [null] : offer.areas.map((key) => areaIds.get(key) ?? null);
    for (const areaId of offerAreas) {
      for (const [term, price] of Object.entries(offer.prices)) {
        rows.push({
          id: newId('catalogOffer'),
          instanceId,
          sourceId,
          areaId,
          technologyType: offer.technology_type,
          connectionType: offer.connection_type,
          downloadKbps: offer.bandwidth.download,
          uploadKbps: offer.bandwidth.upload,
          contractTermMonths: Number(term),
          purchaseMrcMinor: price.mrc,
          purchaseNrcMinor: price.nrc,
          currency: catalog.currency,
          createdAt: now,
        });
      }
    }
  }
  return rows;
}
