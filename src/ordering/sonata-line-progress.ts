/**
 * What one read of a seller's Sonata order says of each order line (MEF 123 `ProductOrderItem` → the store's
 * `SupplierLineProgress`): status, MEF state, dates, milestones, charges, the delivered product (MEF 116) and
 * the notice of what of those could not be read (issue 49).
 */
import type { OrderCharge, OrderLineNotice, OrderLineRow, SupplierLineProgress } from '../db/rows.js';
import type { SonataChargeView, SonataOrderItemView, SonataOrderView } from './mef-sonata/order-answers.js';
import { lineStatusOf } from './mef-sonata/order-states.js';
import { chargeListNotice, chargeNotice, inventoryNotice } from './secondary-calls.js';
import type { SonataChargeReads, SonataSecondaryReads } from './sonata-secondary-reads.js';

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

/** A line's progress from one read of its item, and whether its delivered product is still to be read. */
export interface SonataLineStep {
  progress: SupplierLineProgress;
  /**
   * Whether the item completed with a product the inventory could not give (`INVENTORY_UNAVAILABLE`): the
   * supplier order must not end before it is read (MEF 116), or the line would never show it.
   */
  inventoryOwed: boolean;
}

/**
 * A line's progress from its item of the seller's order: status, MEF state, dates, milestones, its charges
 * (each read again until final; those of a held item found through `GET /charge` or a notification given in
 * `chargeReads`), the delivered product once completed (R61), and its `notice` (issue 49): what of that could
 * not be read, else null. What the order read said is kept whatever the other calls do — a Charge that cannot
 * be read stays as last read (`CHARGE_UNAVAILABLE`); a held item without a Charge awaiting the buyer shows
 * why none was found (`CHARGE_LIST_UNAVAILABLE`, `CHARGE_UNAVAILABLE`); a completed item whose product cannot
 * be read is completed without it (`INVENTORY_UNAVAILABLE`, `inventoryOwed`).
 *
 * @throws what {@link SonataSecondaryReads} throws: the store unavailable, the worker stopping.
 */
export async function lineProgress(
  reads: SonataSecondaryReads,
  view: SonataOrderView,
  line: OrderLineRow,
  item: SonataOrderItemView,
  chargeReads: SonataChargeReads,
): Promise<SonataLineStep> {
  const status = lineStatusOf(item.state);
  const known = new Map(line.charges.map((charge) => [charge.id, charge]));
  const fresh = new Set<string>();
  for (const charge of chargeReads.charges) {
    if (charge.productOrderItemId !== item.id) continue;
    known.set(charge.id, chargeOf(charge));
    fresh.add(charge.id);
  }
  // Each Charge read once; the first that cannot be read is the line's notice.
  const failures: OrderLineNotice[] = [];
  const readCharge = async (id: string) => {
    fresh.add(id);
    const read = await reads.charge(id);
    if (read.ok) known.set(id, chargeOf(read.value));
    else failures.push(chargeNotice(id, read.failure));
  };
  for (const id of item.chargeIds) {
    if (!known.has(id)) await readCharge(id);
  }
  for (const [id, charge] of known) {
    if (!fresh.has(id) && !finalChargeStates.has(charge.state)) await readCharge(id);
  }
  let notice: OrderLineNotice | null = failures[0] ?? null;
  const awaiting = [...known.values()].some((charge) => charge.state === 'awaitingResponse');
  if (item.state === 'held' && !awaiting && notice === null) {
    const [unread] = chargeReads.unread;
    if (chargeReads.listFailure) notice = chargeListNotice(chargeReads.listFailure);
    else if (unread) notice = chargeNotice(unread.id, unread.failure);
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
  let inventoryOwed = false;
  if (status === 'completed' && item.productId && line.inventoryProductId !== item.productId) {
    const product = await reads.product(item.productId);
    if (product.ok) {
      progress.inventoryProductId = product.value.id;
      progress.inventoryProductStatus = product.value.status;
    } else {
      inventoryOwed = true;
      notice = inventoryNotice(item.productId, product.failure);
    }
  }
  progress.notice = notice;
  return { progress, inventoryOwed };
}

/** Notices a Charge that arrived makes moot: a held item's Charge that could not be found or read. */
const chargeNoticeCodes = new Set(['CHARGE_LIST_UNAVAILABLE', 'CHARGE_UNAVAILABLE']);

/**
 * The lines' progress from the notified Charges read while the order itself could not be (a notifying
 * seller's 429 to a read its events did not announce, an outage): each line whose item a Charge of
 * `chargeReads` names shows it, as read; its charge notice is cleared once a Charge awaits the buyer's
 * answer. Nothing else of the line changes.
 */
export function notifiedChargeProgress(
  lines: readonly OrderLineRow[],
  chargeReads: Pick<SonataChargeReads, 'charges'>,
): SupplierLineProgress[] {
  return lines.flatMap((line) => {
    const arrived = chargeReads.charges.filter((charge) => charge.productOrderItemId === line.id);
    if (arrived.length === 0) return [];
    const known = new Map(line.charges.map((charge) => [charge.id, charge]));
    for (const charge of arrived) known.set(charge.id, chargeOf(charge));
    const charges = [...known.values()];
    const shown = charges.some((charge) => charge.state === 'awaitingResponse');
    const moot = shown && line.notice !== null && chargeNoticeCodes.has(line.notice.code);
    return [{ lineId: line.id, charges, ...(moot ? { notice: null } : {}) }];
  });
}
