import type { Context } from '../context.js';
import type { InstanceProductRow, NewQuoteLine, ProductRow, SourceRow } from '../db/rows.js';
import type { FieldProblem } from '../errors.js';

/** The three product-id arrays of `POST /quotes` and `POST /quotes/{id}/products`, camelCase. */
export interface ProductIdArrays {
  availabilityRequestProductIds: string[];
  instanceProductIds: string[];
  mandatoryProductIds: string[];
}

/** A bandwidth in kbps as people read it: `100000` → `100 Mbit/s`, `1000000` → `1 Gbit/s`. */
export function describeBandwidth(kbps: number): string {
  if (kbps >= 1_000_000 && kbps % 1_000_000 === 0) return `${kbps / 1_000_000} Gbit/s`;
  if (kbps >= 1000) return `${kbps / 1000} Mbit/s`;
  return `${kbps} kbit/s`;
}

/** The line for a gathered product: its offer described, with its sale prices and its source's name and type. */
function requestProductLine(product: ProductRow, source: SourceRow | undefined): NewQuoteLine {
  const speed =
    product.downloadKbps === product.uploadKbps
      ? describeBandwidth(product.downloadKbps)
      : `${describeBandwidth(product.downloadKbps)} / ${describeBandwidth(product.uploadKbps)}`;
  return {
    kind: 'availability_request_product',
    productId: product.id,
    name: `${product.network} ${product.technologyType} ${product.connectionType} ${speed}, ${product.contractTermMonths} months`,
    network: product.network,
    technologyType: product.technologyType,
    connectionType: product.connectionType,
    downloadKbps: product.downloadKbps,
    uploadKbps: product.uploadKbps,
    contractTermMonths: product.contractTermMonths,
    mrcMinor: product.mrcMinor,
    nrcMinor: product.nrcMinor,
    currency: product.currency,
    sourceId: product.sourceId,
    // A source is never deleted while its products are (foreign key): `undefined` cannot happen.
    sourceName: source?.name ?? null,
    sourceType: source?.type ?? null,
    purchaseMrcMinor: product.purchaseMrcMinor,
    purchaseNrcMinor: product.purchaseNrcMinor,
    orderTerms: product.orderTerms,
  };
}

function catalogueLine(product: InstanceProductRow): NewQuoteLine {
  return {
    kind: product.mandatory ? 'mandatory_product' : 'instance_product',
    productId: product.id,
    name: product.name,
    network: null,
    technologyType: null,
    connectionType: null,
    downloadKbps: null,
    uploadKbps: null,
    contractTermMonths: null,
    mrcMinor: product.mrcMinor,
    nrcMinor: product.nrcMinor,
    currency: product.currency,
    sourceId: null,
    sourceName: null,
    sourceType: null,
    purchaseMrcMinor: null,
    purchaseNrcMinor: null,
    orderTerms: null,
  };
}

/**
 * Turns the product-id arrays into quote lines (snapshots of name, kind, bandwidth / term and sale
 * prices), followed by the instance's mandatory products in the quote's currency that were not named. Every id must be a product
 * of the caller's instance of the kind its array says, priced in the quote's currency; repeated ids count
 * once.
 *
 * @returns the lines in input order, and a problem per bad id (path like `/instanceProductIds/2`).
 */
export async function buildQuoteLines(
  ctx: Context,
  instanceId: string,
  ids: ProductIdArrays,
  currency: string,
): Promise<{ lines: NewQuoteLine[]; problems: FieldProblem[] }> {
  const problems: FieldProblem[] = [];
  const lines: NewQuoteLine[] = [];
  const requestProducts = new Map(
    (await ctx.db.findRequestProducts(instanceId, ids.availabilityRequestProductIds)).map((p) => [p.id, p]),
  );
  // An instance has a handful of sources: one read names those of every product.
  const sources = new Map(
    requestProducts.size === 0
      ? []
      : (await ctx.db.listSources(instanceId)).map((source) => [source.id, source]),
  );
  const catalogue = new Map(
    (
      await ctx.db.findInstanceProducts(instanceId, [...ids.instanceProductIds, ...ids.mandatoryProductIds])
    ).map((p) => [p.id, p]),
  );
  const take = (line: NewQuoteLine | null, path: string, what: string) => {
    if (!line) problems.push({ path, message: `${what} was not found` });
    else if (line.currency !== currency) {
      problems.push({ path, message: `is priced in ${line.currency}, but the quote is in ${currency}` });
    } else if (!lines.some((existing) => existing.productId === line.productId)) lines.push(line);
  };
  ids.availabilityRequestProductIds.forEach((id, index) => {
    const product = requestProducts.get(id);
    take(
      product ? requestProductLine(product, sources.get(product.sourceId)) : null,
      `/availabilityRequestProductIds/${index}`,
      'availability-request product',
    );
  });
  ids.instanceProductIds.forEach((id, index) => {
    const product = catalogue.get(id);
    take(
      product && !product.mandatory ? catalogueLine(product) : null,
      `/instanceProductIds/${index}`,
      'instance product',
    );
  });
  ids.mandatoryProductIds.forEach((id, index) => {
    const product = catalogue.get(id);
    take(
      product?.mandatory ? catalogueLine(product) : null,
      `/mandatoryProductIds/${index}`,
      'mandatory product',
    );
  });
  // Mandatory products are added in the quote's currency: an instance selling in several currencies keeps
  // one mandatory item per currency, and one in another currency never blocks a quote.
  for (const product of await ctx.db.listInstanceProducts(instanceId, true)) {
    if (product.currency === currency && !lines.some((line) => line.productId === product.id)) {
      lines.push(catalogueLine(product));
    }
  }
  return { lines, problems };
}
