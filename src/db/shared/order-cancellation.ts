/**
 * What both dialects' cancellation operations decide the same way (issue "Orders, part 2", item 1): whether
 * an order may be cancelled, what asking for it writes to each line, and how a supplier order's
 * cancellation charges replace its earlier ones on the order. The SQL is in the dialects' `queries/orders.ts`.
 */
import { isDeepStrictEqual } from 'node:util';
import type {
  CancellationCharge,
  OrderCancellationRefusal,
  OrderCharge,
  OrderLineRow,
  OrderRow,
} from '../contract/index.js';
import { finalOrderLineStatuses, type OrderStatus } from '../values.js';

/** The order statuses no cancellation applies to: every line has ended. */
const finalOrderStatuses: readonly OrderStatus[] = [
  'completed',
  'partially_completed',
  'failed',
  'cancelled',
];

/** Why an order may not be cancelled (`requestOrderCancellation`), or null when it may. */
export function cancellationRefusal(order: OrderRow | undefined): OrderCancellationRefusal | null {
  if (!order) return 'not_found';
  if (finalOrderStatuses.includes(order.status) || order.cancelRequestedAt !== null) return 'not_cancellable';
  return null;
}

/**
 * What asking to cancel writes to a line, or null for a line that has ended: a manual line is `cancelled` at
 * once (its cancellation `done`, by the user who asked); a supplier line shows the cancellation `requested`.
 */
export function cancelledLineValues(
  line: OrderLineRow,
  userId: string | null,
  now: Date,
): Partial<OrderLineRow> | null {
  if (finalOrderLineStatuses.includes(line.status)) return null;
  if (line.fulfilment === 'manual') {
    return {
      status: 'cancelled',
      cancellation: { state: 'done', message: null },
      statusChangedByUserId: userId,
      statusChangedAt: now,
      updatedAt: now,
    };
  }
  return { cancellation: { state: 'requested', message: null }, updatedAt: now };
}

/**
 * The order's cancellation charges with those of one supplier order replaced by `charges` (in the order
 * read), or null when nothing changes.
 */
export function cancellationChargesOf(
  order: OrderRow,
  supplierOrder: { id: string; sourceId: string },
  charges: readonly OrderCharge[],
): CancellationCharge[] | null {
  const next = [
    ...order.cancellationCharges.filter((charge) => charge.supplierOrderId !== supplierOrder.id),
    ...charges.map((charge) => ({
      ...charge,
      supplierOrderId: supplierOrder.id,
      sourceId: supplierOrder.sourceId,
    })),
  ];
  return isDeepStrictEqual(next, order.cancellationCharges) ? null : next;
}

/** The order's cancellation charges with one (matched by id) in its new state, or null when it is not there. */
export function cancellationChargeReplacing(
  order: OrderRow | undefined,
  charge: OrderCharge,
): CancellationCharge[] | null {
  if (!order?.cancellationCharges.some((each) => each.id === charge.id)) return null;
  return order.cancellationCharges.map((each) => (each.id === charge.id ? { ...each, ...charge } : each));
}
