import { OrderCancellations } from './cancel.js';
import {
  answerProblem,
  applyAnswer,
  type ChargeRecord,
  cancellationCharge,
  chargeView,
  closedReason,
  constructionCharge,
  expire,
} from './charge.js';
import { error400, type ItemProblem, type SellerAnswer } from './errors.js';
import type { ItemCharges } from './item-charges.js';
import type { Lifecycle, LifecycleEvent, SellerContext, StateChange } from './lifecycle.js';
import { later, sellerContact } from './lifecycle.js';
import {
  acceptedCharges,
  currencyOf,
  declinedProblem,
  type OrderItem,
  orderItemView,
  termProblem,
} from './order-items.js';
import type { ChargeUpdate, ProductOrderCreate, ProductOrderCreateItem } from './order-requests.js';
import type { QuotedItem } from './order-rules.js';

type Json = Record<string, unknown>;

/**
 * How a simulated seller ends an order (the `order=` knob): `complete` (default) every item; `hold-charge`
 * holds every item (the first `hold_items=`) on a blocking charge the buyer must answer; `reject` rejects the
 * order after acknowledging it; `fail-item` fails the first item and completes the others.
 */
export type OrderOutcome = 'complete' | 'hold-charge' | 'reject' | 'fail-item';
/** Every `order=` knob value. */
export const orderOutcomes: readonly OrderOutcome[] = ['complete', 'hold-charge', 'reject', 'fail-item'];

/** The milestone every item reaches on its way (MEF 123 CR8<O19: kept in the item's `milestone`). */
export const SITE_SURVEY_MILESTONE = 'siteSurveyCompleted';

/** Product Order completion states (MEF 123 Table 8), after which no deferred step is taken. */
const FINAL = ['completed', 'partial', 'failed', 'rejected', 'cancelled'];
/** Item states from which an item still moves on. */
const ACTIVE = ['acknowledged', 'inProgress', 'held'];

/** A Product Order the seller holds, with its Charges and Cancel Product Orders (MEF 123 UC 1, 8, 11, 12). */
export interface OrderLifecycle extends Lifecycle {
  readonly api: 'order';
  readonly charges: ReadonlyMap<string, ChargeRecord>;
  readonly cancellations: OrderCancellations;
  /** `ProductOrder_Find` (MEF 123 R59). */
  find(): Json;
  /** `MEFProductOrderCharge` of one of its Charges. */
  chargeView(id: string): Json;
  /** The buyer's answer to a Charge (`PATCH /charge/{id}`): the answer and the events of its effects. */
  answerCharge(
    id: string,
    update: ChargeUpdate,
    now: Date,
  ): { answer: SellerAnswer; events: LifecycleEvent[] };
  /** The Charge's `responseDueDate` passed at `now`: the events of its timeout, none when it was answered. */
  expireCharge(id: string, now: Date): LifecycleEvent[];
}

/** What the order asks of the seller around it: ids, the charge due time, and delivery into the inventory. */
export interface OrderOptions {
  id: string;
  buyerId?: string;
  sellerId?: string;
  now: Date;
  outcome: OrderOutcome;
  /** Under `hold-charge`, how many items (the first ones) are held, the others complete; default all. */
  holdItems?: number;
  /** Which Charges an item's `charge` references ({@link ItemCharges}); default all. */
  itemCharges?: ItemCharges;
  /** Milliseconds from a Charge's creation to its `responseDueDate`. */
  chargeDueMs: number;
  /** The quote item each order item names, in item order (checked by order-rules.ts). */
  quoted: (QuotedItem | null)[];
  newId(): string;
  /** A Charge was created (index it, time its `responseDueDate`). */
  onCharge(charge: ChargeRecord): void;
  /** An item completed: put its product in the inventory; returns the product's href. */
  deliver(item: {
    orderItemId: string;
    productId: string;
    request: ProductOrderCreateItem;
    itemTerm: Json | undefined;
    quoted: QuotedItem | null;
    at: string;
  }): string;
}

const itemEvent = (item: OrderItem): LifecycleEvent => ({
  eventType: 'productOrderItemStateChangeEvent',
  itemId: item.request.id,
});

/**
 * Creates an acknowledged Product Order (MEF 123 UC 1): `201` with the order and every item `acknowledged`,
 * echoing the buyer's attributes (R16) with the seller's contact (`sellerContact`, R17). Every deferred step
 * ({@link Lifecycle.advance}, every `stepMs`) then moves it on (Figure 13/14 state machines):
 *
 * 1. validation: items `inProgress` with an `expectedCompletionDate` two steps ahead (R46) and the agreed
 *    `itemTerm`; the order `inProgress`. An item whose term differs from its quote's is `rejected` with a
 *    `terminationError` (R38), the others `rejected.validated`, the order `rejected`; so is every item
 *    under `order=reject`.
 * 2. site survey: each item reaches the `siteSurveyCompleted` milestone. Under `order=hold-charge` the survey
 *    finds construction work: each item (the first `holdItems` of them) gets a blocking Charge (UC 11a, due
 *    `chargeDueMs` later) and goes `held`, the order `held.assessingCharge`.
 * 3. delivery: each `inProgress` item `completed` with `completionDate` and `product.id` (R48, R61) — under
 *    `order=fail-item` the first `failed` with a `terminationError` instead — and the order `completed`,
 *    `partial` (some failed) or `failed` (all failed), with its `completionDate` (R45).
 *
 * A held item continues when the buyer accepts every charge item; a declined blocking charge — and an
 * unanswered one, whose items count as declined (R96) — fails the item (§6.12; Table 9 `failed`) and the
 * order returns to `inProgress`, ending at the next step ("moves to inProgress and then to failed", Table 8).
 * A Cancel Product Order pauses all of this while it is assessed, and may end the order `cancelled` (cancel.ts).
 */
export function createOrder(
  context: SellerContext,
  body: ProductOrderCreate,
  options: OrderOptions,
): OrderLifecycle {
  const { productOrderItem: requests, ...common } = body;
  const orderDate = options.now.toISOString();
  const orderHref = `${context.apiBase('order')}/productOrder/${options.id}`;
  const chargeHref = (id: string) => `${context.apiBase('order')}/charge/${id}`;
  const cancelHref = (id: string) => `${context.apiBase('order')}/cancelProductOrder/${id}`;
  let state = 'acknowledged';
  const stateChange: StateChange[] = [{ changeDate: orderDate, state }];
  let completionDate: string | undefined;
  const charges = new Map<string, ChargeRecord>();
  const productHrefs = new Map<string, string>();
  const items: OrderItem[] = requests.map((request, index) => ({
    request,
    quoted: options.quoted[index] ?? null,
    state: 'acknowledged',
    stateChange: [{ changeDate: orderDate, state: 'acknowledged' }],
    surveyed: false,
    milestone: [],
    charges: [],
  }));

  const move = (item: OrderItem, next: string, at: string): LifecycleEvent => {
    item.state = next;
    item.stateChange.push({ changeDate: at, state: next });
    return itemEvent(item);
  };
  const fail = (item: OrderItem, problem: ItemProblem, at: string): LifecycleEvent => {
    item.problem = problem;
    delete item.expectedCompletionDate; // R27: a failed item has none.
    return move(item, 'failed', at);
  };
  const moveOrder = (next: string, at: string): LifecycleEvent[] => {
    if (state === next) return [];
    state = next;
    stateChange.push({ changeDate: at, state: next });
    return [{ eventType: 'productOrderStateChangeEvent' }];
  };
  /** The order's state after its items moved; it ends only on a deferred step (`mayEnd`); a cancellation's own. */
  const settle = (at: string, mayEnd: boolean): LifecycleEvent[] => {
    if (cancellations.holding() || state === 'cancelled') return [];
    if (items.some((item) => item.state === 'held')) return moveOrder('held.assessingCharge', at);
    if (!mayEnd || items.some((item) => ACTIVE.includes(item.state))) return moveOrder('inProgress', at);
    completionDate = at;
    const completed = items.filter((item) => item.state === 'completed').length;
    return moveOrder(completed === items.length ? 'completed' : completed === 0 ? 'failed' : 'partial', at);
  };

  const validate = (now: Date): LifecycleEvent[] => {
    const at = now.toISOString();
    const problems = items.map((item, index) =>
      options.outcome === 'reject'
        ? ({
            code: 'otherIssue',
            propertyPath: `/productOrderItem/${index}`,
            reason: 'The seller cannot accept this order item.',
          } satisfies ItemProblem)
        : termProblem(item, index),
    );
    if (problems.some((problem) => problem !== null)) {
      const events = items.map((item, index) => {
        const problem = problems[index];
        if (problem) item.problem = problem;
        return move(item, problem ? 'rejected' : 'rejected.validated', at);
      });
      completionDate = at;
      return [...events, ...moveOrder('rejected', at)];
    }
    const events = items.flatMap((item) => {
      item.expectedCompletionDate = later(now, 2 * context.stepMs);
      return [
        move(item, 'inProgress', at),
        { eventType: 'productOrderItemExpectedCompletionDateSet', itemId: item.request.id },
      ];
    });
    return [...events, ...moveOrder('inProgress', at)];
  };

  const progress = (now: Date): LifecycleEvent[] => {
    const at = now.toISOString();
    const events: LifecycleEvent[] = [];
    const created: ChargeRecord[] = [];
    items.forEach((item, index) => {
      if (item.state !== 'inProgress') return;
      if (!item.surveyed) {
        const holds = options.outcome === 'hold-charge' && index < (options.holdItems ?? items.length);
        item.surveyed = true;
        item.milestone.push({
          date: at,
          name: SITE_SURVEY_MILESTONE,
          note: holds
            ? 'Site survey done: the last-mile connection must be built.'
            : 'Site survey done: the site can be connected.',
        });
        events.push({
          eventType: 'productSpecificProductOrderItemMilestoneEvent',
          itemId: item.request.id,
          milestoneName: SITE_SURVEY_MILESTONE,
        });
        if (holds) {
          const charge = constructionCharge(
            { id: options.newId(), orderId: options.id, orderItemId: item.request.id },
            currencyOf(item.quoted),
            now,
            new Date(now.getTime() + options.chargeDueMs),
          );
          charges.set(charge.id, charge);
          item.charges.push(charge.id);
          created.push(charge);
          events.push(move(item, 'held', at));
        }
        return;
      }
      if (options.outcome === 'fail-item' && index === 0) {
        events.push(
          fail(
            item,
            {
              code: 'otherIssue',
              propertyPath: `/productOrderItem/${index}`,
              reason: 'The installation failed at the site.',
            },
            at,
          ),
        );
        return;
      }
      item.completionDate = at;
      item.productId = options.newId();
      productHrefs.set(
        item.request.id,
        options.deliver({
          orderItemId: item.request.id,
          productId: item.productId,
          request: item.request,
          itemTerm: item.request.requestedItemTerm,
          quoted: item.quoted,
          at,
        }),
      );
      events.push(move(item, 'completed', at));
    });
    events.push(...settle(at, true));
    for (const charge of created) {
      options.onCharge(charge);
      events.push({
        eventType: 'chargeCreateEvent',
        subject: { id: charge.id, href: chargeHref(charge.id) },
      });
    }
    return events;
  };

  const cancellations: OrderCancellations = new OrderCancellations({
    id: options.id,
    href: orderHref,
    items,
    charges,
    sellerContact: sellerContact(context),
    state: () => state,
    moveOrder,
    moveItem: move,
    raiseCharge: (cancelId, now, dueMs) => {
      const due = new Date(now.getTime() + dueMs);
      const ids = { id: options.newId(), orderId: options.id, cancelId };
      const charge = cancellationCharge(ids, currencyOf(items[0]?.quoted ?? null), now, due);
      charges.set(charge.id, charge);
      options.onCharge(charge);
      return charge;
    },
    resume: (before, at) => (before === 'acknowledged' ? moveOrder(before, at) : settle(at, false)),
    ended: (at) => {
      completionDate = at;
    },
    cancelHref,
    chargeHref,
  });

  const shown = (item: OrderItem) =>
    options.itemCharges === 'accepted' ? { ...item, charges: acceptedCharges(item, charges) } : item;
  const itemView = (item: OrderItem): Json =>
    orderItemView(shown(item), chargeHref, productHrefs.get(item.request.id));

  const chargeItem = (charge: ChargeRecord) => items.find((item) => item.request.id === charge.orderItemId);

  const lifecycle: OrderLifecycle = {
    api: 'order',
    id: options.id,
    sellerKey: `${context.sourceKey}/${context.mode}`,
    buyerId: options.buyerId,
    sellerId: options.sellerId,
    unread: 0,
    charges,
    cancellations,
    complete: () => FINAL.includes(state),
    find: () => ({
      id: options.id,
      orderDate,
      state,
      ...(common.externalId === undefined ? {} : { externalId: common.externalId }),
      ...(common.projectId === undefined ? {} : { projectId: common.projectId }),
      ...(completionDate === undefined ? {} : { completionDate }),
      ...cancellations.findFields(),
    }),
    view: () => ({
      ...common,
      relatedContactInformation: [
        ...common.relatedContactInformation,
        { ...sellerContact(context), role: 'sellerContact' },
      ],
      id: options.id,
      href: orderHref,
      orderDate,
      state,
      stateChange,
      ...(completionDate === undefined ? {} : { completionDate }),
      ...cancellations.orderFields(),
      productOrderItem: items.map(itemView),
    }),
    advance: (now) => {
      if (FINAL.includes(state) || cancellations.holding()) return [];
      return state === 'acknowledged' ? validate(now) : progress(now);
    },
    chargeView: (id) => {
      const charge = charges.get(id);
      if (!charge) return {};
      const cancel = charge.cancelId === undefined ? undefined : cancelHref(charge.cancelId);
      return chargeView(charge, { charge: chargeHref(id), order: orderHref, cancel });
    },
    answerCharge: (id, update, now) => {
      const charge = charges.get(id);
      if (!charge)
        return {
          answer: { status: 404, body: { code: 'notFound', reason: `No charge ${id}.` } },
          events: [],
        };
      const events = lifecycle.expireCharge(id, now);
      if (charge.state !== 'awaitingResponse')
        return { answer: { status: 409, body: { code: 'conflict', reason: closedReason(charge) } }, events };
      const problem = answerProblem(charge, update);
      if (problem) return { answer: error400('invalidBody', problem.reason, problem.propertyPath), events };
      const declined = applyAnswer(charge, update);
      const at = now.toISOString();
      const item = chargeItem(charge);
      const answered: LifecycleEvent[] = [
        { eventType: 'chargeStateChangeEvent', subject: { id, href: chargeHref(id) } },
        ...cancellations.charged(charge, declined ? 'declined' : 'accepted', now),
      ];
      if (item?.state === 'held') {
        answered.push(
          declined
            ? fail(item, declinedProblem(items.indexOf(item), 'The buyer declined the blocking charge.'), at)
            : move(item, 'inProgress', at),
        );
      }
      if (charge.cancelId === undefined) answered.push(...settle(at, false));
      return { answer: { status: 200, body: lifecycle.chargeView(id) }, events: answered };
    },
    expireCharge: (id, now) => {
      const charge = charges.get(id);
      const due = charge ? Date.parse(charge.responseDueDate) : Number.POSITIVE_INFINITY;
      if (charge?.state !== 'awaitingResponse' || due > now.getTime()) return [];
      expire(charge);
      const at = now.toISOString();
      const events: LifecycleEvent[] = [
        { eventType: 'chargeTimeoutEvent', subject: { id, href: chargeHref(id) } },
        ...cancellations.charged(charge, 'timedOut', now),
      ];
      const item = chargeItem(charge);
      if (item?.state === 'held') {
        const reason = `The blocking charge was not answered by its responseDueDate ${charge.responseDueDate}.`;
        events.push(fail(item, declinedProblem(items.indexOf(item), reason), at));
      }
      if (charge.cancelId === undefined) events.push(...settle(at, false));
      return events;
    },
  };
  return lifecycle;
}
