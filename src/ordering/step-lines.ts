/**
 * The line outcomes every supplier-order step (Sonata, `http`) records the same way: lines failed by a final
 * refusal of their placement, and lines cancelled before anything was sent.
 */
import type { OrderLineRow, SupplierLineProgress } from '../db/rows.js';
import { finalOrderLineStatuses } from '../db/values.js';

/** Every line `failed` with the refusal's code and message. */
export function failedLines(
  lines: readonly OrderLineRow[],
  code: string,
  message: string,
): SupplierLineProgress[] {
  return lines.map((line) => ({ lineId: line.id, status: 'failed', errorCode: code, errorMessage: message }));
}

/** The lines that have not ended, `cancelled` with their cancellation `done` (nothing was sent). */
export function cancelledUnsentLines(lines: readonly OrderLineRow[]): SupplierLineProgress[] {
  return lines
    .filter((line) => !finalOrderLineStatuses.includes(line.status))
    .map((line) => ({
      lineId: line.id,
      status: 'cancelled',
      cancellation: { state: 'done', message: null },
    }));
}
