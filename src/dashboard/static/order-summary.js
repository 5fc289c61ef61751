// What an order's lines add up to, shared by the open orders list and the order page.

/**
 * How many of the order's lines have ended, and how many completed.
 * @param {any} order an order document
 * @returns {{total: number, completed: number, ended: number}}
 */
export function lineCounts(order) {
  const lines = Array.isArray(order?.lines) ? order.lines : [];
  return {
    total: lines.length,
    completed: lines.filter((line) => line.status === 'completed').length,
    ended: lines.filter((line) => ['completed', 'failed', 'cancelled'].includes(line.status)).length,
  };
}

/**
 * The charges waiting for the buyer's answer: on its lines and on the order's cancellation.
 * @param {any} order an order document
 * @returns {number}
 */
export function chargesAwaitingAnswer(order) {
  const awaiting = (charge) => charge?.state === 'awaitingResponse';
  const onLines = (order?.lines ?? []).flatMap((line) => line.charges ?? []).filter(awaiting).length;
  return onLines + (order?.cancellation_charges ?? []).filter(awaiting).length;
}

/**
 * Whether document `a` of an order is at least as recent as `b` (by `updated_at`).
 * @param {any} a
 * @param {any} b
 */
export function isAtLeastAsRecent(a, b) {
  return (Date.parse(a?.updated_at) || 0) >= (Date.parse(b?.updated_at) || 0);
}
