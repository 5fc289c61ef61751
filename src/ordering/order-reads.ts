/**
 * When a placed supplier order is read next, when no notification will say it changed (issue "Orders,
 * part 2", item 5: reads the order did not need count against the seller's bulkhead).
 */
import type { OrderLineRow, SupplierLineProgress } from '../db/rows.js';
import { lineChanges } from '../db/shared/orders.js';
import { finalOrderLineStatuses } from '../db/values.js';

/** The bounds of the wait between two reads of an order, ms (a source's `orderPoll`). */
export interface OrderReadPace {
  initialDelayMs: number;
  maxDelayMs: number;
}

/**
 * The wait (ms) before a placed order is read again, after a step that found `progress` for the supplier
 * order's `lines` (as they were stored before the step) at `now`:
 *
 * - the order has been quiet since its lines last changed (their latest `updatedAt`; 0 when this step
 *   changed one): it is read again after as long again, clamped to `[initialDelayMs, maxDelayMs]`. The wait
 *   thus doubles while nothing happens and starts over after each change, without a counter to reset;
 * - when an open line's `expectedCompletionDate` (MEF 123 R46: the seller's own estimate, set when it
 *   validates the order) is still ahead and sooner than that, the order is read then.
 *
 * @param lines the supplier order's lines as claimed (before this step's progress is recorded)
 * @param progress what this step found of those lines (a line missing from it did not change)
 * @returns milliseconds, ≥ 0
 */
export function nextOrderReadDelayMs(
  pace: OrderReadPace,
  lines: readonly OrderLineRow[],
  progress: readonly SupplierLineProgress[],
  now: Date,
): number {
  const found = new Map(progress.map((step) => [step.lineId, step]));
  let lastChangeMs = Number.NEGATIVE_INFINITY;
  let expectedMs = Number.POSITIVE_INFINITY;
  for (const line of lines) {
    const step = found.get(line.id);
    lastChangeMs = Math.max(
      lastChangeMs,
      step && lineChanges(line, step) ? now.getTime() : line.updatedAt.getTime(),
    );
    const status = step?.status ?? line.status;
    const expected = step?.expectedCompletionDate ?? line.expectedCompletionDate;
    if (!finalOrderLineStatuses.includes(status) && expected && expected.getTime() > now.getTime()) {
      expectedMs = Math.min(expectedMs, expected.getTime());
    }
  }
  const quietMs = Math.max(0, now.getTime() - lastChangeMs);
  const wait = Math.min(pace.maxDelayMs, Math.max(pace.initialDelayMs, quietMs));
  return Math.min(wait, expectedMs - now.getTime());
}
