import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
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
import { idColumn, instant, timestamps } from './columns.js';
import { customers } from './customers.js';
import { quotes } from './quotes.js';
import { instances, users } from './tenancy.js';

/** An order of a quote (`src/db/contract/orders.ts`). Dates as `timestamptz`. */
export const orders = pgTable(
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
    requestedCompletionDate: instant().notNull(),
    contact: jsonb().$type<OrderContact>(),
    cancelReason: text(),
    cancelRequestedAt: instant(),
    cancelRequestedByUserId: text().references(() => users.id),
    cancellationCharges: jsonb().$type<CancellationCharge[]>().notNull().default([]),
    version: integer().notNull(),
    ...timestamps,
  },
  (t) => [
    index('orders_list_idx').on(t.instanceId, t.createdAt, sql`${t.id} collate "C"`),
    index('orders_quote_idx').on(t.quoteId),
    // One order per quote that is neither failed nor cancelled (`contract/orders.ts`, `insertOrder`): two
    // placements of one quote meet here, the second waiting for the first's commit.
    uniqueIndex('orders_open_quote_idx').on(t.quoteId).where(sql`${t.status} not in ('failed', 'cancelled')`),
    index('orders_customer_idx').on(t.instanceId, t.customerId, t.createdAt, sql`${t.id} collate "C"`),
  ],
);

/**
 * The seller order of one source of an order, and its task: due at `next_check_at`, claimed under a lease
 * like a gathering task. Its id is the seller order's `externalId`.
 */
export const supplierOrders = pgTable(
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
    leaseExpiresAt: instant(),
    nextCheckAt: instant(),
    /** When a seller's notification last asked for a read: a step that began before reads again at once. */
    hurriedAt: instant(),
    /** When the last placement (`POST /productOrder`) was about to be sent: written before it is sent. */
    postedAt: instant(),
    /** When the reseller asked to cancel; the task then cancels at the seller. */
    cancelRequestedAt: instant(),
    /** When the last cancellation (`POST /cancelProductOrder`) was about to be sent: written before it is sent. */
    cancelPostedAt: instant(),
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
    notifiedChargeIds: jsonb().$type<string[]>().notNull().default([]),
    ...timestamps,
  },
  (t) => [
    index('supplier_orders_due_idx').on(t.nextCheckAt),
    index('supplier_orders_order_idx').on(t.orderId),
  ],
);

/** A line of an order: one quote line, with where its fulfilment stands. JSON columns as in the contract. */
export const orderLines = pgTable(
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
    orderTerms: jsonb().$type<OrderTerms>(),
    purchaseMrcMinor: integer(),
    purchaseNrcMinor: integer(),
    currency: text().notNull().default('EUR'),
    priceChange: jsonb().$type<OrderLinePriceChange>(),
    cancellation: jsonb().$type<OrderLineCancellation>(),
    expectedCompletionDate: instant(),
    completionDate: instant(),
    inventoryProductId: text(),
    inventoryProductStatus: text(),
    milestones: jsonb().$type<OrderMilestone[]>().notNull(),
    charges: jsonb().$type<OrderCharge[]>().notNull(),
    errorCode: text(),
    errorMessage: text(),
    note: text(),
    /** Why a line waits on its seller, e.g. a charge that cannot be read (issue 49); null when nothing does. */
    notice: jsonb().$type<OrderLineNotice>(),
    statusChangedByUserId: text().references(() => users.id),
    statusChangedAt: instant(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('order_lines_position_unique').on(t.orderId, t.position),
    index('order_lines_supplier_order_idx').on(t.supplierOrderRef),
  ],
);
