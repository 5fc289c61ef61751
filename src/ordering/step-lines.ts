/**
 * The line outcomes every supplier-order step (Sonata, `http`) records the same way: lines failed by a final
 * refusal of their placement, lines cancelled before anything was sent, and which failures of a placement
 * are no refusal.
 */
import type { OrderLineRow, SupplierLineProgress } from '../db/rows.js';
import { finalOrderLineStatuses } from '../db/values.js';

/** A line's notice cleared, when it shows one: an ended line waits for nothing. */
const noticeCleared = (line: OrderLineRow) => (line.notice === null ? {} : { notice: null });

/** Every line `failed` with the refusal's code and message (a notice it showed cleared). */
export function failedLines(
  lines: readonly OrderLineRow[],
  code: string,
  message: string,
): SupplierLineProgress[] {
  return lines.map((line) => ({
    lineId: line.id,
    status: 'failed',
    errorCode: code,
    errorMessage: message,
    ...noticeCleared(line),
  }));
}

/**
 * The lines that have not ended, `cancelled` with their cancellation `done` (nothing was sent; a notice
 * they showed cleared).
 */
export function cancelledUnsentLines(lines: readonly OrderLineRow[]): SupplierLineProgress[] {
  return lines
    .filter((line) => !finalOrderLineStatuses.includes(line.status))
    .map((line) => ({
      lineId: line.id,
      status: 'cancelled',
      cancellation: { state: 'done', message: null },
      ...noticeCleared(line),
    }));
}

/**
 * The codes of an answer a supplier sent but the gateway could not read (docs/supplier-contract.md, the
 * codes every remote source shares): a body that is not JSON, one too large, or one not of the contract's
 * shape (or a status the call does not expect). Unlike a refusal, such an answer to a placement does not say
 * the supplier took nothing, so its lines are not failed: the placement is looked up by its external id.
 */
export const unreadableAnswerCodes: ReadonlySet<string> = new Set([
  'MALFORMED_RESPONSE',
  'RESPONSE_TOO_LARGE',
  'INVALID_RESPONSE',
]);

/** Whether a placement's final failure `code` says the supplier took nothing (a refusal), so its lines fail. */
export function placementRefused(code: string): boolean {
  return !unreadableAnswerCodes.has(code);
}
