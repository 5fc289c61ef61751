/**
 * The live stream of orders (`orderUpdated`): every placement and change of the caller's instance's orders,
 * as the outbox relay publishes them (`order:changed`), in the order of their commits.
 */
import { Repeater } from '@repeaterjs/repeater';
import type { Context } from '../context.js';
import type { OrderRecord } from '../db/rows.js';
import { reviveOrderRecord } from '../db/shared/orders.js';
import { requireViewer } from './authentication.js';
import { requestProgress } from './availability-events.js';
import { orderReaders } from './orders.js';

/**
 * Where a payload of `orderUpdated` stands — its order and version, which grows with every change — so
 * shared subscriptions never send a subscriber an older state than it has; null for anything else.
 */
export function orderProgress(payload: unknown): { subject: string; rank: number } | null {
  if (typeof payload !== 'object' || payload === null || !('order' in payload) || !('lines' in payload))
    return null;
  const { order } = payload as OrderRecord;
  return { subject: order.id, rank: order.version };
}

/** Where a subscription payload stands, whichever stream it is of (requests or orders). */
export function subscriptionProgress(payload: unknown): { subject: string; rank: number } | null {
  return requestProgress(payload) ?? orderProgress(payload);
}

/**
 * The live stream behind `orderUpdated`: every placement and change of the caller's instance's orders, or
 * only of `ids`, whose current states come first. As `availabilityRequestUpdates`: the bus listener is
 * attached before the snapshot is read, a state not newer than one sent is skipped, and with
 * `ctx.subscriptionPhase` (shared subscriptions) `snapshot` gives only the current states, `live` only
 * the changes.
 *
 * @throws {AppError} `UNAUTHENTICATED` / `FORBIDDEN` as `requireViewer` (readers: `connectivity_check`,
 *   `ordering`).
 */
export function orderUpdates(
  ctx: Context,
  input: { ids?: readonly string[] | null },
): AsyncIterableIterator<OrderRecord> {
  const viewer = requireViewer(ctx, orderReaders);
  const ids = input.ids ? new Set(input.ids) : null;
  const phase = ctx.subscriptionPhase;
  const current = async (push: (record: OrderRecord) => Promise<unknown>) => {
    for (const id of ids ?? []) {
      const record = await ctx.db.findOrder(viewer.instanceId, id);
      if (record) await push(record);
    }
  };
  if (phase === 'snapshot') {
    return new Repeater<OrderRecord>(async (push, stop) => {
      await current(push);
      stop();
    });
  }
  return new Repeater<OrderRecord>(async (push, stop) => {
    const source = ctx.events.subscribe('order:changed', viewer.instanceId);
    let next = source.next(); // attaches the listener now, before the snapshot is read
    const stopped = stop.then(() => ({ done: true as const, value: undefined }));
    void stopped.then(() => source.return?.());
    const sent = new Map<string, number>();
    const send = async (record: OrderRecord) => {
      if ((sent.get(record.order.id) ?? -1) >= record.order.version) return;
      sent.set(record.order.id, record.order.version);
      await push(record);
    };
    if (phase !== 'live') await current(send);
    for (;;) {
      const result = await Promise.race([next, stopped]);
      if (result.done) break;
      // Through Redis the record arrives as JSON: its dates are strings again.
      const record = reviveOrderRecord(result.value.record);
      if (!ids || ids.has(record.order.id)) await send(record);
      next = source.next();
    }
    await source.return?.();
  });
}
