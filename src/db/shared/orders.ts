/**
 * What both dialects' order operations build the same way (`OrderOperations`): new rows, the order's status
 * from its lines, the applied progress of a line and of a supplier order's step, claims and records from
 * rows and the `order:changed` events. The SQL is in the dialects' `queries/orders.ts`.
 */
import { isDeepStrictEqual } from 'node:util';
import { newId } from '../../ids.js';
import { eventTraceContext } from '../../telemetry/trace-context.js';
import type {
  ClaimedSupplierOrder,
  ManualLineRefusal,
  NewOrder,
  NewOutboxEvent,
  OrderLineRow,
  OrderRecord,
  OrderRow,
  SourceRow,
  SupplierLineProgress,
  SupplierOrderProgress,
  SupplierOrderRow,
} from '../contract/index.js';
import {
  finalOrderLineStatuses,
  type OrderLineFulfilment,
  type OrderLineStatus,
  type OrderStatus,
} from '../values.js';
import { cancellationChargesOf } from './order-cancellation.js';
import { withLines } from './row-mapping.js';

/**
 * An order's status from its lines' (issue "Orders, part 1", item 6): `cancelled` when every line was
 * cancelled, `failed` when every line failed, `completed` when every line completed, `partially_completed`
 * when every line ended and some but not all completed; before that `in_progress` while any line is (or
 * some ended and others wait), `submitted` once any line is, else `pending`. An order without lines is
 * `pending`. Lines that need no delivery (`fulfilment` `none`, completed when placed; issue 49) count only
 * when every line is one: they neither start an order nor save a failed one.
 */
export function orderStatusOf(
  lines: readonly { status: OrderLineStatus; fulfilment?: OrderLineFulfilment }[],
): OrderStatus {
  const delivered = lines.filter((line) => line.fulfilment !== 'none');
  if (lines.length === 0) return 'pending';
  if (delivered.length === 0) return 'completed';
  const statuses = delivered.map((line) => line.status);
  const every = (status: OrderLineStatus) => statuses.every((each) => each === status);
  if (statuses.every((status) => finalOrderLineStatuses.includes(status))) {
    if (every('completed')) return 'completed';
    if (every('failed')) return 'failed';
    if (every('cancelled')) return 'cancelled';
    return statuses.includes('completed') ? 'partially_completed' : 'failed';
  }
  if (statuses.some((status) => status === 'in_progress' || finalOrderLineStatuses.includes(status))) {
    return 'in_progress';
  }
  return statuses.includes('submitted') ? 'submitted' : 'pending';
}

/** The rows of a new order: the order, its lines and one supplier order per source of its supplier lines. */
export function newOrderRows(input: NewOrder): {
  order: OrderRow;
  lines: OrderLineRow[];
  supplierOrders: SupplierOrderRow[];
} {
  const orderId = newId('order');
  const stamps = { createdAt: input.now, updatedAt: input.now };
  const supplierOrders = new Map<string, SupplierOrderRow>();
  for (const line of input.lines) {
    if (line.fulfilment !== 'supplier' || line.sourceId === null || supplierOrders.has(line.sourceId))
      continue;
    supplierOrders.set(line.sourceId, {
      id: newId('supplierOrder'),
      instanceId: input.instanceId,
      orderId,
      sourceId: line.sourceId,
      status: 'placing',
      sellerOrderId: null,
      sellerState: null,
      attempts: 0,
      leaseOwner: null,
      leaseExpiresAt: null,
      nextCheckAt: input.now,
      hurriedAt: null,
      postedAt: null,
      cancelRequestedAt: null,
      cancelPostedAt: null,
      sellerCancelId: null,
      sellerCancelState: null,
      errorCode: null,
      errorMessage: null,
      traceContext: input.traceContext ?? null,
      notifiedChargeIds: [],
      ...stamps,
    });
  }
  const lines = input.lines.map(
    (line): OrderLineRow => ({
      ...line,
      id: newId('orderLine'),
      instanceId: input.instanceId,
      orderId,
      // Nothing to deliver: completed as it is placed (issue 49).
      status: line.fulfilment === 'none' ? 'completed' : 'pending',
      supplierStatus: null,
      supplierOrderRef:
        line.fulfilment === 'supplier' && line.sourceId !== null
          ? (supplierOrders.get(line.sourceId)?.id ?? null)
          : null,
      supplierOrderId: null,
      supplierItemId: null,
      expectedCompletionDate: null,
      completionDate: line.fulfilment === 'none' ? input.now : null,
      inventoryProductId: null,
      inventoryProductStatus: null,
      milestones: [],
      charges: [],
      priceChange: null,
      cancellation: null,
      errorCode: null,
      errorMessage: null,
      note: null,
      notice: null,
      statusChangedByUserId: null,
      statusChangedAt: line.fulfilment === 'none' ? input.now : null,
      ...stamps,
    }),
  );
  const order: OrderRow = {
    id: orderId,
    instanceId: input.instanceId,
    quoteId: input.quoteId,
    customerId: input.customerId,
    createdByUserId: input.userId,
    status: orderStatusOf(lines),
    requestedCompletionDate: input.requestedCompletionDate,
    contact: input.contact,
    cancelReason: null,
    cancelRequestedAt: null,
    cancelRequestedByUserId: null,
    cancellationCharges: [],
    version: 1,
    ...stamps,
  };
  return { order, lines, supplierOrders: [...supplierOrders.values()] };
}

/** Why a line may not be moved by hand (`moveManualOrderLine`), or null when it may. */
export function manualLineRefusal(line: OrderLineRow | undefined): ManualLineRefusal | null {
  if (!line) return 'not_found';
  // A `none` line (issue 49) ended as its order was placed: that, not who fulfils it, is why it stays.
  if (line.fulfilment === 'none') return 'line_final';
  if (line.fulfilment !== 'manual') return 'not_manual';
  if (finalOrderLineStatuses.includes(line.status)) return 'line_final';
  return null;
}

/** The fields of a line a progress step writes (only those it gives), or null when nothing changes. */
export function lineChanges(
  line: OrderLineRow,
  progress: SupplierLineProgress,
): Partial<OrderLineRow> | null {
  const changes: Partial<OrderLineRow> = {};
  let changed = false;
  for (const [key, value] of Object.entries(progress)) {
    if (key === 'lineId' || value === undefined) continue;
    const current = line[key as keyof OrderLineRow];
    if (sameValue(current, value)) continue;
    (changes as Record<string, unknown>)[key] = value;
    changed = true;
  }
  return changed ? changes : null;
}

/**
 * Whether a stored value and a step's are the same: dates by their time, JSON values deeply and whatever
 * the order of their keys (PostgreSQL's `jsonb` keeps its own), so a read that changed nothing writes
 * nothing and moves no version.
 */
function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  }
  return isDeepStrictEqual(a, b);
}

/**
 * An order after a change of its lines: its status derived again (`orderStatusOf`), its version one up, its
 * time `now` — the record the transaction commits and its `order:changed` event carries.
 */
export function touchedOrder(record: OrderRecord, now: Date): OrderRecord {
  const status = orderStatusOf(record.lines);
  return { ...record, order: { ...record.order, status, version: record.order.version + 1, updatedAt: now } };
}

/**
 * A value as its column gives it back once written: a date as a new `Date` of the same time, a JSON value
 * through its text (as both stores write it: `JSON.stringify`), so without `undefined` members.
 * PostgreSQL's `jsonb` may give an object's keys back in another order, which no comparison of records sees.
 */
function asStored<T>(value: T): T {
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (value !== null && typeof value === 'object') return JSON.parse(JSON.stringify(value)) as T;
  return value;
}

/** What recording one supplier order's step writes, and the order's record it leaves. */
export interface SupplierOrderStepWrites {
  /** Each line update, in the step's order: the line's id and what it sets (`updatedAt` included). */
  lines: { id: string; values: Partial<OrderLineRow> }[];
  /**
   * What the order's update sets — its new cancellation charges when they changed, the status, version and
   * time of `touchedOrder` — or null when nothing shown changed: then no update and no event.
   */
  order: Partial<OrderRow> | null;
  /** The order's record after the step: as read when nothing changed, else as the writes leave it. */
  record: OrderRecord;
}

/**
 * Applies a supplier order's step to its order as read under the order's lock (`read`: its row, customer
 * and every line in position order), in memory: which lines change (`lineChanges`, only lines of this
 * supplier order, each compared with the line as read), whether the order's cancellation charges change
 * (`cancellationChargesOf`), and the record those writes leave — the one a read after them gives, so the
 * store need not read the order again (contract `recordSupplierOrderProgress`).
 */
export function supplierOrderStepWrites(
  read: OrderRecord,
  supplierOrder: { id: string; sourceId: string },
  progress: Pick<SupplierOrderProgress, 'lines' | 'cancellationCharges' | 'now'>,
): SupplierOrderStepWrites {
  const { now } = progress;
  const charges = progress.cancellationCharges
    ? cancellationChargesOf(read.order, supplierOrder, progress.cancellationCharges)
    : null;
  const ofSupplierOrder = new Map(
    read.lines.filter((line) => line.supplierOrderRef === supplierOrder.id).map((line) => [line.id, line]),
  );
  const writes: SupplierOrderStepWrites['lines'] = [];
  const written = new Map<string, OrderLineRow>();
  for (const step of progress.lines) {
    const line = ofSupplierOrder.get(step.lineId);
    const changes = line ? lineChanges(line, step) : null;
    if (!line || !changes) continue;
    const values = { ...changes, updatedAt: now };
    writes.push({ id: line.id, values });
    const stored = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, asStored(value)]));
    written.set(line.id, { ...(written.get(line.id) ?? line), ...stored });
  }
  if (!charges && writes.length === 0) return { lines: [], order: null, record: read };
  const record = touchedOrder(
    {
      ...read,
      order: charges ? { ...read.order, cancellationCharges: asStored(charges) } : read.order,
      lines: read.lines.map((line) => written.get(line.id) ?? line),
    },
    now,
  );
  const { status, version, updatedAt } = record.order;
  return {
    lines: writes,
    order: { ...(charges ? { cancellationCharges: charges } : {}), status, version, updatedAt },
    record,
  };
}

/**
 * Claimed supplier orders with what their tasks need, from rows read in batches: `ids` in the order they
 * were claimed (due time, then id), their rows as the claim's update returned them (in any order), the
 * sources and the orders' heads (with customers) they name, and their lines in position order.
 *
 * @throws Error when a row the foreign keys promise is missing.
 */
export function claimedSupplierOrders(
  ids: readonly string[],
  rows: readonly SupplierOrderRow[],
  sources: readonly SourceRow[],
  heads: readonly Omit<OrderRecord, 'lines'>[],
  lines: readonly OrderLineRow[],
): ClaimedSupplierOrder[] {
  const rowsById = new Map(rows.map((row) => [row.id, row]));
  const sourcesById = new Map(sources.map((source) => [source.id, source]));
  const headsById = new Map(heads.map((head) => [head.order.id, head]));
  const linesOf = new Map<string, OrderLineRow[]>();
  for (const line of lines) {
    if (line.supplierOrderRef === null) continue;
    const group = linesOf.get(line.supplierOrderRef);
    if (group) group.push(line);
    else linesOf.set(line.supplierOrderRef, [line]);
  }
  return ids.map((id) => {
    const supplierOrder = rowsById.get(id);
    const source = supplierOrder && sourcesById.get(supplierOrder.sourceId);
    const head = supplierOrder && headsById.get(supplierOrder.orderId);
    if (!supplierOrder || !source || !head) throw new Error(`claimed supplier order ${id} is incomplete`);
    const own = (linesOf.get(id) ?? []).filter((line) => line.orderId === supplierOrder.orderId);
    return { supplierOrder, source, order: head.order, customer: head.customer, lines: own };
  });
}

/**
 * The `order:changed` event of an order as a transaction leaves it, in the trace of the operation that
 * writes it (its `create` span, `eventTraceContext`; see `requestChangeEvents`).
 */
export function orderChangeEvent(record: OrderRecord, kind: 'created' | 'updated'): NewOutboxEvent {
  const { order } = record;
  return {
    instanceId: order.instanceId,
    topic: 'order:changed',
    subjectId: order.id,
    version: order.version,
    payload: { kind, version: order.version, updatedAtMs: order.updatedAt.getTime(), record },
    createdAt: order.updatedAt,
    traceContext: eventTraceContext('order:changed', [order.id]),
  };
}

const orderDates = ['requestedCompletionDate', 'cancelRequestedAt', 'createdAt', 'updatedAt'] as const;
const lineDates = [
  'expectedCompletionDate',
  'completionDate',
  'statusChangedAt',
  'createdAt',
  'updatedAt',
] as const;

/** An order record read back from JSON (an outbox payload): its date fields as `Date`s again. */
export function reviveOrderRecord(json: OrderRecord): OrderRecord {
  const date = (value: unknown) => (value === null || value === undefined ? null : new Date(value as string));
  const order = { ...json.order };
  for (const key of orderDates) (order as Record<string, unknown>)[key] = date(order[key]);
  const lines = json.lines.map((line) => {
    const copy = { ...line };
    for (const key of lineDates) (copy as Record<string, unknown>)[key] = date(line[key]);
    return copy;
  });
  return { ...json, order, lines };
}

/**
 * The records of order rows (with their customers' names): their lines, read by `linesOf` for all of them
 * at once (in position order; not called without rows), attached to each.
 */
export function orderRecordsOf(
  rows: Omit<OrderRecord, 'lines'>[],
  linesOf: (orderIds: string[]) => OrderLineRow[] | Promise<OrderLineRow[]>,
): Promise<OrderRecord[]> {
  return withLines(
    rows,
    (row) => row.order.id,
    (line) => line.orderId,
    linesOf,
  );
}

/** A mark the order worker writes to a supplier order it holds, just before it sends what must go once. */
export type LeasedMark = 'postedAt' | 'cancelPostedAt';

/**
 * The contract's lease-mark operations (`markSupplierOrderPosting`, `markSupplierOrderCancelPosting`) over a
 * dialect's one fenced write: `write(db, id, owner, now, mark)` writes `mark` = `now` while `owner` holds the
 * lease and tells whether it did. Which operation writes which mark is the contract's, stated here once.
 */
export function leasedMarkOperations<Db>(
  write: (
    db: Db,
    supplierOrderId: string,
    owner: string,
    now: Date,
    mark: LeasedMark,
  ) => boolean | Promise<boolean>,
) {
  return {
    markSupplierOrderPosting: async (db: Db, supplierOrderId: string, owner: string, now: Date) =>
      write(db, supplierOrderId, owner, now, 'postedAt'),
    markSupplierOrderCancelPosting: async (db: Db, supplierOrderId: string, owner: string, now: Date) =>
      write(db, supplierOrderId, owner, now, 'cancelPostedAt'),
  };
}
