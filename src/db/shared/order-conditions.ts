/**
 * The conditions and column values both dialects' order operations use (`queries/orders.ts`), written once
 * with drizzle's dialect-neutral operators over the columns each dialect passes in: which rows a statement
 * takes is the contract's, only how it runs is the dialect's.
 */
import {
  and,
  type Column,
  eq,
  gt,
  isNotNull,
  isNull,
  lte,
  ne,
  notInArray,
  or,
  type SQL,
  type SQLWrapper,
  sql,
  type Table,
} from 'drizzle-orm';
import type {
  ManualLineMove,
  OrderCharge,
  OrderLineRow,
  OrderSliceQuery,
  SupplierOrderProgress,
} from '../contract/index.js';

/** The `orders` columns the conditions read. */
export interface OrderColumns {
  id: Column;
  instanceId: Column;
  customerId: Column;
  quoteId: Column;
  status: Column;
}

/** The `order_lines` columns the conditions read. */
export interface OrderLineColumns {
  id: Column;
  orderId: Column;
  instanceId: Column;
}

/** The `supplier_orders` columns the conditions read. */
export interface SupplierOrderColumns {
  id: Column;
  sourceId: Column;
  status: Column;
  sellerOrderId: Column;
  leaseOwner: Column;
  leaseExpiresAt: Column;
  nextCheckAt: Column;
  hurriedAt: Column;
  postedAt: Column;
  notifiedChargeIds: Column;
}

/** The order `orderId` when it is one of `instanceId`'s: tenant isolation for every write to an order. */
export function orderOfInstance(t: OrderColumns, orderId: string, instanceId: string): SQL | undefined {
  return and(eq(t.id, orderId), eq(t.instanceId, instanceId));
}

/** The order of `instanceId` that has the line `lineId` (one row at most; the line's primary key finds it). */
export function orderHavingLine(
  t: OrderColumns,
  lines: Table & OrderLineColumns,
  instanceId: string,
  lineId: string,
): SQL | undefined {
  return and(
    eq(t.instanceId, instanceId),
    sql`${t.id} = (select ${lines.orderId} from ${lines} where ${lines.id} = ${lineId})`,
  );
}

/** A quote's orders that keep it from being ordered again: neither `failed` nor `cancelled`. */
export function openOrdersOfQuote(t: OrderColumns, quoteId: string): SQL | undefined {
  return and(eq(t.quoteId, quoteId), notInArray(t.status, ['failed', 'cancelled']));
}

/** An instance's orders, of one customer and in one status when given. */
export function ordersMatching(
  t: OrderColumns,
  instanceId: string,
  filter: Pick<OrderSliceQuery, 'customerId' | 'status'>,
): SQL | undefined {
  return and(
    eq(t.instanceId, instanceId),
    filter.customerId === null ? undefined : eq(t.customerId, filter.customerId),
    filter.status === null ? undefined : eq(t.status, filter.status),
  );
}

/** One line of one order of one instance. */
export function lineOfOrder(
  t: OrderLineColumns,
  ids: { instanceId: string; orderId: string; lineId: string },
): SQL | undefined {
  return and(eq(t.id, ids.lineId), eq(t.orderId, ids.orderId), eq(t.instanceId, ids.instanceId));
}

/**
 * Supplier orders due at `now` (a time, or a placeholder for a prepared statement): not ended, their next
 * check reached, no live lease.
 */
export function dueSupplierOrders(t: SupplierOrderColumns, now: Date | SQLWrapper): SQL | undefined {
  return and(
    lte(t.nextCheckAt, now),
    ne(t.status, 'ended'),
    or(isNull(t.leaseExpiresAt), lte(t.leaseExpiresAt, now)),
  );
}

/** The supplier order a step is recorded for, while its owner still holds the lease. */
export function heldSupplierOrder(t: SupplierOrderColumns, progress: SupplierOrderProgress): SQL | undefined {
  return and(
    eq(t.id, progress.supplierOrderId),
    eq(t.leaseOwner, progress.owner),
    gt(t.leaseExpiresAt, progress.now),
  );
}

/** A supplier order while `owner` holds its lease at `now` (values, or placeholders of a prepared statement). */
export function leasedSupplierOrder(
  t: SupplierOrderColumns,
  supplierOrderId: string | SQLWrapper,
  owner: string | SQLWrapper,
  now: Date | SQLWrapper,
): SQL | undefined {
  return and(eq(t.id, supplierOrderId), eq(t.leaseOwner, owner), gt(t.leaseExpiresAt, now));
}

/** An order's supplier orders that a cancellation makes due: those not ended. */
export function cancelledSupplierOrders(t: SupplierOrderColumns & { orderId: Column }, orderId: string) {
  return and(eq(t.orderId, orderId), ne(t.status, 'ended'));
}

/**
 * A source's supplier orders a notification makes due: not ended, of the seller order when it names one —
 * or sent and not yet known by the seller's id: a seller may announce its order before its answer to the
 * placement has been recorded, and that event must not be lost (the placing step then reads again at once).
 */
export function hurriedSupplierOrders(
  t: SupplierOrderColumns,
  sourceId: string,
  sellerOrderId: string | null,
): SQL | undefined {
  return and(
    eq(t.sourceId, sourceId),
    ne(t.status, 'ended'),
    sellerOrderId === null
      ? undefined
      : or(eq(t.sellerOrderId, sellerOrderId), and(isNull(t.sellerOrderId), isNotNull(t.postedAt))),
  );
}

/**
 * The columns a recorded step writes to its supplier order, lease released. The next check is `now` when a
 * notification hurried it once the step had begun reading the seller (its event may not be in what the step
 * read), else the step's own; `timestamp` types a time parameter as the dialect needs it in a `CASE`. The
 * charge ids the step consumed leave `notifiedChargeIds` through `withoutIds` (the dialect's JSON array
 * without those strings), computed from the row as it is then, so an id added meanwhile stays; a step that
 * ends the supplier order empties it.
 */
export function supplierOrderStepValues(
  t: SupplierOrderColumns,
  progress: SupplierOrderProgress,
  timestamp: (date: Date | null) => SQL,
  withoutIds: (column: Column, ids: readonly string[]) => SQL,
) {
  const { readAt, nextCheckAt, now } = progress;
  const consumed = progress.consumedChargeIds ?? [];
  return {
    status: progress.status,
    sellerOrderId: progress.sellerOrderId,
    sellerState: progress.sellerState,
    nextCheckAt: sql`case when ${t.hurriedAt} >= ${timestamp(readAt)} and ${t.status} <> 'ended' then ${timestamp(now)} else ${timestamp(nextCheckAt)} end`,
    errorCode: progress.errorCode,
    errorMessage: progress.errorMessage,
    ...(progress.sellerCancelId !== undefined ? { sellerCancelId: progress.sellerCancelId } : {}),
    ...(progress.sellerCancelState !== undefined ? { sellerCancelState: progress.sellerCancelState } : {}),
    // An ended supplier order reads no more Charges: it keeps none.
    ...(progress.status === 'ended'
      ? { notifiedChargeIds: [] }
      : consumed.length > 0
        ? { notifiedChargeIds: withoutIds(t.notifiedChargeIds, consumed) }
        : {}),
    leaseOwner: null,
    leaseExpiresAt: null,
    updatedAt: now,
  };
}

/** The columns a manual move writes to its line: status, note, who and when (and the completion date). */
export function manualMoveValues(move: ManualLineMove) {
  return {
    status: move.status,
    note: move.note,
    statusChangedByUserId: move.userId,
    statusChangedAt: move.now,
    completionDate: move.status === 'completed' ? move.now : null,
    updatedAt: move.now,
  };
}

/** A line's charges with `charge` in place of the one of its id, or null when the line has no such charge. */
export function chargesReplacing(line: OrderLineRow | undefined, charge: OrderCharge): OrderCharge[] | null {
  if (!line?.charges.some((each) => each.id === charge.id)) return null;
  return line.charges.map((each) => (each.id === charge.id ? charge : each));
}
