/**
 * The calls a supplier-order step makes after the order's own read (issue 49, item 1) — a held item's
 * Charges, a delivered product, the reseller's cancellation — each failing on its own, and the notices such
 * a failure puts on an order line (`OrderLineRow.notice`), while the read itself is recorded whatever
 * happens to them. The look-up that comes before a placement is sent again shows a notice too: it is
 * never skipped, so a failing one keeps the order waiting.
 */
import type { OrderLineNotice, OrderLineRow, SupplierLineProgress } from '../db/rows.js';
import { finalOrderLineStatuses } from '../db/values.js';
import { isStoreUnavailable } from '../errors.js';
import { SourceError } from '../gathering/sources/types.js';

/**
 * Every notice code a step writes:
 *
 * - `CHARGE_LIST_UNAVAILABLE`: a `held` item shows no Charge awaiting the buyer and the seller's Charge
 *   list (`GET /charge`, MEF 123 CR3) fails;
 * - `CHARGE_UNAVAILABLE`: a Charge of the item (or one listed or notified for a `held` item) cannot be read
 *   (`GET /charge/{id}`); the line keeps the Charges as last read;
 * - `INVENTORY_UNAVAILABLE`: a `completed` item's product cannot be read (MEF 116 `GET /product/{id}`); the
 *   line is recorded completed without it and the supplier order stays open until it is read;
 * - `ORDER_LOOKUP_UNAVAILABLE`: an order that may have reached the seller cannot be looked up by its
 *   external id, so it is not sent again;
 * - `CANCELLATION_UNAVAILABLE`: the reseller's cancellation cannot be sent or followed.
 */
export const lineNoticeCodes = [
  'CHARGE_LIST_UNAVAILABLE',
  'CHARGE_UNAVAILABLE',
  'INVENTORY_UNAVAILABLE',
  'ORDER_LOOKUP_UNAVAILABLE',
  'CANCELLATION_UNAVAILABLE',
] as const;
/** A code of {@link lineNoticeCodes}. */
export type LineNoticeCode = (typeof lineNoticeCodes)[number];

/** A call's outcome: its value, or the supplier's failure. */
export type Attempt<T> = { ok: true; value: T } | { ok: false; failure: SourceError };

/**
 * Makes one call whose failure must not undo what the step read before it: a {@link SourceError} is
 * returned as the failure. Everything else is thrown as it comes — the store unavailable
 * (`isStoreUnavailable`), any error once `signal` (the worker stopping) aborted, an error that is no
 * supplier's — so the step handles it as it handles its own calls.
 */
export async function attemptCall<T>(signal: AbortSignal, call: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    if (isStoreUnavailable(error) || signal.aborted || !(error instanceof SourceError)) throw error;
    return { ok: false, failure: error };
  }
}

/**
 * How a call failed, in a few words for a notice: `it answers GET /charge with 404` when the supplier
 * answered a status (the clients' messages say "answered <status>"), else `GET /charge fails (TIMEOUT)`.
 */
export function failedCall(call: string, failure: SourceError): string {
  const status = /\banswered (\d{3})\b/.exec(failure.message)?.[1];
  return status ? `it answers ${call} with ${status}` : `${call} fails (${failure.code})`;
}

/** `CHARGE_LIST_UNAVAILABLE`: a held item whose Charge the seller does not list (MEF 123 CR3). */
export function chargeListNotice(failure: SourceError): OrderLineNotice {
  return {
    code: 'CHARGE_LIST_UNAVAILABLE',
    message: `The seller holds this item for a charge that cannot be read: ${failedCall('GET /charge', failure)}; it is asked again.`,
  };
}

/** `CHARGE_UNAVAILABLE`: a Charge `chargeId` of the item that cannot be read. */
export function chargeNotice(chargeId: string, failure: SourceError): OrderLineNotice {
  return {
    code: 'CHARGE_UNAVAILABLE',
    message: `The seller’s charge ${chargeId} of this item cannot be read: ${failedCall(`GET /charge/${chargeId}`, failure)}; the line shows its charges as last read, and it is asked again.`,
  };
}

/** `INVENTORY_UNAVAILABLE`: a completed item whose product `productId` cannot be read (MEF 116). */
export function inventoryNotice(productId: string, failure: SourceError): OrderLineNotice {
  return {
    code: 'INVENTORY_UNAVAILABLE',
    message: `The item is completed, but its product ${productId} cannot be read from the seller’s inventory: ${failedCall(`GET /product/${productId}`, failure)}; it is asked again.`,
  };
}

/**
 * `ORDER_LOOKUP_UNAVAILABLE`: an order sent at `postedAt` that may be at the supplier, whose look-up `call`
 * (`GET /productOrder?externalId=…`, MEF 123; `GET /orders?external_id=…`) fails.
 */
export function orderLookupNotice(postedAt: Date, call: string, failure: SourceError): OrderLineNotice {
  return {
    code: 'ORDER_LOOKUP_UNAVAILABLE',
    message: `The order was sent at ${postedAt.toISOString()} and may be at the supplier, but it cannot be looked up: ${failedCall(call, failure)}; it is not sent again until the supplier answers the look-up, and it is asked again.`,
  };
}

/** `CANCELLATION_UNAVAILABLE`: the reseller's cancellation could not be sent or followed. */
export function cancellationNotice(failure: SourceError): OrderLineNotice {
  return {
    code: 'CANCELLATION_UNAVAILABLE',
    message: `The cancellation cannot go on at the supplier: ${failure.message} It is tried again.`,
  };
}

/** `notice` on every line that has not ended. */
export function noticedLines(
  lines: readonly OrderLineRow[],
  notice: OrderLineNotice,
): SupplierLineProgress[] {
  return lines
    .filter((line) => !finalOrderLineStatuses.includes(line.status))
    .map((line) => ({ lineId: line.id, notice }));
}

/** `notice: null` for every line that shows a notice of `code`: a step that saw its cause pass. */
export function clearedNotices(lines: readonly OrderLineRow[], code: LineNoticeCode): SupplierLineProgress[] {
  return lines
    .filter((line) => line.notice?.code === code)
    .map((line) => ({ lineId: line.id, notice: null }));
}
