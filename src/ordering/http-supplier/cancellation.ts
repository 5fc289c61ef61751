import type { OrderLineCancellation, SupplierOrderRow } from '../../db/rows.js';
import type { SupplierOrder } from '../../gathering/sources/supplier-contract.js';
import { SourceError } from '../../gathering/sources/types.js';
import type { HttpSupplierScope } from './calls.js';
import type { HttpSupplierOrdering } from './ordering.js';

/**
 * The gateway's own mark (`sellerCancelState`) for a cancellation the supplier would not take: a final
 * refusal of its POST (`409`: every item had ended), or an order that had ended before it was sent. The
 * supplier order is then followed as if none had been asked.
 */
export const HTTP_CANCELLATION_REFUSED = 'rejected';

/** `sellerCancelState`s after which the cancellation changes no more. */
const finalCancelStates = new Set(['done', 'declined', HTTP_CANCELLATION_REFUSED]);

const finalItemStatuses = new Set(['completed', 'failed', 'cancelled']);

/** Whether a supplier order has a cancellation asked that is not over (not done, declined or rejected). */
export function httpCancellationPending(supplierOrder: SupplierOrderRow): boolean {
  return (
    supplierOrder.cancelRequestedAt !== null &&
    (supplierOrder.sellerCancelState === null || !finalCancelStates.has(supplierOrder.sellerCancelState))
  );
}

/** What the cancellation part of a step found, merged into the step's record. */
export interface HttpCancellationStep {
  /** The supplier's order id (the contract has no id of a cancellation of its own). */
  sellerCancelId: string;
  /** `requested`, `done`, `declined` (the contract's words) or {@link HTTP_CANCELLATION_REFUSED}. */
  sellerCancelState: string;
  /** The lines' cancellation (for lines that had not ended otherwise). */
  lineCancellation: OrderLineCancellation;
  /** The order as the supplier answered the cancellation (or as read, when it had it already). */
  view: SupplierOrder;
}

/**
 * Sends or reads the cancellation of a placed order (docs/supplier-contract.md, "Cancel an order"). The order
 * just read shows whether the supplier has it (`cancellation` set); when it has not — never sent, or sent
 * (`cancelPostedAt`) and lost — `cancelPostedAt` is written and `POST …/cancel` sent (asking again is
 * harmless: the supplier answers the cancellation it has). An order whose items have all ended is not sent
 * one; a final refusal of the POST (`409`) ends it {@link HTTP_CANCELLATION_REFUSED} with the supplier's
 * words.
 *
 * @returns the cancellation, or null when the lease was lost before sending (nothing was sent).
 * @throws {SourceError} a retryable failure (tried again by the step's back-off).
 */
export async function httpCancellationStep(input: {
  ordering: HttpSupplierOrdering;
  scope: HttpSupplierScope;
  /** The order as just read (or placed). */
  view: SupplierOrder;
  reason: string;
  markCancelPosting: () => Promise<boolean>;
}): Promise<HttpCancellationStep | null> {
  let { view } = input;
  const refused = (message: string): HttpCancellationStep => ({
    sellerCancelId: view.id,
    sellerCancelState: HTTP_CANCELLATION_REFUSED,
    lineCancellation: { state: 'rejected', message },
    view,
  });
  if (!view.cancellation) {
    if (view.items.every((item) => finalItemStatuses.has(item.status))) {
      return refused(`The supplier’s order had ended (${view.status}) before it could be cancelled.`);
    }
    if (!(await input.markCancelPosting())) return null;
    try {
      view = await input.ordering.cancel(input.scope, view.id, input.reason);
    } catch (error) {
      if (error instanceof SourceError && !error.retryable) return refused(error.message);
      throw error;
    }
    if (!view.cancellation) {
      throw new SourceError(
        'INVALID_RESPONSE',
        'The supplier answered the cancellation without one; it is asked again.',
        true,
      );
    }
  }
  const { status, reason } = view.cancellation;
  const lineCancellation: OrderLineCancellation =
    status === 'requested'
      ? { state: 'acknowledged', message: null }
      : status === 'done'
        ? { state: 'done', message: null }
        : { state: 'declined', message: reason ?? 'The supplier declined to cancel the order.' };
  return { sellerCancelId: view.id, sellerCancelState: status, lineCancellation, view };
}
