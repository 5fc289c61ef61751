/**
 * One step of a supplier order at an `http` supplier (issue "Orders, part 2", item 3;
 * docs/supplier-contract.md, "Ordering"): place it (`POST <base>/orders`, after
 * `GET <base>/orders?external_id=…` when an earlier attempt may have posted), read it
 * (`GET <base>/orders/{id}`), and cancel it when the reseller asked (`POST <base>/orders/{id}/cancel`).
 */
import type { OrderLineRow, OrderLineStatus, SupplierLineProgress } from '../db/rows.js';
import { finalOrderLineStatuses } from '../db/values.js';
import { isStoreUnavailable } from '../errors.js';
import { defaultPolicySettings, SourcePolicies } from '../gathering/sources/policies.js';
import type {
  SupplierItemStatus,
  SupplierOrder,
  SupplierOrderRequest,
} from '../gathering/sources/supplier-contract.js';
import type { sendToSupplier } from '../gathering/sources/supplier-http.js';
import { SourceError } from '../gathering/sources/types.js';
import { HttpSupplierCalls, type HttpSupplierScope } from './http-supplier/calls.js';
import {
  type HttpCancellationStep,
  httpCancellationPending,
  httpCancellationStep,
} from './http-supplier/cancellation.js';
import { HttpSupplierOrdering } from './http-supplier/ordering.js';
import {
  attemptCall,
  cancellationNotice,
  clearedNotices,
  noticedLines,
  orderLookupNotice,
} from './secondary-calls.js';
import { placementSettleMs } from './sonata-step.js';
import { cancelledUnsentLines, failedLines, placementRefused } from './step-lines.js';
import type { SupplierOrderStep, SupplierOrderStepper } from './worker.js';

/** How often a placed order is read: after `initialDelayMs`, doubling per attempt up to `maxDelayMs`. */
export interface HttpPollSettings {
  initialDelayMs: number;
  maxDelayMs: number;
}

/** The contract's polling (docs/supplier-contract.md, "Read an order"): from 250 ms, doubling, up to 5 s. */
export const defaultHttpPoll: HttpPollSettings = { initialDelayMs: 250, maxDelayMs: 5_000 };

/** What the `http` step needs. */
export interface HttpStepOptions {
  now: () => Date;
  /**
   * The resilience policies of the suppliers' calls. Pass the `http` gathering source's
   * (`createHttpSource().policies`) so one supplier sees one bulkhead and one breaker; default: the step's own,
   * with `defaultPolicySettings`.
   */
  policies?: SourcePolicies;
  /** How often a placed order is read (default {@link defaultHttpPoll}). */
  poll?: HttpPollSettings;
  /** Sends one HTTP request (default undici's, as the gathering source). */
  send?: typeof sendToSupplier;
}

/** The wait before the next read: `initialDelayMs` doubling per attempt (claims so far), up to `maxDelayMs`. */
export function httpPollDelayMs(poll: HttpPollSettings, attempts: number): number {
  return Math.min(poll.maxDelayMs, poll.initialDelayMs * 2 ** Math.min(20, Math.max(0, attempts - 1)));
}

/** An order line's status from its item's: `accepted` is `submitted`; the others are the same words. */
export function httpLineStatusOf(status: SupplierItemStatus): OrderLineStatus {
  return status === 'accepted' ? 'submitted' : status;
}

const dateOrNull = (value: string | null | undefined) => (value ? new Date(value) : null);
const ended = (status: OrderLineStatus) => finalOrderLineStatuses.includes(status);

/** A line's progress from its item of the supplier's order. */
function lineProgress(view: SupplierOrder, item: SupplierOrder['items'][number]): SupplierLineProgress {
  const status = httpLineStatusOf(item.status);
  const failure =
    status === 'failed'
      ? { errorCode: 'SUPPLIER_FAILED', errorMessage: item.error ?? 'The supplier’s item ended failed.' }
      : status === 'cancelled'
        ? { errorCode: 'SUPPLIER_CANCELLED', errorMessage: item.error ?? 'The supplier cancelled the item.' }
        : { errorCode: null, errorMessage: null };
  return {
    lineId: item.id,
    status,
    supplierStatus: item.status,
    supplierOrderId: view.id,
    supplierItemId: item.id,
    expectedCompletionDate: dateOrNull(item.expected_completion_date),
    completionDate: dateOrNull(item.completion_date),
    inventoryProductId: item.product_id ?? null,
    ...failure,
    notice: null,
  };
}

/** The order to send: the supplier order's lines as items, the order's customer, date and contact. */
function orderRequest(
  claimed: Parameters<SupplierOrderStepper>[0],
  offerIds: ReadonlyMap<string, string>,
): SupplierOrderRequest {
  const { supplierOrder, order, customer, lines } = claimed;
  return {
    external_id: supplierOrder.id,
    customer_name: customer.name,
    requested_completion_date: order.requestedCompletionDate.toISOString(),
    contact: order.contact
      ? {
          name: order.contact.name,
          email: order.contact.emailAddress,
          ...(order.contact.number ? { phone: order.contact.number } : {}),
        }
      : null,
    items: lines.map((line: OrderLineRow) => ({
      id: line.id,
      offer_id: offerIds.get(line.id) ?? '',
      contract_term_months: line.contractTermMonths ?? 12,
    })),
  };
}

/**
 * The `http` step of the order worker, with the Sonata step's rules (`createSonataOrderStep`).
 *
 * - Placing: one order per supplier order, its lines as items (`offer_id` = the line's `HttpOrderTerms`).
 *   Before it is sent `postedAt` is written (`context.markPosting`); once set, every later attempt first looks
 *   the order up by `external_id` (= the supplier order's id) and sends again only when it is still not there
 *   `placementSettleMs` after. A timeout or `5xx` of the POST itself is followed by a lookup at once.
 * - Following: the order is read and each line updated from its item (`accepted` → `submitted`, the other
 *   statuses as they are, `supplierStatus` verbatim, the dates, `product_id` as the inventory product); once
 *   every item has ended, the supplier order ends.
 * - Cancelling, while the reseller's cancellation is not over (`httpCancellationPending`): never sent (no
 *   `postedAt`, or none found after the settle time) → it ends at once, every line `cancelled` (cancellation
 *   `done`, nothing sent); placed → found first, then `httpCancellationStep`; the lines that have not ended
 *   show the cancellation (`acknowledged`, `done`, `declined` or `rejected` with the supplier's words) and
 *   the order is followed after as before.
 * - A retryable failure (timeouts, `5xx`, `429`) is recorded and tried again after the back-off; a final
 *   refusal of the placement itself (`4xx`) fails the lines with its code and the supplier's words; a final
 *   failure of a lookup or a read is tried again at the longest back-off (the order may exist), and so is an
 *   answer to the placement that cannot be read (`placementRefused`): it is looked up by its external id.
 *   A failing look-up puts `ORDER_LOOKUP_UNAVAILABLE` on the open lines (nothing is sent again before the
 *   supplier answers it).
 * - The read is recorded whatever the calls after it do (issue 49): the cancellation is the only such call
 *   of this contract (an item names its `product_id` itself; there are no charges). When it fails, the lines
 *   are recorded as read with `CANCELLATION_UNAVAILABLE` on the open ones, the supplier order keeps the
 *   failure's code, and the cancellation is tried again at the poll's back-off.
 */
export function createHttpOrderStep(options: HttpStepOptions): SupplierOrderStepper {
  const { now } = options;
  const poll = options.poll ?? defaultHttpPoll;
  const policies = options.policies ?? new SourcePolicies(defaultPolicySettings);
  const ordering = new HttpSupplierOrdering(new HttpSupplierCalls(policies, now, options.send));
  return async (claimed, signal, context): Promise<SupplierOrderStep> => {
    const { supplierOrder, source, order, lines } = claimed;
    const readAt = now();
    const unchanged = {
      status: supplierOrder.status,
      sellerOrderId: supplierOrder.sellerOrderId,
      sellerState: supplierOrder.sellerState,
      readAt,
      errorCode: null,
      errorMessage: null,
      lines: [],
    };
    const later = (ms: number) => new Date(now().getTime() + ms);
    const failLines = (code: string, message: string): SupplierOrderStep => ({
      ...unchanged,
      status: 'ended',
      nextCheckAt: null,
      errorCode: code,
      errorMessage: message,
      lines: failedLines(lines, code, message),
    });
    const cancelAsked = httpCancellationPending(supplierOrder);
    const cancelledUnsent = (): SupplierOrderStep => ({
      ...unchanged,
      status: 'ended',
      nextCheckAt: null,
      lines: cancelledUnsentLines(lines),
    });
    const offerIds = new Map(
      lines.flatMap((line) => (line.orderTerms?.kind === 'http' ? [[line.id, line.orderTerms.offerId]] : [])),
    );
    const unorderable = lines.find((line) => !offerIds.has(line.id));
    const scope: HttpSupplierScope = { source, signal };
    // Set while the placement itself is sent: only a final refusal of it means the supplier took nothing.
    let posting = false;
    // Set while the order is looked up by `external_id`: its failure keeps the order from being sent again.
    let lookingUp = false;
    try {
      let view: SupplierOrder | null = null;
      if (supplierOrder.sellerOrderId === null) {
        const { postedAt } = supplierOrder;
        // A placement may have been sent before (crash, timeout): the supplier is asked first.
        lookingUp = postedAt !== null;
        if (postedAt !== null) view = await ordering.findByExternalId(scope, supplierOrder.id);
        lookingUp = false;
        const settledAt = postedAt === null ? 0 : postedAt.getTime() + placementSettleMs(source);
        // Cancelled before the supplier had it: nothing is sent, and never will be.
        if (!view && cancelAsked && settledAt <= now().getTime()) return cancelledUnsent();
        if (!view && unorderable) {
          return failLines(
            'NOT_ORDERABLE',
            `Line ${unorderable.id} names no offer of the supplier to order (its offer had no id).`,
          );
        }
        if (!view && settledAt > now().getTime()) {
          return {
            ...unchanged,
            nextCheckAt: later(httpPollDelayMs(poll, supplierOrder.attempts)),
            errorCode: 'PLACEMENT_UNCONFIRMED',
            errorMessage: `The order sent at ${postedAt?.toISOString()} is not at the supplier yet; it is looked for until ${new Date(settledAt).toISOString()}, then sent again.`,
            lines: clearedNotices(lines, 'ORDER_LOOKUP_UNAVAILABLE'),
          };
        }
        if (!view && !(await context.markPosting())) return { ...unchanged, nextCheckAt: now() };
        posting = view === null;
        view ??= await ordering.place(scope, orderRequest(claimed, offerIds));
        posting = false;
      } else {
        view = await ordering.read(scope, supplierOrder.sellerOrderId);
      }
      let cancel: HttpCancellationStep | null = null;
      let cancelFailure: SourceError | null = null;
      if (cancelAsked) {
        const asRead = view;
        const asked = await attemptCall(signal, () =>
          httpCancellationStep({
            ordering,
            scope,
            view: asRead,
            reason: order.cancelReason ?? 'Cancelled by the reseller.',
            markCancelPosting: () => context.markCancelPosting(),
          }),
        );
        if (!asked.ok) cancelFailure = asked.failure;
        else if (!asked.value) return { ...unchanged, nextCheckAt: now() };
        else {
          cancel = asked.value;
          view = cancel.view;
        }
      }
      const progress: SupplierLineProgress[] = [];
      for (const line of lines) {
        const item = view.items.find((each) => each.id === line.id);
        if (!item) continue;
        const step = lineProgress(view, item);
        if (cancel && !ended(line.status)) step.cancellation = cancel.lineCancellation;
        if (supplierOrder.cancelRequestedAt !== null && step.status === 'cancelled') {
          // Cancelled as the reseller asked: no error of the supplier's.
          Object.assign(step, {
            cancellation: { state: 'done', message: null },
            errorCode: null,
            errorMessage: null,
          });
        }
        if (cancelFailure && !ended(step.status ?? 'pending'))
          step.notice = cancellationNotice(cancelFailure);
        progress.push(step);
      }
      const over =
        progress.length === lines.length && progress.every((step) => ended(step.status ?? 'pending'));
      return {
        ...unchanged,
        status: over ? 'ended' : 'following',
        sellerOrderId: view.id,
        sellerState: view.status,
        nextCheckAt: over ? null : later(httpPollDelayMs(poll, supplierOrder.attempts)),
        errorCode: cancelFailure?.code ?? null,
        errorMessage: cancelFailure?.message ?? null,
        ...(cancel
          ? { sellerCancelId: cancel.sellerCancelId, sellerCancelState: cancel.sellerCancelState }
          : {}),
        lines: progress,
      };
    } catch (error) {
      // The store down is no seller's failure: the order worker waits for it and gives the order back.
      if (isStoreUnavailable(error)) throw error;
      const failure =
        error instanceof SourceError
          ? error
          : new SourceError('SOURCE_ERROR', 'The supplier could not be asked; it is tried again.', true);
      if (signal.aborted && !(error instanceof SourceError && error.code === 'TIMEOUT')) {
        // The worker stops: whoever claims next takes it up at once.
        return { ...unchanged, nextCheckAt: now() };
      }
      if (!failure.retryable && posting && placementRefused(failure.code)) {
        return failLines(failure.code, failure.message);
      }
      const delay = failure.retryable ? httpPollDelayMs(poll, supplierOrder.attempts) : poll.maxDelayMs;
      // Nothing is sent again before the supplier answers the look-up: the open lines say why they wait.
      const lookup =
        lookingUp && supplierOrder.postedAt !== null
          ? noticedLines(
              lines,
              orderLookupNotice(supplierOrder.postedAt, 'GET /orders?external_id=…', failure),
            )
          : clearedNotices(lines, 'ORDER_LOOKUP_UNAVAILABLE');
      return {
        ...unchanged,
        nextCheckAt: later(delay),
        errorCode: failure.code,
        errorMessage: failure.message,
        lines: lookup,
      };
    }
  };
}
