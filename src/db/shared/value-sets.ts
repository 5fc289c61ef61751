import { LRUCache } from 'lru-cache';
import type { CatalogValueSets } from '../contract/index.js';

/** The value sets of no source: every list empty. */
export const noValueSets: CatalogValueSets = Object.freeze({
  technologyTypes: Object.freeze([]),
  connectionTypes: Object.freeze([]),
  bandwidths: Object.freeze([]),
  contractTerms: Object.freeze([]),
});

/**
 * The catalogue value sets already read, per database handle and list of source ids (at most 1,024 lists
 * per handle, the least recently used leaving first), for both stores' `catalogValueSets`.
 *
 * They never go stale, also with several gateway processes on one PostgreSQL database: a source's offers
 * are written only by `importCatalog`, in the transaction that creates the source (so a source id is only
 * ever seen together with all its offers), and never changed or deleted — so the value sets of a list of
 * source ids stay what they were when first read.
 *
 * `read(db, sourceIds, load)` answers the kept value sets, or `load()`s them (the four DISTINCT queries),
 * freezes them and keeps them; no sources at all answer {@link noValueSets} without loading.
 */
export function valueSetsCache<D extends object>() {
  const byHandle = new WeakMap<D, LRUCache<string, CatalogValueSets>>();
  return async (
    db: D,
    sourceIds: readonly string[],
    load: (sourceIdsJson: string) => Promise<CatalogValueSets>,
  ): Promise<CatalogValueSets> => {
    if (sourceIds.length === 0) return noValueSets;
    let cache = byHandle.get(db);
    if (!cache) {
      cache = new LRUCache({ max: 1024 });
      byHandle.set(db, cache);
    }
    const key = JSON.stringify(sourceIds);
    const cached = cache.get(key);
    if (cached) return cached;
    const loaded = await load(key);
    const values: CatalogValueSets = Object.freeze({
      technologyTypes: Object.freeze([...loaded.technologyTypes]),
      connectionTypes: Object.freeze([...loaded.connectionTypes]),
      bandwidths: Object.freeze(loaded.bandwidths.map((row) => Object.freeze({ ...row }))),
      contractTerms: Object.freeze([...loaded.contractTerms]),
    });
    cache.set(key, values);
    return values;
  };
}
