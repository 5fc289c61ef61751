/**
 * One step of a supplier order at a MEF LSO Sonata seller (issue "Orders, part 1", items 2–5): place it
 * (`POST /productOrder`, after `GET /productOrder?externalId=…` when an earlier attempt may have posted),
 * or read it (`GET /productOrder/{id}`), with the charges of its items and the delivered products.
 */
import type { SupplierLineProgress } from '../db/rows.js';
import { finalOrderLineStatuses } from '../db/values.js';
import { isStoreUnavailable } from '../errors.js';
import type { SonataCallScope } from '../gathering/sources/mef-sonata/client.js';
import {
  type SonataSourceSettings,
  sonataSourceSettingsSchema,
} from '../gathering/sources/mef-sonata/settings.js';
import { storedSonataSettings } from '../gathering/sources/mef-sonata/stored.js';
import { SourceError } from '../gathering/sources/types.js';
import type { SonataOrderView } from './mef-sonata/order-answers.js';
import { sonataBillingAccountId, sonataOrderContact } from './mef-sonata/order-request.js';
import type { SonataOrdering } from './mef-sonata/ordering-client.js';
import type { OrderListeners } from './order-listeners.js';
import { nextOrderReadDelayMs } from './order-reads.js';
import {
  attemptCall,
  cancellationNotice,
  clearedNotices,
  noticedLines,
  orderLookupNotice,
} from './secondary-calls.js';
import {
  cancellationPending,
  type SonataCancellationStep,
  sonataCancellationStep,
} from './sonata-cancellation.js';
import { requoteExpiredLines } from './sonata-expired-quotes.js';
import { chargeOf, lineProgress, notifiedChargeProgress } from './sonata-line-progress.js';
import type { SonataRequoteDeps } from './sonata-requote.js';
import { type SonataChargeReads, SonataSecondaryReads } from './sonata-secondary-reads.js';
import { cancelledUnsentLines, failedLines, placementRefused } from './step-lines.js';
import type { SupplierOrderStep, SupplierOrderStepper } from './worker.js';

/** What the Sonata step needs. */
export interface SonataStepOptions {
  ordering: SonataOrdering;
  now: () => Date;
  /** The code of an instance (the default billing account, `sonataBillingAccountId`). */
  instanceCode: (instanceId: string) => Promise<string>;
  /** Registers each source's order listener before its first order (none without a callback URL). */
  listeners?: OrderListeners;
  /** How expired seller quotes are quoted again before they are ordered (none: ordered as quoted). */
  requote?: SonataRequoteDeps;
}

/**
 * How long a supplier order followed through notifications waits for one before it reads anyway (ms): a
 * lost notification delays a change, never loses it.
 */
export const NOTIFIED_SAFETY_READ_MS = 60_000;

/**
 * How long after a placement was sent its order may still appear at the seller (ms): three times the
 * source's `timeoutMs`, within which a seller answers. Until then a placement that is not found is looked
 * for again, not sent again; a seller that records an order later than that can get it twice.
 */
export function placementSettleMs(source: { timeoutMs: number }): number {
  return 3 * source.timeoutMs;
}

/**
 * The wait before a placement is looked for again, a failed call tried again or a cancellation read again:
 * the source's poll back-off (`poll.initialDelayMs`, doubling per attempt up to `poll.maxDelayMs`), as its
 * POQs and Quotes are polled. A placed order itself is read at its own pace (`nextOrderReadDelayMs`).
 */
export function nextPollDelayMs(settings: SonataSourceSettings, attempts: number): number {
  const { initialDelayMs, maxDelayMs } = settings.poll;
  return Math.min(maxDelayMs, initialDelayMs * 2 ** Math.min(20, Math.max(0, attempts - 1)));
}

/**
 * The Sonata step of the order worker.
 *
 * - Placing: the items are the supplier order's lines (item id = line id) with their quote terms; the
 *   contact is the order's, else the source's buyer contact; the billing account `sonataBillingAccountId`.
 *   Before a placement is sent, `postedAt` is written (`context.markPosting`). Once it is set, every later
 *   attempt first looks the seller order up by `externalId` (= the supplier order's id), and sends again
 *   only when it is still not there {@link placementSettleMs} after: a crash, a timeout or a slow seller
 *   cannot create it twice.
 * - Following: the order is read, each line updated from its item; once every item has ended (and every
 *   delivered product was read), the supplier order ends. The read is recorded whatever the calls after it
 *   do (issue 49): the Charges of held items, the products of completed ones, the cancellation are each a
 *   call of their own (`SonataSecondaryReads`), whose failure becomes the line's `notice`
 *   (`CHARGE_LIST_UNAVAILABLE`, `CHARGE_UNAVAILABLE`, `INVENTORY_UNAVAILABLE`, `CANCELLATION_UNAVAILABLE`;
 *   cleared by a step without it). After such a failure the order is due again at the earlier of its own
 *   read pace and the poll back-off; the supplier order's error stays null but for a cancellation's. The
 *   Charges the seller notified (`notifiedChargeIds`) are read by id and consumed in the same record.
 * - A look-up by `externalId` that fails puts `ORDER_LOOKUP_UNAVAILABLE` on the open lines: nothing is sent
 *   again before the seller answers it.
 * - A retryable failure (timeouts, 5xx) is recorded and tried again after the back-off; a final refusal of
 *   the placement itself (its 400/422/401, bad settings) fails the lines with its code; a final failure of a
 *   lookup or a read is tried again at the longest back-off (the order may exist, and must not be lost). So
 *   is an answer to the placement that cannot be read (`placementRefused`): the seller may have
 *   taken the order, so the next attempt looks it up by `externalId` before it sends anything again.
 */
export function createSonataOrderStep(options: SonataStepOptions): SupplierOrderStepper {
  const { ordering, now } = options;
  return async (claimed, signal, context): Promise<SupplierOrderStep> => {
    const { supplierOrder, source, order, lines } = claimed;
    const unchanged = {
      status: supplierOrder.status,
      sellerOrderId: supplierOrder.sellerOrderId,
      sellerState: supplierOrder.sellerState,
    };
    const failLines = (code: string, message: string): SupplierOrderStep => ({
      ...unchanged,
      status: 'ended',
      nextCheckAt: null,
      errorCode: code,
      errorMessage: message,
      lines: failedLines(lines, code, message),
    });
    const parsed = sonataSourceSettingsSchema.safeParse(storedSonataSettings(source));
    if (!parsed.success) return failLines('NOT_CONFIGURED', 'The source has no valid MEF Sonata settings.');
    const settings = parsed.data;
    const scope: SonataCallScope = {
      source,
      settings,
      deadline: AbortSignal.any([signal, AbortSignal.timeout(source.timeoutMs)]),
      querySignal: signal,
    };
    let notified = false;
    try {
      // Registered before the order is placed, so no event of it is missed; polling covers a failure.
      // Every mode registers (R103: at least `chargeCreateEvent`); only `notifications` stops polling.
      const listener = (await options.listeners?.ensure(scope)) ?? null;
      notified = settings.interaction === 'notifications' && listener !== null;
    } catch {
      notified = false;
    }
    const readAt = now();
    const cancelAsked = cancellationPending(supplierOrder);
    const cancelledUnsent = (): SupplierOrderStep => ({
      ...unchanged,
      readAt,
      status: 'ended',
      nextCheckAt: null,
      errorCode: null,
      errorMessage: null,
      lines: cancelledUnsentLines(lines),
    });
    // Set while the placement itself is sent: a final refusal of it (400, 422, 401) means the seller took
    // nothing; a final failure of a lookup or a read does not say so, and is tried again instead.
    let posting = false;
    // Set while the order is looked up by `externalId`: its failure keeps the order from being sent again.
    let lookingUp = false;
    // New terms of lines quoted again, and lines not ordered: recorded whatever the step ends with.
    let requoted: SupplierLineProgress[] = [];
    // A look-up's notice, once the seller answered one (or none was needed).
    const lookedUp = () => clearedNotices(lines, 'ORDER_LOOKUP_UNAVAILABLE');
    const reads = new SonataSecondaryReads(ordering, scope);
    // The notified Charges read when the order itself could not be.
    let unreadOrder: Pick<SonataChargeReads, 'charges' | 'consumed'> = { charges: [], consumed: [] };
    try {
      let view: SonataOrderView | null = null;
      if (supplierOrder.sellerOrderId === null) {
        const { postedAt } = supplierOrder;
        // A placement may have been sent before (crash, timeout): the seller is asked first.
        lookingUp = postedAt !== null;
        if (postedAt !== null) view = await ordering.findByExternalId(scope, supplierOrder.id);
        lookingUp = false;
        const settledAt = postedAt === null ? 0 : postedAt.getTime() + placementSettleMs(source);
        // Cancelled before the seller had it: nothing is sent, and never will be.
        if (!view && cancelAsked && settledAt <= now().getTime()) return cancelledUnsent();
        if (!view && settledAt > now().getTime()) {
          return {
            ...unchanged,
            readAt,
            nextCheckAt: new Date(now().getTime() + nextPollDelayMs(settings, supplierOrder.attempts)),
            errorCode: 'PLACEMENT_UNCONFIRMED',
            errorMessage: `The order sent at ${postedAt?.toISOString()} is not at the seller yet; it is looked for until ${new Date(settledAt).toISOString()}, then sent again.`,
            lines: lookedUp(),
          };
        }
        let toOrder = lines.filter((line) => !finalOrderLineStatuses.includes(line.status));
        let placeScope = scope;
        if (!view && options.requote) {
          // Expired seller quotes are quoted again first, each call within its own deadline.
          const fresh = () => ({
            ...scope,
            deadline: AbortSignal.any([signal, AbortSignal.timeout(source.timeoutMs)]),
          });
          const expired = await requoteExpiredLines(options.requote, fresh(), settings, toOrder, now());
          requoted = expired.progress;
          toOrder = expired.lines;
          if (requoted.length > 0) placeScope = fresh();
          if (toOrder.length === 0) {
            return {
              ...unchanged,
              readAt,
              status: 'ended',
              nextCheckAt: null,
              errorCode: null,
              errorMessage: null,
              lines: withRequoted(lookedUp(), requoted),
            };
          }
        }
        // Read before the mark: between `markPosting` and the POST nothing may wait on the store, or a step
        // stalled there past its lease could post after another worker took the order over.
        const instanceCode = view ? null : await options.instanceCode(order.instanceId);
        if (!view && !(await context.markPosting())) {
          return {
            ...unchanged,
            readAt,
            nextCheckAt: now(),
            errorCode: null,
            errorMessage: null,
            lines: requoted,
          };
        }
        posting = view === null;
        view ??= await ordering.create(placeScope, {
          externalId: supplierOrder.id,
          requestedCompletionDate: order.requestedCompletionDate,
          contact: order.contact
            ? {
                name: order.contact.name,
                emailAddress: order.contact.emailAddress,
                ...(order.contact.number ? { number: order.contact.number } : {}),
              }
            : sonataOrderContact(settings),
          billingAccountId: sonataBillingAccountId(settings, instanceCode ?? ''),
          endCustomerName: claimed.customer.name,
          items: toOrder.flatMap((line) =>
            line.orderTerms?.kind === 'mef-sonata'
              ? [{ id: line.id, terms: line.orderTerms, contractTermMonths: line.contractTermMonths ?? 12 }]
              : [],
          ),
        });
        posting = false;
      } else {
        const { sellerOrderId } = supplierOrder;
        const read = await attemptCall(signal, () => ordering.retrieve(scope, sellerOrderId));
        if (!read.ok) {
          // A seller that refused the read (a notifying seller's 429 to a read no event announced) is up:
          // the Charges it notified are read all the same, by id. An outage is not made longer by more calls.
          const { notifiedChargeIds } = supplierOrder;
          if (!read.failure.retryable)
            unreadOrder = await reads.charges(sellerOrderId, false, notifiedChargeIds);
          throw read.failure;
        }
        view = read.value;
      }
      let cancel: SonataCancellationStep | null = null;
      let cancelFailure: SourceError | null = null;
      if (cancelAsked) {
        const asked = await reads.attempt((each) =>
          sonataCancellationStep({
            ordering,
            scope: each,
            settings,
            supplierOrder,
            view,
            lines,
            order,
            storedCharges: order.cancellationCharges.filter(
              (charge) => charge.supplierOrderId === supplierOrder.id,
            ),
            markCancelPosting: () => context.markCancelPosting(),
            chargeOf,
          }),
        );
        if (!asked.ok) cancelFailure = asked.failure;
        else if (!asked.value) {
          return { ...unchanged, readAt, nextCheckAt: now(), errorCode: null, errorMessage: null, lines: [] };
        } else cancel = asked.value;
      }
      const held = view.items.some((item) => item.state === 'held');
      const charges = await reads.charges(view.id, held, supplierOrder.notifiedChargeIds);
      const progress: SupplierLineProgress[] = [];
      let inventoryOwed = false;
      for (const line of lines) {
        const item = view.items.find((each) => each.id === line.id);
        if (!item) continue;
        const found = await lineProgress(reads, view, line, item, charges);
        const step = found.progress;
        inventoryOwed ||= found.inventoryOwed;
        if (cancel && !finalOrderLineStatuses.includes(line.status))
          step.cancellation = cancel.lineCancellation;
        if (supplierOrder.cancelRequestedAt !== null && step.status === 'cancelled') {
          // Cancelled as the reseller asked: no error of the seller's.
          Object.assign(step, {
            cancellation: { state: 'done', message: null },
            errorCode: null,
            errorMessage: null,
          });
        }
        if (
          cancelFailure &&
          step.notice === null &&
          !finalOrderLineStatuses.includes(step.status ?? 'pending')
        )
          step.notice = cancellationNotice(cancelFailure);
        progress.push(step);
      }
      const recorded = withRequoted(withRequoted(lookedUp(), progress), requoted);
      // Ended once every line has (by this read, or before it: a line never ordered has no item), and no
      // delivered product is still to be read.
      const ended =
        !inventoryOwed &&
        lines.every((line) => {
          const status = recorded.find((step) => step.lineId === line.id)?.status ?? line.status;
          return finalOrderLineStatuses.includes(status);
        });
      const at = now();
      // A cancellation under way is followed at the poll's pace; the order itself at its own.
      const pace = cancel?.pending
        ? nextPollDelayMs(settings, supplierOrder.attempts)
        : notified
          ? NOTIFIED_SAFETY_READ_MS
          : nextOrderReadDelayMs(settings.orderPoll, lines, recorded, at);
      // A call after the read failed: asked again at the poll's back-off, unless the order is read sooner.
      const secondaryFailed =
        cancelFailure !== null ||
        charges.unread.length > 0 ||
        progress.some((step) => (step.notice ?? null) !== null);
      const wait = secondaryFailed ? Math.min(pace, nextPollDelayMs(settings, supplierOrder.attempts)) : pace;
      return {
        readAt,
        status: ended ? 'ended' : 'following',
        sellerOrderId: view.id,
        sellerState: view.state,
        nextCheckAt: ended ? null : new Date(at.getTime() + wait),
        errorCode: cancelFailure?.code ?? null,
        errorMessage: cancelFailure?.message ?? null,
        ...(cancel
          ? {
              sellerCancelId: cancel.sellerCancelId,
              sellerCancelState: cancel.sellerCancelState,
              ...(cancel.cancellationCharges ? { cancellationCharges: cancel.cancellationCharges } : {}),
            }
          : {}),
        ...(charges.consumed.length > 0 ? { consumedChargeIds: charges.consumed } : {}),
        lines: recorded,
      };
    } catch (error) {
      // The store down is no seller's failure: the order worker waits for it and gives the order back.
      if (isStoreUnavailable(error)) throw error;
      const failure =
        error instanceof SourceError
          ? error
          : new SourceError('SOURCE_ERROR', 'The seller could not be asked; it is tried again.', true);
      if (signal.aborted && !(error instanceof SourceError && error.code === 'TIMEOUT')) {
        // The worker stops: whoever claims next takes it up at once.
        return { ...unchanged, readAt, nextCheckAt: now(), errorCode: null, errorMessage: null, lines: [] };
      }
      if (!failure.retryable && posting && placementRefused(failure.code)) {
        const failed = failLines(failure.code, failure.message);
        return { ...failed, lines: withRequoted(failed.lines, requoted) };
      }
      // Nothing is sent again before the seller answers the look-up: the open lines say why they wait.
      const lookup =
        lookingUp && supplierOrder.postedAt !== null
          ? noticedLines(
              lines,
              orderLookupNotice(supplierOrder.postedAt, 'GET /productOrder?externalId=…', failure),
            )
          : lookedUp();
      // A notifying seller that refuses a read (429) is waited for: its next event makes the order due.
      const delay =
        notified && failure.code === 'SONATA_THROTTLED'
          ? NOTIFIED_SAFETY_READ_MS
          : failure.retryable
            ? nextPollDelayMs(settings, supplierOrder.attempts)
            : settings.poll.maxDelayMs;
      return {
        ...unchanged,
        readAt,
        nextCheckAt: new Date(now().getTime() + delay),
        errorCode: failure.code,
        errorMessage: failure.message,
        ...(unreadOrder.consumed.length > 0 ? { consumedChargeIds: unreadOrder.consumed } : {}),
        lines: withRequoted(withRequoted(lookup, notifiedChargeProgress(lines, unreadOrder)), requoted),
      };
    }
  };
}

/**
 * A step's lines with what quoting expired lines again found: a line not ordered keeps its failure; a
 * line quoted again carries its new terms along with what the seller said of it.
 */
function withRequoted(
  steps: readonly SupplierLineProgress[],
  requoted: readonly SupplierLineProgress[],
): SupplierLineProgress[] {
  const merged = new Map(steps.map((step) => [step.lineId, step]));
  for (const entry of requoted) {
    const step = merged.get(entry.lineId);
    merged.set(entry.lineId, entry.status === 'failed' || !step ? entry : { ...step, ...entry });
  }
  return [...merged.values()];
}
