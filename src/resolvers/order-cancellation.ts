/**
 * Cancelling an order (issue "Orders, part 2", item 1): the reseller asks once; manual lines are cancelled at
 * once, and the order worker cancels each open supplier order at its seller (MEF 123 `CancelProductOrder`,
 * or the `http` contract's cancel endpoint) and shows the cancellation's progress on the lines.
 */
import { z } from 'zod';
import type { Context } from '../context.js';
import type { OrderRecord } from '../db/rows.js';
import { AppError, notFound } from '../errors.js';
import { requireViewer } from './authentication.js';
import { parseInput } from './validation.js';

/** `cancelOrder` / `POST /orders/{id}/cancel` input. */
export const cancelOrderInput = z.strictObject({
  reason: z.string().trim().min(1, 'is required').max(1000),
});

/**
 * Asks to cancel one of the caller's orders, with a reason the sellers are told. Nothing is sent here: the
 * order worker, woken, sends each cancellation; the answer is the order as the request left it (manual
 * lines `cancelled`, supplier lines showing the cancellation `requested`).
 *
 * @throws {AppError} `VALIDATION` for a missing or too long reason; `NOT_FOUND` for an unknown (or another
 *   instance's) order; `CONFLICT` for an order that has ended or whose cancellation was asked already;
 *   `FORBIDDEN` without `instance_admin` or `ordering`. Nothing is written on any of them.
 */
export async function cancelOrder(ctx: Context, orderId: string, input: unknown): Promise<OrderRecord> {
  const viewer = requireViewer(ctx, ['ordering']);
  const fields = parseInput(cancelOrderInput, input, 'The order was not cancelled; nothing was written.');
  const cancelled = await ctx.db.requestOrderCancellation({
    instanceId: viewer.instanceId,
    orderId,
    reason: fields.reason,
    userId: viewer.userId,
    now: ctx.clock.now(),
  });
  if (cancelled === 'not_found') throw notFound('Order', orderId);
  if (cancelled === 'not_cancellable') {
    throw new AppError(
      'CONFLICT',
      `Order ${orderId} has ended or its cancellation was asked already; nothing was written.`,
    );
  }
  ctx.events.written();
  return cancelled;
}
