/**
 * The REST documents of orders (issue "Orders, part 1", item 7), in the seed contract's style: snake_case,
 * `_document_type`, ISO 8601 timestamps with UTC offset, amounts in major units.
 */
import type { OrderCharge, OrderLineRow, OrderRecord } from '../db/rows.js';
import { toMajorUnits } from '../money.js';
import { sellerDateTime } from '../ordering/seller-dates.js';
import { productSourceOf } from '../resolvers/product-sources.js';
import { isoTimestamp, sourceDocument } from './documents.js';

const timestampOrNull = (date: Date | null) => (date === null ? null : isoTimestamp(date));
/** A date a seller gave as text, written like every other timestamp; null when it is not a date-time. */
const sellerTimestamp = (text: string | null) => timestampOrNull(sellerDateTime(text));

/** A charge on a line, as the seller last showed it, amounts in major units of their currency. */
export function orderChargeDocument(charge: OrderCharge) {
  return {
    id: charge.id,
    state: charge.state,
    response_due_date: sellerTimestamp(charge.responseDueDate),
    items: charge.items.map((item) => ({
      id: item.id,
      price_type: item.priceType,
      price_category: item.priceCategory,
      amount: toMajorUnits(item.amountMinor, item.currency),
      currency: item.currency,
      blocking: item.blocking,
      state: item.state,
    })),
  };
}

/** An order line: a quote line ordered, and where its fulfilment stands. */
export function orderLineDocument(line: OrderLineRow) {
  return {
    id: line.id,
    quote_line_id: line.quoteLineId,
    name: line.name,
    source: sourceDocument(productSourceOf(line)),
    fulfilment: line.fulfilment,
    status: line.status,
    supplier_status: line.supplierStatus,
    supplier_order_id: line.supplierOrderId,
    supplier_item_id: line.supplierItemId,
    expected_completion_date: timestampOrNull(line.expectedCompletionDate),
    completion_date: timestampOrNull(line.completionDate),
    inventory_product_id: line.inventoryProductId,
    inventory_product_status: line.inventoryProductStatus,
    milestones: line.milestones.map((milestone) => ({
      name: milestone.name,
      date: sellerTimestamp(milestone.date),
      description: milestone.description,
    })),
    charges: line.charges.map(orderChargeDocument),
    price_change: line.priceChange && {
      quoted_mrc: toMajorUnits(line.priceChange.quotedMrcMinor, line.priceChange.currency),
      quoted_nrc: toMajorUnits(line.priceChange.quotedNrcMinor, line.priceChange.currency),
      new_mrc: toMajorUnits(line.priceChange.newMrcMinor, line.priceChange.currency),
      new_nrc: toMajorUnits(line.priceChange.newNrcMinor, line.priceChange.currency),
      currency: line.priceChange.currency,
    },
    cancellation: line.cancellation && {
      state: line.cancellation.state,
      message: line.cancellation.message,
    },
    error: line.errorCode === null ? null : { code: line.errorCode, message: line.errorMessage ?? '' },
    // Absent from order records stored in events before issue 49.
    notice: line.notice ? { code: line.notice.code, message: line.notice.message } : null,
    note: line.note,
    status_changed_at: timestampOrNull(line.statusChangedAt),
    status_changed_by_user_id: line.statusChangedByUserId,
    _document_type: 'order_line' as const,
  };
}

/** The order record: its quote, customer, status and lines. */
export function orderDocument(record: OrderRecord) {
  const { order } = record;
  return {
    id: order.id,
    quote_id: order.quoteId,
    customer: { id: record.customer.id, name: record.customer.name, _document_type: 'customer' as const },
    status: order.status,
    lines: record.lines.map(orderLineDocument),
    requested_completion_date: isoTimestamp(order.requestedCompletionDate),
    cancellation:
      order.cancelRequestedAt === null
        ? null
        : { reason: order.cancelReason ?? '', requested_at: isoTimestamp(order.cancelRequestedAt) },
    cancellation_charges: order.cancellationCharges.map((charge) => ({
      ...orderChargeDocument(charge),
      source_id: charge.sourceId,
    })),
    created_at: isoTimestamp(order.createdAt),
    updated_at: isoTimestamp(order.updatedAt),
    _document_type: 'order' as const,
  };
}
