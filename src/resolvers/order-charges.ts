/**
 * A seller's charge on an order line, answered by the reseller (issue "Orders, part 1", item 4): accepted
 * or declined at the seller, the line showing the charge's new state.
 */
import { z } from 'zod';
import type { Context } from '../context.js';
import type { OrderCharge, OrderRecord } from '../db/rows.js';
import { AppError, notFound } from '../errors.js';
import { SourceError } from '../gathering/sources/types.js';
import { answerSonataCharge } from '../ordering/sonata-charges.js';
import { requireViewer } from './authentication.js';
import { parseInput } from './validation.js';

/** `respondToCharge` input (REST: the path's ids and `accept`/`decline`). */
export const chargeAnswerInput = z.strictObject({
  orderId: z.string().min(1).max(100),
  lineId: z.string().min(1).max(100),
  chargeId: z.string().min(1).max(200),
  accept: z.boolean(),
});

/**
 * Accepts or declines a charge the seller put on a line of one of the caller's orders. The answer goes to
 * the seller at once (`PATCH /charge/{id}`); the line then shows the charge as the seller answered, and
 * the order worker reads the order again.
 *
 * @throws {AppError} `NOT_FOUND` for an unknown order, line or charge; `CONFLICT` for a charge answered
 *   already, one past its `responseDueDate` (it then shows `timeout`, MEF 123 R96) or one the seller refuses
 *   to take an answer for; `UNAVAILABLE` when the seller cannot be reached (try again); `FORBIDDEN` without
 *   `instance_admin` or `ordering`.
 */
export async function respondToCharge(ctx: Context, input: unknown): Promise<OrderRecord> {
  const viewer = requireViewer(ctx, ['ordering']);
  const fields = parseInput(chargeAnswerInput, input, 'The charge was not answered.');
  const record = await ctx.db.findOrder(viewer.instanceId, fields.orderId);
  if (!record) throw notFound('Order', fields.orderId);
  const line = record.lines.find((each) => each.id === fields.lineId);
  if (!line) throw notFound('Order line', fields.lineId);
  const charge = line.charges.find((each) => each.id === fields.chargeId);
  if (!charge || line.sourceId === null) throw notFound('Charge', fields.chargeId);
  const now = ctx.clock.now();
  const answered = await answerCharge(
    ctx,
    viewer.instanceId,
    line.sourceId,
    charge,
    fields.accept,
    (updated) =>
      ctx.db.updateOrderLineCharge({
        instanceId: viewer.instanceId,
        orderId: record.order.id,
        lineId: line.id,
        charge: updated,
        now,
      }),
  );
  await ctx.db.hurrySupplierOrders(line.sourceId, line.supplierOrderId, now);
  ctx.events.written();
  return answered ?? record;
}

/** `respondToCancellationCharge` input (REST: the path's ids and `accept`/`decline`). */
export const cancellationChargeAnswerInput = chargeAnswerInput.omit({ lineId: true });

/**
 * Accepts or declines the charge a seller asks for cancelling its supplier order (issue "Orders, part 2",
 * item 1: it belongs to the order, not to a line), as line charges are answered (`respondToCharge`).
 *
 * @throws {AppError} as `respondToCharge`.
 */
export async function respondToCancellationCharge(ctx: Context, input: unknown): Promise<OrderRecord> {
  const viewer = requireViewer(ctx, ['ordering']);
  const fields = parseInput(cancellationChargeAnswerInput, input, 'The charge was not answered.');
  const record = await ctx.db.findOrder(viewer.instanceId, fields.orderId);
  if (!record) throw notFound('Order', fields.orderId);
  const charge = record.order.cancellationCharges.find((each) => each.id === fields.chargeId);
  if (!charge) throw notFound('Charge', fields.chargeId);
  const now = ctx.clock.now();
  const answered = await answerCharge(
    ctx,
    viewer.instanceId,
    charge.sourceId,
    charge,
    fields.accept,
    (updated) =>
      ctx.db.updateCancellationCharge({
        instanceId: viewer.instanceId,
        orderId: record.order.id,
        charge: updated,
        now,
      }),
  );
  await ctx.db.hurrySupplierOrders(charge.sourceId, null, now);
  ctx.events.written();
  return answered ?? record;
}

/**
 * Sends the reseller's answer to a seller's charge (`PATCH /charge/{id}`) and stores the charge as the
 * seller answered it through `store`; a charge past its `responseDueDate` is stored as `timeout` and refused.
 *
 * @returns what `store` returned.
 * @throws {AppError} `CONFLICT` for a charge answered already, past due (MEF 123 R96) or one the seller
 *   refuses to take an answer for; `UNAVAILABLE` when the seller cannot be reached; `NOT_FOUND` when the
 *   charge's source is gone.
 */
async function answerCharge(
  ctx: Context,
  instanceId: string,
  sourceId: string,
  charge: OrderCharge,
  accept: boolean,
  store: (updated: OrderCharge) => Promise<OrderRecord | undefined>,
): Promise<OrderRecord | undefined> {
  const now = ctx.clock.now();
  const pastDue = charge.responseDueDate !== null && now.getTime() > Date.parse(charge.responseDueDate);
  const late = () =>
    new AppError(
      'CONFLICT',
      `Charge ${charge.id} was due by ${charge.responseDueDate}; the seller takes no answer after that (MEF 123 R96).`,
    );
  if (charge.state === 'timeout') throw late();
  if (charge.state !== 'awaitingResponse') {
    throw new AppError('CONFLICT', `Charge ${charge.id} was answered already; it is ${charge.state}.`);
  }
  if (pastDue) {
    await store({ ...charge, state: 'timeout' });
    ctx.events.written();
    throw late();
  }
  const source = (await ctx.db.listSources(instanceId)).find((each) => each.id === sourceId);
  if (!source) throw notFound('Charge', charge.id);
  let answered: OrderCharge;
  try {
    answered = await answerSonataCharge(source, charge.id, accept, () => ctx.clock.now());
  } catch (error) {
    if (error instanceof SourceError && !error.retryable) {
      throw new AppError(
        'CONFLICT',
        `The seller did not take the answer to charge ${charge.id}: ${error.message}`,
      );
    }
    throw new AppError(
      'UNAVAILABLE',
      `The seller could not be reached about charge ${charge.id}; try again.`,
    );
  }
  return store(answered);
}
