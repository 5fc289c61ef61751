import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { OrderTerms } from '../../contract/order-terms.js';
import type {
  CancellationCharge,
  OrderCharge,
  OrderContact,
  OrderLineCancellation,
  OrderLineNotice,
  OrderLinePriceChange,
  OrderMilestone,
} from '../../contract/orders.js';
import {
  orderLineFulfilments,
  orderLineStatuses,
  orderStatuses,
  sourceTypes,
  supplierOrderStatuses,
} from '../../values.js';
import { sources } from './catalog.js';
import { idColumn, timestamps } from './columns.js';
import { customers } from './customers.js';
import { quotes } from './quotes.js';
import { instances, users } from './tenancy.js';

/** An order of a quote (`src/db/contract/orders.ts`). Dates as integer milliseconds (UTC). */
export const orders = sqliteTable(
  'orders',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    quoteId: text()
      .notNull()
      .references(() => quotes.id),
    customerId: text()
      .notNull()
      .references(() => customers.id),
    createdByUserId: text().references(() => users.id),
    status: text({ enum: orderStatuses }).notNull(),
    requestedCompletionDate: integer({ mode: 'timestamp_ms' }).notNull(),
    contact: text({ mode: 'json' }).$type<OrderContact>(),
    cancelReason: text(),
    cancelRequestedAt: integer({ mode: 'timestamp_ms' }),
    cancelRequestedByUserId: text().references(() => users.id),
    cancellationCharges: text({ mode: 'json' }).$type<CancellationCharge[]>().notNull().default([]),
    version: integer().notNull(),
    ...timestamps,
  },
  (t) => [
    index('orders_list_idx').on(t.instanceId, t.createdAt, t.id),
    index('orders_quote_idx').on(t.quoteId),
    // One order per quote that is neither failed nor cancelled, as on PostgreSQL (where placements rely on
    // it); here `insertOrder` checks under `BEGIN IMMEDIATE` first, and the index only backs that up.
    uniqueIndex('orders_open_quote_idx').on(t.quoteId).where(sql`${t.status} not in ('failed', 'cancelled')`),
    index('orders_customer_idx').on(t.instanceId, t.customerId, t.createdAt, t.id),
  ],
);

/**
 * The seller order of one source of an order, and its task: due at `next_check_at`, claimed under a lease
 * like a gathering task. Its id is the seller order's `externalId`.
 */
export const supplierOrders = sqliteTable(
  'supplier_orders',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    orderId: text()
      .notNull()
      .references(() => orders.id),
    sourceId: text()
      .notNull()
      .references(() => sources.id),
    status: text({ enum: supplierOrderStatuses }).notNull(),
    sellerOrderId: text(),
    sellerState: text(),
    attempts: integer().notNull(),
    leaseOwner: text(),
    leaseExpiresAt: integer({ mode: 'timestamp_ms' }),
    nextCheckAt: integer({ mode: 'timestamp_ms' }),
    /** When a seller's notification last asked for a read: a step that began before reads again at once. */
    hurriedAt: integer({ mode: 'timestamp_ms' }),
    /** When the last placement (`POST /productOrder`) was about to be sent: written before it is sent. */
    postedAt: integer({ mode: 'timestamp_ms' }),
    /** When the reseller asked to cancel; the task then cancels at the seller. */
    cancelRequestedAt: integer({ mode: 'timestamp_ms' }),
    /** When the last cancellation (`POST /cancelProductOrder`) was about to be sent: written before it is sent. */
    cancelPostedAt: integer({ mode: 'timestamp_ms' }),
    sellerCancelId: text(),
    sellerCancelState: text(),
    errorCode: text(),
    errorMessage: text(),
    /**
     * The W3C trace context (`traceparent` and `tracestate` as a JSON object, `src/telemetry/trace-context.ts`) of the request
     * that created it, when tracing was on: its worker's span continues that trace (issue 37). Null
     * without tracing.
     */
    traceContext: text(),
    /**
     * Charges a seller's notification named (`chargeCreateEvent` …) that no step has read yet (issue 49): read
     * by the next step, then removed.
     */
    notifiedChargeIds: text({ mode: 'json' }).$type<string[]>().notNull().default([]),
    ...timestamps,
  },
  (t) => [
    index('supplier_orders_due_idx').on(t.nextCheckAt),
    index('supplier_orders_order_idx').on(t.orderId),
  ],
);

/** A line of an order: one quote line, with where its fulfilment stands. JSON columns as in the contract. */
export const orderLines = sqliteTable(
  'order_lines',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    orderId: text()
      .notNull()
      .references(() => orders.id),
    quoteLineId: text().notNull(),
    position: integer().notNull(),
    name: text().notNull(),
    fulfilment: text({ enum: orderLineFulfilments }).notNull(),
    status: text({ enum: orderLineStatuses }).notNull(),
    supplierStatus: text(),
    supplierOrderRef: text().references(() => supplierOrders.id),
    sourceId: text(),
    /** The source's name and type, as the quote line had them (null for the instance's own products; issue 49). */
    sourceName: text(),
    sourceType: text({ enum: sourceTypes }),
    supplierOrderId: text(),
    supplierItemId: text(),
    contractTermMonths: integer(),
    orderTerms: text({ mode: 'json' }).$type<OrderTerms>(),
    purchaseMrcMinor: integer(),
    purchaseNrcMinor: integer(),
    currency: text().notNull().default('EUR'),
    priceChange: text({ mode: 'json' }).$type<OrderLinePriceChange>(),
    cancellation: text({ mode: 'json' }).$type<OrderLineCancellation>(),
    expectedCompletionDate: integer({ mode: 'timestamp_ms' }),
    completionDate: integer({ mode: 'timestamp_ms' }),
    inventoryProductId: text(),
    inventoryProductStatus: text(),
    milestones: text({ mode: 'json' }).$type<OrderMilestone[]>().notNull(),
    charges: text({ mode: 'json' }).$type<OrderCharge[]>().notNull(),
    errorCode: text(),
    errorMessage: text(),
    note: text(),
    /** Why a line waits on its seller, e.g. a charge that cannot be read (issue 49); null when nothing does. */
    notice: text({ mode: 'json' }).$type<OrderLineNotice>(),
    statusChangedByUserId: text().references(() => users.id),
    statusChangedAt: integer({ mode: 'timestamp_ms' }),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('order_lines_position_unique').on(t.orderId, t.position),
    index('order_lines_supplier_order_idx').on(t.supplierOrderRef),
  ],
);
