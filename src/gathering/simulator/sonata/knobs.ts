import { type CancelOutcome, cancelOutcomes } from './cancel.js';
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

/** What the order knobs of a call decide (see {@link orderKnobs}). */
export interface OrderKnobs {
  outcome: OrderOutcome;
  /** Milliseconds from a Charge's creation to its `responseDueDate`. */
  chargeDueMs: number;
  /** How a Cancel Product Order sent with this call is answered. */
  cancel: CancelOutcome;
  /** Milliseconds between the steps of a Cancel Product Order. */
  cancelStepMs: number;
}

/**
 * The order knobs of a call (Product Order Management): `order=hold-charge|reject|fail-item` (default: every
 * item completes; order.ts `OrderOutcome`), `charge_due_ms=<ms>`, the time from a Charge's creation to its
 * `responseDueDate` (default three steps), `cancel=accept|decline|charge|reject` (default `accept`; cancel.ts
 * `CancelOutcome`) and `cancel_step_ms=<ms>`, the time between a Cancel Product Order's steps (default one
 * step, `stepMs`).
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
  return { outcome: outcome as OrderOutcome, chargeDueMs, cancel: cancel as CancelOutcome, cancelStepMs };
}
