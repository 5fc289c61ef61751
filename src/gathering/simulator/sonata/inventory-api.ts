import type { SellerState } from './api.js';
import { error5xx, error404, type SellerAnswer } from './errors.js';
import type { FailureStatus } from './knobs.js';
import type { SellerContext } from './lifecycle.js';
import { type ApiCall, callScope, listAnswer } from './routing.js';

type Json = Record<string, unknown>;

/** `MEFProduct_Find` filters of `GET /product` these sellers apply (MEF 116 §6.1), by query name. */
const PRODUCT_FILTERS: Record<string, (find: Json, value: string) => boolean> = {
  status: (find, value) => find.status === value,
  productOfferingId: (find, value) => (find.productOffering as Json | undefined)?.id === value,
  externalId: (find, value) => find.externalId === value,
  billingAccountId: (find, value) => (find.billingAccount as Json | undefined)?.id === value,
  productOrderId: (find, value) =>
    ((find.productOrderItem ?? []) as Json[]).some((ref) => ref.productOrderId === value),
  geographicalSiteId: (find, value) => ((find.relatedSite ?? []) as Json[]).some((site) => site.id === value),
};

/**
 * Answers one authenticated call to a seller's Product Inventory 7.0.2 API: `GET /product` (`MEFProduct_Find`
 * list; filters `status`, `productOfferingId`, `externalId`, `billingAccountId`, `productOrderId`,
 * `geographicalSiteId`; `offset`/`limit`; an empty list when none match, MEF 116 R12) and `GET /product/{id}`
 * (`MEFProduct`, `404` when unknown). The products are those the buyer's completed order items delivered
 * (inventory.ts), scoped by `buyerId` / `sellerId` like every other call. With `productRead` set (the
 * `inventory=` knob), `GET /product/{id}` answers that status instead.
 */
export function answerInventoryCall(
  state: SellerState,
  context: SellerContext,
  call: ApiCall & { api: 'inventory' },
  options: { productRead: FailureStatus | null; retryAfter: string | null },
): SellerAnswer {
  const scope = callScope(context, call.query);
  if ('status' in scope) return scope;
  const [resource, id, extra] = call.path.split('/').slice(1);
  if (call.method !== 'GET' || resource !== 'product' || extra !== undefined)
    return error404(`No operation ${call.method} ${call.path}.`);
  const products = [...state.products.values()].filter(
    (product) => product.sellerKey === scope.sellerKey && product.buyerId === scope.buyerId,
  );
  if (id === undefined)
    return listAnswer(
      products.map((product) => product.find()),
      PRODUCT_FILTERS,
      call.query,
    );
  if (options.productRead === 404) return error404(`No product ${id} in the inventory yet.`);
  if (options.productRead === 503) return error5xx(503, options.retryAfter);
  const product = products.find((candidate) => candidate.id === id);
  return product ? { status: 200, body: product.view() } : error404(`No product ${id}.`);
}
