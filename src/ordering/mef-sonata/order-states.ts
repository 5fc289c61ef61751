import type { ProductOrderItemState } from './order-answers.js';

/*
 * How a Sonata seller's item states become our order line statuses, and how the lines' statuses make the
 * order's. Pure functions: the order task and its tests call them with what the seller last said.
 */

/**
 * An order line's status: `pending` (not sent yet), `submitted` (the seller acknowledged it), `in_progress`,
 * and the final `completed`, `failed`, `cancelled`.
 */
export type LineStatus = 'pending' | 'submitted' | 'in_progress' | 'completed' | 'failed' | 'cancelled';

/**
 * An order's status: `pending`, `submitted`, `in_progress`, and the final `completed`,
 * `partially_completed`, `failed`, `cancelled`.
 */
export type OrderStatus =
  | 'pending'
  | 'submitted'
  | 'in_progress'
  | 'completed'
  | 'partially_completed'
  | 'failed'
  | 'cancelled';

/** The line statuses no line leaves again. */
export const finalLineStatuses: readonly LineStatus[] = ['completed', 'failed', 'cancelled'];

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
export function lineStatusOf(state: ProductOrderItemState): LineStatus {
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
 * An order's status from its lines' statuses:
 *
 * - every line ended: `completed` when every line completed, `cancelled` when every line was cancelled,
 *   `partially_completed` when some but not all completed, otherwise (failed lines, perhaps with cancelled
 *   ones, none completed) `failed` — these four are final;
 * - `pending` while every line is (and for an order without lines);
 * - `in_progress` while any line is in progress, or some have ended and others not;
 * - `submitted` otherwise (some lines submitted, the rest pending).
 */
export function orderStatusOf(lines: readonly LineStatus[]): OrderStatus {
  if (lines.length === 0 || lines.every((line) => line === 'pending')) return 'pending';
  const ended = lines.filter((line) => finalLineStatuses.includes(line));
  if (ended.length === lines.length) {
    const completed = ended.filter((line) => line === 'completed').length;
    if (completed === lines.length) return 'completed';
    if (completed > 0) return 'partially_completed';
    if (ended.every((line) => line === 'cancelled')) return 'cancelled';
    return 'failed';
  }
  if (ended.length > 0 || lines.includes('in_progress')) return 'in_progress';
  return 'submitted';
}
