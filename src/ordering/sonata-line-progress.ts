/**
 * What one read of a seller's Sonata order says of each order line (MEF 123 `ProductOrderItem` → the store's
 * `SupplierLineProgress`): status, MEF state, dates, milestones, charges and the delivered product (MEF 116).
 */
import type { OrderCharge, OrderLineRow, SupplierLineProgress } from '../db/rows.js';
import type { SonataCallScope } from '../gathering/sources/mef-sonata/client.js';
import type { SonataChargeView, SonataOrderItemView, SonataOrderView } from './mef-sonata/order-answers.js';
import { lineStatusOf } from './mef-sonata/order-states.js';
import type { SonataOrdering } from './mef-sonata/ordering-client.js';

/** Charge states after which the seller changes a charge no more (MEF 123 `MEFProductOrderChargeStateType`). */
const finalChargeStates = new Set(['completed', 'timeout', 'withdrawnBySeller']);

/** A seller's Charge as an order line keeps it. */
export function chargeOf(view: SonataChargeView): OrderCharge {
  return {
    id: view.id,
    state: view.state,
    responseDueDate: view.responseDueDate,
    items: view.items.map((item) => ({
      id: item.id,
      priceType: item.priceType,
      priceCategory: item.priceCategory,
      amountMinor: item.amountMinor,
      currency: item.currency,
      blocking: item.blocking,
      state: item.state,
    })),
  };
}

const dateOrNull = (value: string | null) => (value === null ? null : new Date(value));

/** The step's failure codes of a line the seller ended unhappily. */
function lineError(item: SonataOrderItemView): { errorCode: string | null; errorMessage: string | null } {
  const status = lineStatusOf(item.state);
  if (status !== 'failed' && status !== 'cancelled') return { errorCode: null, errorMessage: null };
  const code = item.state.startsWith('rejected')
    ? 'SUPPLIER_REJECTED'
    : status === 'cancelled'
      ? 'SUPPLIER_CANCELLED'
      : 'SUPPLIER_FAILED';
  return { errorCode: code, errorMessage: item.errorMessage ?? `The seller’s item ended ${item.state}.` };
}

/**
 * A line's progress from its item of the seller's order: status, MEF state, dates, milestones, its charges
 * (read again until final; the awaited ones of a held item found through `GET /charge`), and the delivered
 * product once completed (R61).
 */
export async function lineProgress(
  ordering: SonataOrdering,
  scope: SonataCallScope,
  view: SonataOrderView,
  line: OrderLineRow,
  item: SonataOrderItemView,
  awaited: readonly SonataChargeView[],
): Promise<SupplierLineProgress> {
  const status = lineStatusOf(item.state);
  const known = new Map(line.charges.map((charge) => [charge.id, charge]));
  for (const charge of awaited) {
    if (charge.productOrderItemId === item.id) known.set(charge.id, chargeOf(charge));
  }
  for (const id of item.chargeIds) {
    if (!known.has(id)) known.set(id, chargeOf(await ordering.retrieveCharge(scope, id)));
  }
  for (const [id, charge] of known) {
    const fresh = awaited.some((each) => each.id === id);
    if (!fresh && !finalChargeStates.has(charge.state)) {
      known.set(id, chargeOf(await ordering.retrieveCharge(scope, id)));
    }
  }
  const progress: SupplierLineProgress = {
    lineId: line.id,
    status,
    supplierStatus: item.state,
    supplierOrderId: view.id,
    supplierItemId: item.id,
    expectedCompletionDate: dateOrNull(item.expectedCompletionDate),
    completionDate: dateOrNull(item.completionDate),
    milestones: item.milestones,
    charges: [...known.values()],
    ...lineError(item),
  };
  if (status === 'completed' && item.productId && line.inventoryProductId !== item.productId) {
    const product = await ordering.retrieveProduct(scope, item.productId);
    progress.inventoryProductId = product.id;
    progress.inventoryProductStatus = product.status;
  }
  return progress;
}
