import { type CancelOutcome, cancelOutcomes } from './cancel.js';
import { type ItemCharges, itemChargesValues } from './item-charges.js';
import { type OrderOutcome, orderOutcomes } from './order.js';

/** How simulated sellers behave unless a call's query string says otherwise. */
export interface SonataSellerBehaviour {
  /** Answer time range in milliseconds (uniform). */
  latencyMinMs: number;
  latencyMaxMs: number;
  /** Share of calls answered 503 (0–1). */
  failureRate: number;
  /** Share of calls never answered (0–1). */
  hangRate: number;
  /** Share of calls answered with malformed JSON (0–1). */
  malformedRate: number;
  /** deferred/notify: ms between state steps (acknowledged → inProgress → done). */
  stepMs: number;
}

/** No latency, no failures, 100 ms steps: what tests start from. */
export const quietBehaviour: SonataSellerBehaviour = {
  latencyMinMs: 0,
  latencyMaxMs: 0,
  failureRate: 0,
  hangRate: 0,
  malformedRate: 0,
  stepMs: 100,
};

/** What a call's knobs decide before the seller reads it. */
export interface CallKnobs {
  /** `200` (answer normally), `hang`, `malformed`, or a status to answer with an MEF error body. */
  mode: string;
  latencyMs: number;
  /** Milliseconds the answer leaves after the seller acted on the call (its notifications may go first). */
  lateAnswerMs: number;
  retryAfter: string | null;
}

/**
 * The knobs of one call, from its query string (the base URL's query travels with every call):
 * `mode=hang|malformed|401|404|422|429|500|503`, `script=503,503,200` (one step per call, counted per path and
 * query), `retry_after=<seconds>` for 429/503, `latency=<ms>` (before the seller acts), `late_answer_ms=<ms>`
 * (after it acted: the events it sends on the call, e.g. a new order's, leave before its answer); else a draw
 * from the behaviour's rates.
 */
export function callKnobs(
  url: URL,
  behaviour: SonataSellerBehaviour,
  random: () => number,
  scripts: Map<string, number>,
): CallKnobs {
  const script = url.searchParams.get('script');
  let mode: string | null = null;
  if (script) {
    const key = `${url.pathname}?${url.search}`;
    const step = scripts.get(key) ?? 0;
    scripts.set(key, step + 1);
    const steps = script.split(',');
    mode = steps[Math.min(step, steps.length - 1)] ?? null;
  }
  mode ??= url.searchParams.get('mode');
  if (mode === null) {
    const draw = random();
    const { hangRate, failureRate, malformedRate } = behaviour;
    mode =
      draw < hangRate
        ? 'hang'
        : draw < hangRate + failureRate
          ? '503'
          : draw < hangRate + failureRate + malformedRate
            ? 'malformed'
            : '200';
  }
  const latency = url.searchParams.get('latency');
  return {
    mode,
    latencyMs:
      latency !== null
        ? Number(latency)
        : behaviour.latencyMinMs + random() * (behaviour.latencyMaxMs - behaviour.latencyMinMs),
    lateAnswerMs: Math.max(0, Number(url.searchParams.get('late_answer_ms') ?? 0) || 0),
    retryAfter: url.searchParams.get('retry_after'),
  };
}

/** Statuses a seller may be told to answer a call it otherwise offers with (`charge_list=`, `inventory=`). */
const failureStatuses = [404, 503] as const;
/** A status of {@link failureStatuses}. */
export type FailureStatus = (typeof failureStatuses)[number];

/**
 * The status knob `name` of a call: null when absent (the call is answered), else one of
 * {@link failureStatuses}; the message of any other value (answered `400 invalidQuery`).
 */
function failureKnob(url: URL, name: string): FailureStatus | null | string {
  const given = url.searchParams.get(name);
  if (given === null) return null;
  const status = failureStatuses.find((each) => String(each) === given);
  return status ?? `Unknown ${name} knob ${given}: use ${failureStatuses.join(', ')}.`;
}

/** What the order knobs of a call decide (see {@link orderKnobs}). */
export interface OrderKnobs {
  outcome: OrderOutcome;
  /** Under `order=hold-charge`, how many items (the first ones) are held; the others complete. */
  holdItems: number;
  /** Milliseconds from a Charge's creation to its `responseDueDate`. */
  chargeDueMs: number;
  /** The status `GET /charge` (the list) answers instead of the list; null: the list. */
  chargeList: FailureStatus | null;
  /** Which Charges an item's `charge` shows: `all` of them (default) or the `accepted` ones, as MEF 123 says. */
  itemCharges: ItemCharges;
  /** How a Cancel Product Order sent with this call is answered. */
  cancel: CancelOutcome;
  /** Milliseconds between the steps of a Cancel Product Order. */
  cancelStepMs: number;
}

/**
 * The order knobs of a call (Product Order Management): `order=hold-charge|reject|fail-item` (default: every
 * item completes; order.ts `OrderOutcome`), `hold_items=<n>` (under `hold-charge`, only the first n items
 * are held; the others complete; default all), `charge_due_ms=<ms>`, the time from a Charge's creation to its
 * `responseDueDate` (default three steps), `charge_list=404|503` (`GET /charge`, the list, answers that
 * status — a seller that breaks MEF 123 CR3 — while `GET /charge/{id}`, `PATCH` and the hub still work),
 * `item_charges=all|accepted` (an item's `charge` references every Charge of the item, the default, or only
 * its completed Charges with accepted items, as MEF 123 defines `ProductOrderItem.charge`: then an awaited
 * Charge is found only through the list or a notification), `cancel=accept|decline|charge|reject` (default `accept`; cancel.ts `CancelOutcome`) and
 * `cancel_step_ms=<ms>`, the time between a Cancel Product Order's steps (default one step, `stepMs`).
 * @returns the knobs, or the message of an unknown value (answered `400 invalidQuery`).
 */
export function orderKnobs(url: URL, stepMs: number): OrderKnobs | string {
  const outcome = url.searchParams.get('order') ?? 'complete';
  if (!orderOutcomes.includes(outcome as OrderOutcome)) {
    return `Unknown order knob ${outcome}: use ${orderOutcomes.join(', ')}.`;
  }
  const cancel = url.searchParams.get('cancel') ?? 'accept';
  if (!cancelOutcomes.includes(cancel as CancelOutcome)) {
    return `Unknown cancel knob ${cancel}: use ${cancelOutcomes.join(', ')}.`;
  }
  const milliseconds = (name: string, fallback: number): number | string => {
    const given = url.searchParams.get(name);
    const ms = given === null ? fallback : Number(given);
    return Number.isFinite(ms) && ms >= 0 ? ms : `${name} must be a number of ms, not ${given}.`;
  };
  const chargeDueMs = milliseconds('charge_due_ms', 3 * stepMs);
  if (typeof chargeDueMs === 'string') return chargeDueMs;
  const cancelStepMs = milliseconds('cancel_step_ms', stepMs);
  if (typeof cancelStepMs === 'string') return cancelStepMs;
  const holdGiven = url.searchParams.get('hold_items');
  const holdItems = holdGiven === null ? Number.POSITIVE_INFINITY : Number(holdGiven);
  if (holdItems !== Number.POSITIVE_INFINITY && !(Number.isInteger(holdItems) && holdItems >= 0)) {
    return `hold_items must be a whole number of items, not ${holdGiven}.`;
  }
  const chargeList = failureKnob(url, 'charge_list');
  if (typeof chargeList === 'string') return chargeList;
  const itemCharges = url.searchParams.get('item_charges') ?? 'all';
  if (!itemChargesValues.includes(itemCharges as ItemCharges)) {
    return `Unknown item_charges knob ${itemCharges}: use ${itemChargesValues.join(', ')}.`;
  }
  return {
    outcome: outcome as OrderOutcome,
    holdItems,
    chargeDueMs,
    chargeList,
    itemCharges: itemCharges as ItemCharges,
    cancel: cancel as CancelOutcome,
    cancelStepMs,
  };
}

/**
 * The inventory knob of a call (Product Inventory): `inventory=404|503` — `GET /product/{id}` answers that
 * status (an inventory that lags behind the orders that made its products, or is down) while `GET /product`
 * and the order APIs still work.
 * @returns the status to answer with, null to answer normally, or the message of an unknown value.
 */
export function inventoryKnob(url: URL): FailureStatus | null | string {
  return failureKnob(url, 'inventory');
}
