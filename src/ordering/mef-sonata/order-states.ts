import { orderStatusOf as storedOrderStatusOf } from '../../db/shared/orders.js';
import type { OrderLineStatus, OrderStatus } from '../../db/values.js';
import type { ProductOrderItemState } from './order-answers.js';

/*
 * How a Sonata seller's item states become our order line statuses (`orderLineStatuses` of src/db/values.ts),
 * and how the lines' statuses make the order's. Pure functions: the order task and its tests call them with
 * what the seller last said.
 */

/**
 * The line status of a Product Order Item's state (MEF 123 10.0.0 `MEFProductOrderItemStateType`, the
 * item state machine of §6.1.10):
 *
 * | MEF item state | line status |
 * |---|---|
 * | `acknowledged` (received, being validated) | `submitted` |
 * | `inProgress`; `held` (awaiting a Charge answer); `pending` (a cancel or date change being assessed) | `in_progress` |
 * | `completed` | `completed` |
 * | `failed`; `rejected`, `rejected.validated`, `rejected.unassessed` (the order failed validation) | `failed` |
 * | `cancelled` | `cancelled` |
 *
 * A line not sent yet has no MEF state: it is `pending` until the seller acknowledges it.
 */
export function lineStatusOf(state: ProductOrderItemState): OrderLineStatus {
  switch (state) {
    case 'acknowledged':
      return 'submitted';
    case 'inProgress':
    case 'held':
    case 'pending':
      return 'in_progress';
    case 'completed':
      return 'completed';
    case 'failed':
    case 'rejected':
    case 'rejected.validated':
    case 'rejected.unassessed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
  }
}

/**
 * An order's status from its lines' statuses — the store's rule (`orderStatusOf` of src/db/shared/orders.ts),
 * so the gateway has one:
 *
 * - every line ended: `completed` when every line completed, `cancelled` when every line was cancelled,
 *   `partially_completed` when some but not all completed, otherwise (failed lines, perhaps with cancelled
 *   ones, none completed) `failed` — these four are final;
 * - `in_progress` while any line is in progress, or some have ended and others not;
 * - `submitted` once any line is submitted (the rest pending);
 * - `pending` while every line is (and for an order without lines).
 */
export function orderStatusOf(lines: readonly OrderLineStatus[]): OrderStatus {
  return storedOrderStatusOf(lines.map((status) => ({ status })));
}
