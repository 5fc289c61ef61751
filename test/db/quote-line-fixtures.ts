import type { NewQuoteLine } from '../../src/db/rows.js';

/**
 * A quote line of an instance product to add with `insertQuote` / `addQuoteLines` (no foreign key: a
 * snapshot), in EUR; prices in minor units.
 */
export const instanceProductLine = (
  productId: string,
  name: string,
  prices: { mrcMinor: number; nrcMinor: number },
): NewQuoteLine => ({
  kind: 'instance_product',
  productId,
  name,
  sourceId: null,
  sourceName: null,
  sourceType: null,
  purchaseMrcMinor: null,
  purchaseNrcMinor: null,
  orderTerms: null,
  network: null,
  technologyType: null,
  connectionType: null,
  downloadKbps: null,
  uploadKbps: null,
  contractTermMonths: null,
  ...prices,
  currency: 'EUR',
});
