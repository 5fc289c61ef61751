/**
 * Orders for quotes (issue "Orders, part 1"): an order and its lines (one per quote line). Its supplier
 * orders — one seller order per source of its `supplier` lines, placed and followed by a durable task — are
 * in `supplier-orders.ts`.
 */
import type {
  LineCancellationState,
  OrderLineFulfilment,
  OrderLineStatus,
  OrderStatus,
  SourceType,
} from '../values.js';
import type { OrderTerms } from './order-terms.js';

/** Who to contact about an order (MEF 123 `RelatedContactInformation`'s name, e-mail and number). */
export interface OrderContact {
  name: string;
  emailAddress: string;
  number: string | null;
}

/** An order of a quote. */
export interface OrderRow {
  id: string;
  instanceId: string;
  quoteId: string;
  customerId: string;
  /** The user who placed it; null when an operator did. */
  createdByUserId: string | null;
  status: OrderStatus;
  /** The completion date asked of the sellers (MEF `requestedCompletionDate`). */
  requestedCompletionDate: Date;
  /** The contact sent to the sellers instead of each source's buyer contact; null: the sources' own. */
  contact: OrderContact | null;
  /** Why the reseller asked to cancel the order (`cancelOrder`); null while no cancellation was asked. */
  cancelReason: string | null;
  cancelRequestedAt: Date | null;
  /** Who asked to cancel; null when an operator did (or none asked). */
  cancelRequestedByUserId: string | null;
  /** The sellers' charges for cancelling their supplier orders (issue "Orders, part 2", item 1). */
  cancellationCharges: CancellationCharge[];
  /** Grows with every change of the order or its lines: the order's `order:changed` event version. */
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

/** One milestone a seller reported for a line (MEF `MEFMilestone`). */
export interface OrderMilestone {
  name: string;
  /** ISO 8601 date-time, as the seller gave it. */
  date: string;
  description: string | null;
}

/** One item of a seller's charge (MEF `MEFProductOrderChargeItem`); amount in minor units of `currency`. */
export interface OrderChargeItem {
  id: string;
  priceType: string;
  priceCategory: string | null;
  amountMinor: number;
  currency: string;
  blocking: boolean;
  state: string;
}

/** A seller's charge on a line (MEF `MEFProductOrderCharge`), as last read. */
export interface OrderCharge {
  id: string;
  /** MEF `MEFProductOrderChargeStateType`, verbatim (`awaitingResponse`, `accepted`, `declined`, `timeout`, …). */
  state: string;
  /** ISO 8601 date-time after which the seller takes no answer; null when it said none. */
  responseDueDate: string | null;
  items: OrderChargeItem[];
}

/**
 * A seller's charge for cancelling a supplier order (MEF 123: the `charge` of a `CancelProductOrder`): it
 * belongs to the supplier order, not to a line, and is answered as line charges are.
 */
export interface CancellationCharge extends OrderCharge {
  supplierOrderId: string;
  sourceId: string;
}

/** A line's cancellation, while one is asked or after it ended. */
export interface OrderLineCancellation {
  state: LineCancellationState;
  /** The seller's reason when it declined or rejected the cancellation; null otherwise. */
  message: string | null;
}

/**
 * What a seller asked for a line whose quote had expired, when the new purchase price is not the one the
 * customer's quote was made from (`SUPPLIER_PRICE_CHANGED`, issue "Orders, part 2", item 2). Minor units.
 */
export interface OrderLinePriceChange {
  currency: string;
  quotedMrcMinor: number;
  quotedNrcMinor: number;
  newMrcMinor: number;
  newNrcMinor: number;
}

/**
 * Why a line waits on its seller although the order's own state was read (issue 49): a call after the order's
 * read keeps failing, e.g. `CHARGE_LIST_UNAVAILABLE` for a held item whose charge cannot be listed. Cleared
 * by the step that no longer sees the cause.
 */
export interface OrderLineNotice {
  code: string;
  message: string;
}

/** An order line: a quote line ordered, with where its fulfilment stands. */
export interface OrderLineRow {
  id: string;
  instanceId: string;
  orderId: string;
  quoteLineId: string;
  /** 1, 2, 3… in the quote's line order. */
  position: number;
  name: string;
  fulfilment: OrderLineFulfilment;
  status: OrderLineStatus;
  /** The seller's own item state (MEF `MEFProductOrderItemStateType`), verbatim; null for manual lines. */
  supplierStatus: string | null;
  /** The supplier order (a task) the line is part of; null for manual lines. */
  supplierOrderRef: string | null;
  /** The source it is ordered from (the quote line's); null for the instance's own products. */
  sourceId: string | null;
  /** The source's name and type, as the quote line had them (issue 49); null for the instance's own products. */
  sourceName: string | null;
  sourceType: SourceType | null;
  /** The seller's `productOrder` id, once placed. */
  supplierOrderId: string | null;
  /** The order item's id within the seller's order (the buyer's item id). */
  supplierItemId: string | null;
  /** Contract term (months) of the quote line, null for the instance's own products. */
  contractTermMonths: number | null;
  /**
   * The quote line's order terms (null for manual lines); replaced by the seller's new quote when an
   * expired one was quoted again at the same price.
   */
  orderTerms: OrderTerms | null;
  /** The purchase prices the customer's quote was made from (the quote line's; minor units of `currency`). */
  purchaseMrcMinor: number | null;
  purchaseNrcMinor: number | null;
  currency: string;
  /** Set when the seller's new quote changed the purchase price (the line then `failed`). */
  priceChange: OrderLinePriceChange | null;
  /** The line's cancellation; null while none was asked. */
  cancellation: OrderLineCancellation | null;
  expectedCompletionDate: Date | null;
  completionDate: Date | null;
  /** The delivered product in the seller's inventory (MEF 116 `Product.id`, `status`; MEF 123 R61). */
  inventoryProductId: string | null;
  inventoryProductStatus: string | null;
  milestones: OrderMilestone[];
  charges: OrderCharge[];
  errorCode: string | null;
  errorMessage: string | null;
  /** The note of the last manual move, and who made it when (manual lines). */
  note: string | null;
  /** What keeps the line waiting on its seller beyond its state (issue 49); null when nothing does. */
  notice: OrderLineNotice | null;
  statusChangedByUserId: string | null;
  statusChangedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An order with the names its document nests and its lines in position order. */
export interface OrderRecord {
  order: OrderRow;
  customer: { id: string; name: string };
  lines: OrderLineRow[];
}

/**
 * What an `order:changed` event stores: the order's record as the same transaction left it (no read back
 * when it is published: a later change must not show through an earlier event).
 */
export interface StoredOrderChange {
  kind: 'created' | 'updated';
  /** The order's version at that commit. */
  version: number;
  /** The order's `updatedAt`, in milliseconds since the epoch (UTC). */
  updatedAtMs: number;
  record: OrderRecord;
}

/** A line to create with its order; the store assigns ids, the order and the time. */
export type NewOrderLine = Pick<
  OrderLineRow,
  | 'quoteLineId'
  | 'position'
  | 'name'
  | 'fulfilment'
  | 'sourceId'
  | 'sourceName'
  | 'sourceType'
  | 'contractTermMonths'
  | 'orderTerms'
  | 'purchaseMrcMinor'
  | 'purchaseNrcMinor'
  | 'currency'
>;

/** An order to place (validated by the caller: the quote is the instance's, has lines and has not expired). */
export interface NewOrder {
  instanceId: string;
  quoteId: string;
  customerId: string;
  userId: string | null;
  requestedCompletionDate: Date;
  contact: OrderContact | null;
  lines: NewOrderLine[];
  /**
   * The quote's `updatedAt` as the caller read the lines from it: when lines were added since, nothing is
   * written (`'quote_changed'`), so an order never holds other lines than its quote (issue 49).
   */
  quoteUpdatedAt: Date;
  now: Date;
  /** The placing request's W3C trace context, kept on each supplier order; absent or null without tracing. */
  traceContext?: string | null;
}

/** A manual move of a line by an admin. */
export interface ManualLineMove {
  instanceId: string;
  orderId: string;
  lineId: string;
  status: OrderLineStatus;
  note: string | null;
  userId: string | null;
  now: Date;
}

/** A reseller's request to cancel an order. */
export interface OrderCancellationRequest {
  instanceId: string;
  orderId: string;
  reason: string;
  userId: string | null;
  now: Date;
}

/** Why a cancellation was refused: no such order, or one already final or being cancelled. */
export type OrderCancellationRefusal = 'not_found' | 'not_cancellable';

/** A cancellation charge's new state, after the seller took the buyer's answer (or said it timed out). */
export interface CancellationChargeUpdate {
  instanceId: string;
  orderId: string;
  charge: OrderCharge;
  now: Date;
}

/** Why a manual move was refused. */
export type ManualLineRefusal = 'not_found' | 'not_manual' | 'line_final';

/** A charge's new state on a line, after the seller took the buyer's answer (or said it timed out). */
export interface LineChargeUpdate {
  instanceId: string;
  orderId: string;
  lineId: string;
  charge: OrderCharge;
  now: Date;
}

/** An order's position in the list order (newest first, ties by id bytewise, descending): a cursor. */
export interface OrderPosition {
  createdAt: Date;
  id: string;
}

/** A slice of an instance's orders after a position (or an offset: REST pages), with optional filters. */
export interface OrderSliceQuery {
  customerId: string | null;
  status: OrderStatus | null;
  after: OrderPosition | null;
  /** Orders skipped after the position (REST's `page`); 0 for cursors. */
  offset: number;
  limit: number;
}

/** Order operations. Every write that changes an order also writes its `order:changed` event. */
export interface OrderOperations {
  /**
   * Creates an order with its lines and its supplier orders (one per source of its `supplier` lines, due at
   * `now`) at once (one transaction or one statement), unless the quote has an order that is neither
   * `failed` nor `cancelled`; two concurrent placements of one quote make one order (SQLite: the check and
   * the insert under `BEGIN IMMEDIATE`; PostgreSQL: a partial unique index on such orders' quote).
   * The order's status is `pending` (its `none` lines are `completed` at once: `orderStatusOf`); a quote
   * without supplier lines is still `pending` until an admin moves its lines. The quote's row is read under
   * a lock that `addQuoteLines` also takes, so lines are never added between the check and the insert.
   *
   * @returns the new order's record; `'quote_ordered'` or `'quote_changed'` (lines were added since
   *   `quoteUpdatedAt`) with nothing written.
   */
  insertOrder: (input: NewOrder) => Promise<OrderRecord | 'quote_ordered' | 'quote_changed'>;
  /** One order of the instance with its lines, or undefined (also for another instance's id). */
  findOrder: (instanceId: string, id: string) => Promise<OrderRecord | undefined>;
  /**
   * The instance's order that has the line `lineId` (a GraphQL `OrderLine` node's order), with its lines.
   * Reads only. @returns undefined when no order of the instance has that line.
   */
  findOrderOfLine: (instanceId: string, lineId: string) => Promise<OrderRecord | undefined>;
  /** The instance's orders of one quote, newest first. */
  listOrdersOfQuotes: (instanceId: string, quoteIds: readonly string[]) => Promise<OrderRecord[]>;
  /** Number of the instance's orders that match the slice's filters. */
  countOrders: (
    instanceId: string,
    filter: Pick<OrderSliceQuery, 'customerId' | 'status'>,
  ) => Promise<number>;
  /**
   * Up to `limit` orders of the instance with their lines, newest first (ties by id bytewise,
   * descending), after a position and `offset` more, filtered by customer and status when given.
   */
  sliceOrders: (instanceId: string, query: OrderSliceQuery) => Promise<OrderRecord[]>;
  /**
   * Moves a `manual` line to a status, with the note, user and time, in one transaction; the order's
   * status is derived again and its event written.
   *
   * @returns the order's record, or why nothing was written.
   */
  moveManualOrderLine: (move: ManualLineMove) => Promise<OrderRecord | ManualLineRefusal>;
  /**
   * Replaces one charge on a line (matched by id) with its new state, in one transaction, with the
   * order's event. @returns the order's record, or undefined when the line or charge is not there.
   */
  updateOrderLineCharge: (update: LineChargeUpdate) => Promise<OrderRecord | undefined>;
  /**
   * Asks to cancel an order (issue "Orders, part 2", item 1), in one transaction under the order's lock:
   * refused unless the order is neither final (`completed`, `partially_completed`, `failed`, `cancelled`)
   * nor already being cancelled. Its manual lines that are not final become `cancelled` at once (their
   * cancellation `done`); its supplier lines that are not final show the cancellation `requested`; each of
   * its supplier orders that is not ended is marked (`cancelRequestedAt`) and made due now (and hurried, so
   * a step running meanwhile is followed by one that cancels). The order's status is derived again and its
   * event written.
   *
   * @returns the order's record, or why nothing was written.
   */
  requestOrderCancellation: (
    request: OrderCancellationRequest,
  ) => Promise<OrderRecord | OrderCancellationRefusal>;
  /**
   * Replaces one cancellation charge of an order (matched by id) with its new state, in one transaction,
   * with the order's event. @returns the order's record, or undefined when the order or charge is not there.
   */
  updateCancellationCharge: (update: CancellationChargeUpdate) => Promise<OrderRecord | undefined>;
}
