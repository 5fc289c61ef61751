import { type ChargeRecord, withdraw } from './charge.js';
import type { ItemProblem } from './errors.js';
import type { LifecycleEvent } from './lifecycle.js';
import type { OrderItem } from './order-items.js';
import type { CancelProductOrderCreate } from './order-requests.js';

type Json = Record<string, unknown>;

/**
 * How a simulated seller answers a Cancel Product Order (the `cancel=` knob): `accept` (default) cancels the
 * order; `decline` refuses after assessing it (`done.declined` with a `cancellationDeniedReason`); `charge`
 * asks the buyer to accept a blocking cancellation Charge first (UC 11c); `reject` refuses it at once
 * (`rejected`, the order unchanged).
 */
export type CancelOutcome = 'accept' | 'decline' | 'charge' | 'reject';
/** Every `cancel=` knob value. */
export const cancelOutcomes: readonly CancelOutcome[] = ['accept', 'decline', 'charge', 'reject'];

/** The buyer's contact role a Cancel Product Order must carry (MEF 123 R74). */
export const CANCEL_CONTACT_ROLE = 'cancelProductOrderContact';

/** MEF 123 `MEFChargeableTaskStateType`: the states of a Cancel Product Order (Table 13). */
type CancelState = 'acknowledged' | 'inProgress.assessingCharge' | 'done' | 'done.declined' | 'rejected';

/** One Cancel Product Order the seller holds: the buyer's request and what the seller made of it. */
interface CancelRecord {
  id: string;
  request: CancelProductOrderCreate;
  outcome: CancelOutcome;
  /** Milliseconds from its Charge's creation to the Charge's `responseDueDate`. */
  chargeDueMs: number;
  state: CancelState;
  deniedReason?: string;
  chargeId?: string;
}

/** Order states in which an order can no longer be cancelled: it ended, or is being cancelled. */
const ENDED = ['completed', 'partial', 'failed', 'rejected', 'cancelled'];
const CANCELLING = ['assessingCancellation', 'pendingCancellation'];
/** Item states an accepted cancellation ends (`cancelled`); the others had ended already. */
const UNFINISHED = ['acknowledged', 'inProgress', 'pending', 'held'];

/** What a cancellation reads and changes of the order it is about (order.ts gives it). */
export interface CancellableOrder {
  readonly id: string;
  readonly href: string;
  readonly items: readonly OrderItem[];
  /** The order's Charges by id (an item's `charges` name its own). */
  readonly charges: ReadonlyMap<string, ChargeRecord>;
  /** The seller's contact, with the role a Cancel Product Order gives it added by the caller. */
  readonly sellerContact: Record<string, string>;
  state(): string;
  /** Moves the order (logged in its `stateChange`); its event, none when it was in that state. */
  moveOrder(next: string, at: string): LifecycleEvent[];
  /** Moves an item (logged in its `stateChange`); its event. */
  moveItem(item: OrderItem, next: string, at: string): LifecycleEvent;
  /** Raises the cancellation's Charge, due `dueMs` after `now` (indexed and timed like the order's others). */
  raiseCharge(cancelId: string, now: Date, dueMs: number): ChargeRecord;
  /** The order takes up its own progression again, from `before`, the state it had before the cancellation. */
  resume(before: string, at: string): LifecycleEvent[];
  /** The order was cancelled at `at`: it is complete (`completionDate`, MEF 123 Table 10). */
  ended(at: string): void;
  cancelHref(id: string): string;
  chargeHref(id: string): string;
}

/**
 * The Cancel Product Orders of one order at a simulated seller (MEF 123 UC 8–10, 11c; Figures 20, 21, 27).
 * A request the order can take is `acknowledged` and the order `assessingCancellation`, its `inProgress`
 * items `pending` (Table 9): the order's own progression pauses. Each cancellation {@link step} (every
 * `stepMs`, cancel-api.ts) then moves it on, by the knob of its request:
 *
 * - `accept`: the cancellation `done`, the order `pendingCancellation` and its unfinished items `cancelled`
 *   (without `expectedCompletionDate`, R47; a Charge of theirs still awaiting the buyer `withdrawnBySeller`,
 *   with a `chargeStateChangeEvent`); one step later the order `cancelled` with its
 *   `cancellationDate`, `cancellationReason` (the buyer's, copied) and `completionDate` (Table 10);
 * - `decline`: the cancellation `done.declined` with a `cancellationDeniedReason`; items and order return
 *   to where they were and the order goes on;
 * - `charge`: a blocking cancellation Charge (`chargeCreateEvent`) and the cancellation
 *   `inProgress.assessingCharge` until the buyer answers: accepted, it goes on as `accept`; rejected or left
 *   past its `responseDueDate` (the Charge `timeout`, R96), as `decline`;
 * - `reject`: `rejected` at once, nothing else changes.
 *
 * Every change of a cancellation's state is a `cancelProductOrderStateChangeEvent` about it.
 */
export class OrderCancellations {
  private readonly records = new Map<string, CancelRecord>();
  /** The cancellation being assessed, and the order's state before it. */
  private open: { record: CancelRecord; before: string } | undefined;
  /** The cancellation that cancelled the order. */
  private accepted: CancelRecord | undefined;
  private cancelledAt: string | undefined;

  constructor(private readonly order: CancellableOrder) {}

  /** Why the order cannot be cancelled now (answered `422`), or null when it can. */
  problem(): ItemProblem | null {
    const state = this.order.state();
    if (!ENDED.includes(state) && !CANCELLING.includes(state)) return null;
    return {
      code: 'invalidValue',
      propertyPath: '/productOrder/productOrderId',
      reason: ENDED.includes(state)
        ? `The order is ${state}: it can no longer be cancelled.`
        : `The order is ${state}: a cancellation of it is under way.`,
    };
  }

  /** Whether the order's own progression waits: a cancellation is assessed, or the order is being cancelled. */
  holding(): boolean {
    return this.open !== undefined || this.order.state() === 'pendingCancellation';
  }

  /** Whether a cancellation {@link step} is due: one is `acknowledged`, or the order is `pendingCancellation`. */
  due(): boolean {
    return this.open?.record.state === 'acknowledged' || this.order.state() === 'pendingCancellation';
  }

  /**
   * Takes a request the order can take ({@link problem}): the events of what it changed at once.
   * @param knobs the request's `cancel=` outcome and the due time of a Charge it raises (`charge_due_ms`).
   */
  start(
    id: string,
    request: CancelProductOrderCreate,
    knobs: { outcome: CancelOutcome; chargeDueMs: number },
    now: Date,
  ): LifecycleEvent[] {
    const record: CancelRecord = { id, request, ...knobs, state: 'acknowledged' };
    this.records.set(id, record);
    if (knobs.outcome === 'reject') {
      record.state = 'rejected';
      record.deniedReason = 'The seller does not cancel orders of this kind.';
      return [];
    }
    const at = now.toISOString();
    this.open = { record, before: this.order.state() };
    const events = this.order.items
      .filter((item) => item.state === 'inProgress')
      .map((item) => this.order.moveItem(item, 'pending', at));
    return [...events, ...this.order.moveOrder('assessingCancellation', at)];
  }

  /** The next cancellation step at `now` (see the class); none unless {@link due}. */
  step(now: Date): LifecycleEvent[] {
    const at = now.toISOString();
    if (!this.open) {
      if (this.order.state() !== 'pendingCancellation') return [];
      this.cancelledAt = at;
      this.order.ended(at);
      return this.order.moveOrder('cancelled', at);
    }
    const { record } = this.open;
    if (record.state !== 'acknowledged') return [];
    if (record.outcome === 'decline')
      return this.decline('The installation is too far advanced to stop it.', at);
    if (record.outcome !== 'charge') return this.accept(at);
    const charge = this.order.raiseCharge(record.id, now, record.chargeDueMs);
    record.chargeId = charge.id;
    return [
      ...this.move(record, 'inProgress.assessingCharge'),
      { eventType: 'chargeCreateEvent', subject: { id: charge.id, href: this.order.chargeHref(charge.id) } },
    ];
  }

  /**
   * The buyer answered the cancellation's Charge (`declined`: a blocking item declined) or left it past its
   * `responseDueDate` (`timedOut`): the events of what that changed.
   */
  charged(charge: ChargeRecord, outcome: 'accepted' | 'declined' | 'timedOut', now: Date): LifecycleEvent[] {
    const record = this.open?.record;
    if (!record || record.id !== charge.cancelId || record.state !== 'inProgress.assessingCharge') return [];
    const at = now.toISOString();
    if (outcome === 'accepted') return this.accept(at);
    return this.decline(
      outcome === 'declined'
        ? 'The buyer declined the cancellation charge.'
        : `The cancellation charge was not answered by its responseDueDate ${charge.responseDueDate}.`,
      at,
    );
  }

  /** Whether the order has a Cancel Product Order `id`. */
  has(id: string): boolean {
    return this.records.has(id);
  }

  /**
   * A `CancelProductOrder` (MEF 123 R75, R76, R79): the buyer's request echoed with the seller's `id`, `href`,
   * `state`, contact (`cancelProductOrderSellerContact`), `cancellationDeniedReason` and `charge`.
   */
  view(id: string): Json {
    const record = this.records.get(id);
    if (!record) return {};
    const { request } = record;
    return {
      ...request,
      id,
      href: this.order.cancelHref(id),
      state: record.state,
      productOrder: { ...request.productOrder, productOrderHref: this.order.href },
      relatedContactInformation: [
        ...request.relatedContactInformation,
        { ...this.order.sellerContact, role: 'cancelProductOrderSellerContact' },
      ],
      ...(record.deniedReason === undefined ? {} : { cancellationDeniedReason: record.deniedReason }),
      ...(record.chargeId === undefined
        ? {}
        : { charge: { id: record.chargeId, href: this.order.chargeHref(record.chargeId) } }),
    };
  }

  /** Every `CancelProductOrder_Find` of the order (MEF 123 R77), in the order they came. */
  finds(): Json[] {
    return [...this.records.values()].map((record) => ({
      id: record.id,
      cancellationReasonType: record.request.cancellationReasonType,
      productOrder: { productOrderId: this.order.id, productOrderHref: this.order.href },
      state: record.state,
    }));
  }

  /**
   * What a cancellation adds to the `ProductOrder` (Table 10): its `cancellationCharge` once accepted, its
   * `cancellationDate` and `cancellationReason` once cancelled.
   */
  orderFields(): Json {
    const record = this.accepted;
    if (!record) return {};
    const charge =
      record.chargeId === undefined
        ? {}
        : { cancellationCharge: [{ id: record.chargeId, href: this.order.chargeHref(record.chargeId) }] };
    if (this.cancelledAt === undefined) return charge;
    const cancellationReason = record.request.cancellationReason || 'Cancelled at the buyer’s request.';
    return { ...charge, cancellationDate: this.cancelledAt, cancellationReason };
  }

  /** What a cancellation adds to the `ProductOrder_Find`: `cancellationDate` once cancelled. */
  findFields(): Json {
    return this.cancelledAt === undefined ? {} : { cancellationDate: this.cancelledAt };
  }

  private move(record: CancelRecord, next: CancelState): LifecycleEvent[] {
    record.state = next;
    const subject = { id: record.id, href: this.order.cancelHref(record.id) };
    return [{ eventType: 'cancelProductOrderStateChangeEvent', subject }];
  }

  private accept(at: string): LifecycleEvent[] {
    const record = this.open?.record;
    if (!record) return [];
    this.open = undefined;
    this.accepted = record;
    const events = this.move(record, 'done');
    for (const item of this.order.items) {
      if (!UNFINISHED.includes(item.state)) continue;
      delete item.expectedCompletionDate;
      events.push(this.order.moveItem(item, 'cancelled', at), ...this.withdrawCharges(item));
    }
    return [...events, ...this.order.moveOrder('pendingCancellation', at)];
  }

  /** The item's Charges still awaiting the buyer, withdrawn: their events. */
  private withdrawCharges(item: OrderItem): LifecycleEvent[] {
    return item.charges.flatMap((id) => {
      const charge = this.order.charges.get(id);
      if (charge?.state !== 'awaitingResponse') return [];
      withdraw(charge);
      return [{ eventType: 'chargeStateChangeEvent', subject: { id, href: this.order.chargeHref(id) } }];
    });
  }

  private decline(reason: string, at: string): LifecycleEvent[] {
    if (!this.open) return [];
    const { record, before } = this.open;
    this.open = undefined;
    record.deniedReason = reason;
    const events = this.move(record, 'done.declined');
    for (const item of this.order.items) {
      if (item.state === 'pending') events.push(this.order.moveItem(item, 'inProgress', at));
    }
    return [...events, ...this.order.resume(before, at)];
  }
}
