/**
 * The cancellation part of a Sonata supplier order's step (issue "Orders, part 2", item 1): send the
 * reseller's cancellation once (`POST /cancelProductOrder`, after `GET /cancelProductOrder?productOrderId=…`
 * when an earlier attempt may have sent it), then follow it (`acknowledged → done | done.declined |
 * rejected`, or `inProgress.assessingCharge` with a cancellation Charge the reseller answers).
 */
import type { OrderCharge, OrderLineCancellation, OrderLineRow, SupplierOrderRow } from '../db/rows.js';
import type { SonataCallScope } from '../gathering/sources/mef-sonata/client.js';
import type { SonataSourceSettings } from '../gathering/sources/mef-sonata/settings.js';
import { SourceError } from '../gathering/sources/types.js';
import type { SonataCancellationView } from './mef-sonata/cancel-answers.js';
import type { SonataOrderView } from './mef-sonata/order-answers.js';
import { sonataOrderContact } from './mef-sonata/order-request.js';
import type { SonataOrdering } from './mef-sonata/ordering-client.js';

/**
 * The gateway's own mark for a cancellation the seller refused to take (a final error of its POST, or an
 * order that had ended): the supplier order is then followed as if none had been asked.
 */
export const CANCELLATION_REFUSED = 'rejected';

/** Cancellation states after which nothing changes any more (MEF 123 `MEFChargeableTaskStateType`). */
const finalCancellationStates = new Set(['done', 'done.declined', 'rejected']);

/** Whether a supplier order has a cancellation asked that is not over (not declined, rejected or done). */
export function cancellationPending(supplierOrder: SupplierOrderRow): boolean {
  return (
    supplierOrder.cancelRequestedAt !== null &&
    (supplierOrder.sellerCancelState === null ||
      !finalCancellationStates.has(supplierOrder.sellerCancelState))
  );
}

/** Whether a supplier order's cancellation was asked and the seller took it (`done`). */
export function cancellationDone(supplierOrder: Pick<SupplierOrderRow, 'sellerCancelState'>): boolean {
  return supplierOrder.sellerCancelState === 'done';
}

/** The lines' cancellation in this API's terms (`lineCancellationStates`) from the seller's cancellation. */
function lineCancellationOf(view: SonataCancellationView): OrderLineCancellation {
  switch (view.state) {
    case 'acknowledged':
      return { state: 'acknowledged', message: null };
    case 'inProgress.assessingCharge':
      return { state: 'assessing_charge', message: null };
    case 'done':
      return { state: 'done', message: null };
    case 'done.declined':
      return { state: 'declined', message: view.deniedReason ?? 'The seller declined to cancel the order.' };
    default:
      return { state: 'rejected', message: view.deniedReason ?? 'The seller rejected the cancellation.' };
  }
}

/** What the cancellation part of a step found, merged into the step's record. */
export interface SonataCancellationStep {
  sellerCancelId: string | null;
  sellerCancelState: string | null;
  /** The lines' cancellation (for lines that have not ended otherwise). */
  lineCancellation: OrderLineCancellation;
  /** The supplier order's cancellation charges as last read; undefined: unchanged. */
  cancellationCharges?: OrderCharge[];
  /** Whether the seller may still change the cancellation (read it again soon). */
  pending: boolean;
}

/** What the cancellation part needs. */
export interface SonataCancellationInput {
  ordering: SonataOrdering;
  scope: SonataCallScope;
  settings: SonataSourceSettings;
  supplierOrder: SupplierOrderRow;
  /** The seller's order as just read (or found). */
  view: SonataOrderView;
  lines: readonly OrderLineRow[];
  order: {
    cancelReason: string | null;
    contact: { name: string; emailAddress: string; number: string | null } | null;
  };
  /** The supplier order's cancellation charges as stored (to read again until final). */
  storedCharges: readonly OrderCharge[];
  /** Records that the cancellation is about to be sent; false when the lease was lost. */
  markCancelPosting: () => Promise<boolean>;
  /** A seller's Charge as the gateway keeps it. */
  chargeOf: (view: Awaited<ReturnType<SonataOrdering['retrieveCharge']>>) => OrderCharge;
}

/** Seller order states from which no cancellation can be asked any more (MEF 123 `MEFProductOrderStateType`). */
const endedOrderStates = new Set(['completed', 'failed', 'partial', 'rejected', 'cancelled']);

/** Charge states after which the seller changes a charge no more. */
const finalChargeStates = new Set(['completed', 'timeout', 'withdrawnBySeller']);

/**
 * Sends or reads the cancellation of a placed Sonata order. A cancellation is sent once: `cancelPostedAt`
 * is written before the POST, and once it is set the seller's cancellations of the order are listed
 * before another is sent. An order that has ended is not cancelled; a final refusal of the POST (422: the
 * order can no longer be cancelled; 501: the seller offers no cancellation) ends the cancellation
 * `rejected` with the seller's message.
 *
 * @returns the cancellation's state, or null when the lease was lost before sending (nothing was sent).
 * @throws {SourceError} a retryable failure (tried again by the step's back-off).
 */
export async function sonataCancellationStep(
  input: SonataCancellationInput,
): Promise<SonataCancellationStep | null> {
  const { ordering, scope, supplierOrder, view } = input;
  const refused = (message: string): SonataCancellationStep => ({
    sellerCancelId: supplierOrder.sellerCancelId,
    sellerCancelState: CANCELLATION_REFUSED,
    lineCancellation: { state: 'rejected', message },
    pending: false,
  });
  let cancellation: SonataCancellationView | null = null;
  if (supplierOrder.sellerCancelId !== null) {
    cancellation = await ordering.retrieveCancellation(scope, supplierOrder.sellerCancelId);
  } else {
    if (supplierOrder.cancelPostedAt !== null) {
      const found = await ordering.findCancellations(scope, view.id);
      cancellation = found.at(-1) ?? null;
    }
    if (!cancellation) {
      if (endedOrderStates.has(view.state)) {
        return refused(`The seller’s order had ended (${view.state}) before it could be cancelled.`);
      }
      if (!(await input.markCancelPosting())) return null;
      try {
        cancellation = await ordering.cancel(scope, {
          productOrderId: view.id,
          reason: input.order.cancelReason ?? '',
          reasonType: 'commercial',
          contact: input.order.contact
            ? {
                name: input.order.contact.name,
                emailAddress: input.order.contact.emailAddress,
                ...(input.order.contact.number ? { number: input.order.contact.number } : {}),
              }
            : sonataOrderContact(input.settings),
        });
      } catch (error) {
        if (error instanceof SourceError && !error.retryable) return refused(error.message);
        throw error;
      }
    }
  }
  // Every charge not final is read again (the seller may time it out), the new one once.
  const charges = new Map(input.storedCharges.map((charge) => [charge.id, charge]));
  if (cancellation.chargeId !== null && !charges.has(cancellation.chargeId)) {
    charges.set(cancellation.chargeId, {
      id: cancellation.chargeId,
      state: '',
      responseDueDate: null,
      items: [],
    });
  }
  for (const [id, charge] of charges) {
    if (!finalChargeStates.has(charge.state)) {
      charges.set(id, input.chargeOf(await ordering.retrieveCharge(scope, id)));
    }
  }
  const pending =
    !finalCancellationStates.has(cancellation.state) ||
    (cancellation.state === 'done' && !endedOrderStates.has(view.state));
  return {
    sellerCancelId: cancellation.id,
    sellerCancelState: cancellation.state,
    lineCancellation: lineCancellationOf(cancellation),
    ...(charges.size > 0 ? { cancellationCharges: [...charges.values()] } : {}),
    pending,
  };
}
