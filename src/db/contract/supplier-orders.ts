/**
 * Supplier orders (issue "Orders, part 1", item 2): the seller order of one source of an order, and the
 * durable, leased task that places and follows it — the order worker's side of `contract/orders.ts`.
 */
import type { OrderLineStatus, SupplierOrderStatus } from '../values.js';
import type { SourceRow } from './catalog.js';
import type { OrderTerms } from './order-terms.js';
import type {
  OrderCharge,
  OrderLineCancellation,
  OrderLineNotice,
  OrderLinePriceChange,
  OrderLineRow,
  OrderMilestone,
  OrderRecord,
  OrderRow,
} from './orders.js';

/** One supplier order: the seller order of one source of an order, and the task that places and follows it. */
export interface SupplierOrderRow {
  /** Sent to the seller as the order's `externalId`: how the order is found again after a crash. */
  id: string;
  instanceId: string;
  orderId: string;
  sourceId: string;
  status: SupplierOrderStatus;
  sellerOrderId: string | null;
  /** MEF `MEFProductOrderStateType`, verbatim; null before the seller answered. */
  sellerState: string | null;
  /** Attempts started (claims), the current one included. */
  attempts: number;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  /** When the task is due again (placing, the next poll); null once ended. */
  nextCheckAt: Date | null;
  /** When a seller's notification last made it due (`hurrySupplierOrders`). */
  hurriedAt: Date | null;
  /**
   * When a placement was last about to be sent (`markSupplierOrderPosting`, written before the POST): from
   * then on the seller may have the order, and it is looked up before it is sent again.
   */
  postedAt: Date | null;
  /** When the reseller asked to cancel (`requestOrderCancellation`); null while none was asked. */
  cancelRequestedAt: Date | null;
  /**
   * When the cancellation was last about to be sent (`markSupplierOrderCancelPosting`, written before the
   * POST): from then on the seller may have it, and it is looked up before it is sent again.
   */
  cancelPostedAt: Date | null;
  /** The seller's `CancelProductOrder` id and its state (MEF `MEFChargeableTaskStateType`, verbatim). */
  sellerCancelId: string | null;
  sellerCancelState: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  /**
   * The W3C trace context of the request that placed the order (`traceparent` and `tracestate` as a JSON
   * object, `src/telemetry/trace-context.ts`), from {@link NewOrder.traceContext}: the order worker's spans continue that trace
   * (issue 37). Null when tracing was off.
   */
  traceContext: string | null;
  /**
   * Charges a seller's notification named that no step has read yet (issue 49): the next step reads each
   * (`GET /charge/{id}`) — how a held item's charge arrives when the seller's `GET /charge` list fails.
   */
  notifiedChargeIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** A claimed supplier order, with everything its task needs to place and follow it. */
export interface ClaimedSupplierOrder {
  supplierOrder: SupplierOrderRow;
  source: SourceRow;
  order: OrderRow;
  customer: { id: string; name: string };
  /** The order's lines of this supplier order, in position order. */
  lines: OrderLineRow[];
}

/** What a seller said of one line, to record. Absent fields stay as they are. */
export interface SupplierLineProgress {
  lineId: string;
  status?: OrderLineStatus;
  supplierStatus?: string | null;
  supplierOrderId?: string | null;
  supplierItemId?: string | null;
  expectedCompletionDate?: Date | null;
  completionDate?: Date | null;
  inventoryProductId?: string | null;
  inventoryProductStatus?: string | null;
  milestones?: OrderMilestone[];
  charges?: OrderCharge[];
  errorCode?: string | null;
  errorMessage?: string | null;
  /** What keeps the line waiting beyond its state (issue 49); null clears it. */
  notice?: OrderLineNotice | null;
  orderTerms?: OrderTerms | null;
  priceChange?: OrderLinePriceChange | null;
  cancellation?: OrderLineCancellation | null;
}

/** One step of a supplier order's task to record, fenced on its lease (`owner`). */
export interface SupplierOrderProgress {
  supplierOrderId: string;
  owner: string;
  status: SupplierOrderStatus;
  sellerOrderId: string | null;
  sellerState: string | null;
  /**
   * When to look again (null once ended); the lease is released either way. A supplier order hurried at or
   * after `readAt` (a notification came while the step read the seller) is due at `now` instead.
   */
  nextCheckAt: Date | null;
  /** When the step began reading the seller (its claim when it read nothing). */
  readAt: Date;
  errorCode: string | null;
  errorMessage: string | null;
  /** The seller's cancellation, when the step read or sent one (absent: unchanged). */
  sellerCancelId?: string | null;
  sellerCancelState?: string | null;
  /** This supplier order's cancellation charges as last read (absent: unchanged); replace its earlier ones. */
  cancellationCharges?: OrderCharge[];
  /**
   * Ids of {@link SupplierOrderRow.notifiedChargeIds} the step read (issue 49): removed from it in the same
   * fenced write, and only they — an id a notification added while the step ran stays for the next step.
   * Absent or empty: the list is left as it is. A step that ends the supplier order empties it.
   */
  consumedChargeIds?: string[];
  lines: SupplierLineProgress[];
  now: Date;
}

/** The order worker's operations on supplier orders. Every step that changes an order writes its event. */
export interface SupplierOrderOperations {
  /**
   * Claims up to `limit` due supplier orders (`nextCheckAt <= now`, not ended, no live lease) for `owner`
   * until `now + leaseMs`, counting an attempt each, all at once (SQLite: one transaction; PostgreSQL: one
   * statement); each claimed one with its source, order, customer and lines, in the order they fell due
   * (`nextCheckAt`, then id bytewise). Concurrent
   * claimers never claim the same one (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  claimSupplierOrders: (
    owner: string,
    now: Date,
    leaseMs: number,
    limit: number,
  ) => Promise<ClaimedSupplierOrder[]>;
  /**
   * Records one step of a supplier order's task and releases its lease, in one transaction: only while
   * `owner` holds the lease (else nothing is written). Its lines' given fields are written, the order's
   * status is derived again from all its lines (`orderStatusOf`), and the order's version grows with an
   * `order:changed` event when anything shown changed.
   *
   * @returns the order's record after the step, or undefined when the lease was lost.
   */
  recordSupplierOrderProgress: (progress: SupplierOrderProgress) => Promise<OrderRecord | undefined>;
  /**
   * Records, before a cancellation is sent, that the seller may have it from `now` on (`cancelPostedAt`),
   * while `owner` holds the supplier order's lease.
   *
   * @returns whether it was written (false: the lease was lost; nothing may be sent).
   */
  markSupplierOrderCancelPosting: (supplierOrderId: string, owner: string, now: Date) => Promise<boolean>;
  /**
   * Records, before a placement is sent, that the seller may have the supplier order from `now` on
   * (`postedAt`), while `owner` holds its lease.
   *
   * @returns whether it was written (false: the lease was lost; nothing may be sent).
   */
  markSupplierOrderPosting: (supplierOrderId: string, owner: string, now: Date) => Promise<boolean>;
  /**
   * Makes a source's supplier orders that are not ended due at `now` — those of the seller order
   * `sellerOrderId` and those sent whose seller id is not recorded yet (the event may be theirs), or all
   * of the source's when null (a Charge event names no order) — and marks them hurried, so a step running meanwhile is followed by another (a seller's notification, MEF 123 §8).
   * With `chargeId` (a Charge event's, MEF 123 R103) the id is also added to each one's
   * `notifiedChargeIds` unless it is there already, in the same statement: the next step reads that Charge
   * by its id even when the seller's `GET /charge` list fails (issue 49).
   *
   * @returns how many were hurried.
   */
  hurrySupplierOrders: (
    sourceId: string,
    sellerOrderId: string | null,
    now: Date,
    chargeId?: string,
  ) => Promise<number>;
  /** The supplier orders of an order (for tests and operators). Reads only. */
  listSupplierOrders: (orderId: string) => Promise<SupplierOrderRow[]>;
}
