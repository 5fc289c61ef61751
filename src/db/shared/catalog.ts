/**
 * What both stores' catalogue queries share that is not SQL: the rows a catalogue import writes, a new
 * source's row, new instance products' rows.
 */
import { newId } from '../../ids.js';
import type {
  CatalogImport,
  CatalogOfferRow,
  InstanceProductRow,
  NewInstanceProduct,
  NewSource,
  SourceRow,
} from '../contract/index.js';

/** A catalogue source's row; the columns left out take their defaults (enabled, no endpoint, …). */
export type CatalogSourceRow = Pick<
  SourceRow,
  | 'id'
  | 'instanceId'
  | 'key'
  | 'name'
  | 'network'
  | 'type'
  | 'countryCodes'
  | 'latencyMinMs'
  | 'latencyMaxMs'
  | 'createdAt'
  | 'updatedAt'
>;

/** The rows of an imported catalogue, each kind in file order (range and city ids are the database's). */
export interface CatalogImportRows {
  sources: CatalogSourceRow[];
  areas: {
    id: string;
    instanceId: string;
    key: string;
    name: string;
    countryCode: string;
    position: number;
  }[];
  ranges: { areaId: string; fromPrefix: string; toPrefix: string }[];
  cities: { areaId: string; cityLower: string }[];
  offers: CatalogOfferRow[];
}

/**
 * The rows `importCatalog` writes for `catalog`, with new ids: its sources (type `catalog`, answering for
 * the file's country), its areas at their file positions with their postal-code ranges and (lowercased)
 * cities, and {@link catalogOfferRows}.
 *
 * @throws Error for an offer of a source key the file does not declare (the import's transaction rolls back).
 */
export function catalogImportRows(instanceId: string, catalog: CatalogImport, now: Date): CatalogImportRows {
  const sourceIds = new Map<string, string>();
  const sources = catalog.sources.map((source): CatalogSourceRow => {
    const id = newId('source');
    sourceIds.set(source.key, id);
    return {
      id,
      instanceId,
      key: source.key,
      name: source.name,
      network: source.network,
      type: 'catalog',
      countryCodes: [catalog.country_code],
      latencyMinMs: source.latency_ms.min,
      latencyMaxMs: source.latency_ms.max,
      createdAt: now,
      updatedAt: now,
    };
  });
  const areaIds = new Map<string, string>();
  const rows: Omit<CatalogImportRows, 'sources' | 'offers'> = { areas: [], ranges: [], cities: [] };
  catalog.areas.forEach((area, position) => {
    const areaId = newId('catalogArea');
    areaIds.set(area.key, areaId);
    rows.areas.push({
      id: areaId,
      instanceId,
      key: area.key,
      name: area.name,
      countryCode: catalog.country_code,
      position,
    });
    for (const [fromPrefix, toPrefix] of area.postal_code_ranges)
      rows.ranges.push({ areaId, fromPrefix, toPrefix });
    for (const city of area.cities) rows.cities.push({ areaId, cityLower: city.toLowerCase() });
  });
  const offers = catalogOfferRows(instanceId, catalog, sourceIds, areaIds, now);
  return { sources, ...rows, offers };
}

/**
 * The `catalog_offers` rows of a catalogue file: one row per offer, area (`'*'` is every area: a null area
 * id) and contract term, with purchase prices in minor units.
 *
 * @param sourceIds the new id of each source key of the file.
 * @param areaIds the new id of each area key of the file (an unknown key becomes a null area).
 * @throws Error for an offer of a source key the file does not declare.
 */
function catalogOfferRows(
  instanceId: string,
  catalog: CatalogImport,
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

/** The row of a source `insertSource` registers: a new id, no latency, no hub listeners yet. */
export function newSourceRow(instanceId: string, input: NewSource, now: Date): SourceRow {
  return {
    ...input,
    id: newId('source'),
    instanceId,
    latencyMinMs: 0,
    latencyMaxMs: 0,
    settings: input.settings ?? null,
    hubListeners: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The rows of new instance products, in order. Mandatory products get the `mpr_` id prefix and the others
 * `ipr_`, so a quote's `mandatory_product_ids` and `instance_product_ids` can never be mixed up.
 */
export function newInstanceProductRows(
  instanceId: string,
  products: readonly NewInstanceProduct[],
  now: Date,
): InstanceProductRow[] {
  return products.map((product) => ({
    ...product,
    id: newId(product.mandatory ? 'mandatoryProduct' : 'instanceProduct'),
    instanceId,
    createdAt: now,
    updatedAt: now,
  }));
}

/**
 * `rows` in slices of at most `size`, for multi-row inserts of a catalogue import: 500 offers of 14 columns
 * stay far below either database's limit of bound parameters (SQLite 32,766, PostgreSQL 65,535).
 */
export function* chunks<R>(rows: readonly R[], size = 500): Generator<R[]> {
  for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
}
