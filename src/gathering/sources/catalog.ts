import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../db/store.js';
import type { SourceAdapter, SourceOffer, SourceQuery } from './types.js';

/**
 * The `catalog` source: answers from the offers the instance imported for that source (a supplier's
 * price list), for the areas that cover the address. It waits a random time within the source's
 * declared latency (times `latencyScale`), as the supplier's own system would, so gathering progress
 * is visible.
 */
export function createCatalogSource(
  db: Store,
  options: { latencyScale: number; random?: () => number },
): SourceAdapter {
  const random = options.random ?? Math.random;
  return {
    type: 'catalog',
    async fetchOffers({ source, address, signal }: SourceQuery): Promise<SourceOffer[]> {
      const latency = source.latencyMinMs + random() * Math.max(0, source.latencyMaxMs - source.latencyMinMs);
      const waitMs = Math.round(latency * options.latencyScale);
      if (waitMs > 0) await sleep(waitMs, undefined, { signal });
      signal.throwIfAborted();
      const areaIds = await db.coveringAreaIds(source.instanceId, address);
      const offers = await db.listSourceOffers(source.id, areaIds);
      return offers.map((offer) => ({
        network: source.network,
        technologyType: offer.technologyType,
        connectionType: offer.connectionType,
        downloadKbps: offer.downloadKbps,
        uploadKbps: offer.uploadKbps,
        contractTermMonths: offer.contractTermMonths,
        purchaseMrcMinor: offer.purchaseMrcMinor,
        purchaseNrcMinor: offer.purchaseNrcMinor,
        currency: offer.currency,
      }));
    },
  };
}
