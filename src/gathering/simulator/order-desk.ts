import type { CatalogFile } from '../sources/catalog-file.js';
import { supplierCancelRequestSchema, supplierOrderRequestSchema } from '../sources/supplier-contract.js';
import { simulatedOfferOf } from './offers.js';
import {
  cancelSimulatedOrder,
  type SimulatedCancelOutcome,
  type SimulatedOrder,
  type SimulatedOrderOutcome,
  simulatedOrderView,
} from './orders.js';

/** One call of a supplier's ordering API, as the simulator saw and answered it. */
export interface OrderExchange {
  sourceKey: string;
  method: string;
  /** The path below `/suppliers/<key>`, e.g. `/orders/so-1/cancel`. */
  path: string;
  /** The query string as sent, without its `?`. */
  query: string;
  status: number;
  requestBody: unknown;
  responseBody: unknown;
}

/** What the desk answers: a status and a JSON body, sent after `delayMs`. */
export interface DeskAnswer {
  status: number;
  body: unknown;
  delayMs: number;
}

/** The ordering side of the supplier simulator: its orders, its calls and how it answers one. */
export interface OrderDesk {
  /** The orders each supplier holds, oldest first. */
  orders(sourceKey: string): SimulatedOrder[];
  /** Every ordering call so far, in order. */
  readonly exchanges: OrderExchange[];
  /**
   * Answers one call below `/suppliers/<key>` when it is an ordering call (`/orders…`).
   *
   * @returns the answer, or null for a path that is not the ordering API's.
   */
  handle(call: {
    method: string;
    sourceKey: string;
    path: string;
    url: URL;
    body: string;
  }): DeskAnswer | null;
}

/** The knobs of an ordering call (the source's endpoint URL's query string travels with each). */
interface OrderKnobs {
  outcome: SimulatedOrderOutcome | 'refuse';
  stepMs: number;
  /**
   * `500`: the placement is kept, then answered 500; `late`: kept, then answered after `lateAnswerMs`;
   * `garbled`: kept, then answered 201 with a body that is not the contract's order.
   */
  place: 'answer' | '500' | 'late' | 'garbled';
  lateAnswerMs: number;
  cancel: SimulatedCancelOutcome;
  /** `cancel=503`: `POST /orders/{id}/cancel` answers 503 and keeps nothing (the supplier cannot take it now). */
  cancelUnavailable: boolean;
  cancelStepMs: number;
}

function knobsOf(url: URL, stepMs: number): OrderKnobs {
  const number = (name: string, fallback: number) => {
    const value = Number(url.searchParams.get(name) ?? Number.NaN);
    return Number.isFinite(value) && value >= 0 ? value : fallback;
  };
  const order = url.searchParams.get('order');
  const place = url.searchParams.get('place');
  const step = number('step_ms', stepMs);
  return {
    outcome: order === 'fail' || order === 'refuse' ? order : 'complete',
    stepMs: step,
    place: place === '500' || place === 'late' || place === 'garbled' ? place : 'answer',
    lateAnswerMs: number('late_answer_ms', 2_000),
    cancel: url.searchParams.get('cancel') === 'decline' ? 'decline' : 'accept',
    cancelUnavailable: url.searchParams.get('cancel') === '503',
    cancelStepMs: number('cancel_step_ms', step),
  };
}

const error = (status: number, message: string, delayMs = 0): DeskAnswer => ({
  status,
  body: { error: message },
  delayMs,
});

/** Where a zod issue is, as a JSON pointer, with its message. */
const issueText = (issue: { path: PropertyKey[]; message: string } | undefined) =>
  issue ? `/${issue.path.map(String).join('/')}: ${issue.message}` : '';

/**
 * Opens the order desk of a supplier simulator (docs/supplier-contract.md, "Ordering"): `POST /orders`
 * (idempotent on `external_id`), `GET /orders/{id}`, `GET /orders?external_id=…`,
 * `POST /orders/{id}/cancel`. Knobs in the query string: `order=complete|fail|refuse` (refuse: 422, nothing
 * kept), `step_ms=<ms>` between item states (default `stepMs`), `place=500|late|garbled` (the order is kept,
 * then answered 500, after `late_answer_ms`, or 201 with a body that is not an order), `cancel=accept|decline|503`
 * (503: the cancellation is answered 503 and not kept), `cancel_step_ms=<ms>` from an accepted cancellation to
 * `done` (default the step).
 */
export function createOrderDesk(catalog: CatalogFile, stepMs: number, now: () => number): OrderDesk {
  const held = new Map<string, SimulatedOrder[]>();
  const exchanges: OrderExchange[] = [];
  let counter = 0;

  const answer = (
    method: string,
    sourceKey: string,
    path: string,
    url: URL,
    body: unknown,
  ): DeskAnswer | null => {
    const knobs = knobsOf(url, stepMs);
    const orders = held.get(sourceKey) ?? [];
    held.set(sourceKey, orders);
    const view = (order: SimulatedOrder, status: number, delayMs = 0): DeskAnswer => ({
      status,
      body: simulatedOrderView(order, now()),
      delayMs,
    });
    if (path === '/orders' && method === 'POST') {
      const parsed = supplierOrderRequestSchema.safeParse(body);
      if (!parsed.success)
        return error(400, `The order breaks the contract at ${issueText(parsed.error.issues[0])}`);
      const request = parsed.data;
      const existing = orders.find((order) => order.request.external_id === request.external_id);
      if (existing) return view(existing, 200);
      const unknown = request.items.find((item) => !simulatedOfferOf(catalog, sourceKey, item.offer_id));
      if (unknown) return error(422, `Offer ${unknown.offer_id} is not offered.`);
      if (knobs.outcome === 'refuse') return error(422, 'The supplier cannot deliver at this address.');
      counter += 1;
      const order: SimulatedOrder = {
        id: `so-${counter}`,
        sourceKey,
        request,
        createdAtMs: now(),
        outcome: knobs.outcome,
        stepMs: knobs.stepMs,
        cancellation: null,
      };
      orders.push(order);
      if (knobs.place === '500') return error(500, 'The order was taken, but the answer failed.');
      if (knobs.place === 'garbled') return { status: 201, body: { order: 'taken' }, delayMs: 0 };
      return view(order, 201, knobs.place === 'late' ? knobs.lateAnswerMs : 0);
    }
    if (path === '/orders' && method === 'GET') {
      const externalId = url.searchParams.get('external_id');
      const found = orders.filter((order) => externalId === null || order.request.external_id === externalId);
      return {
        status: 200,
        body: { orders: found.map((order) => simulatedOrderView(order, now())) },
        delayMs: 0,
      };
    }
    const match = /^\/orders\/([^/]+)(\/cancel)?$/.exec(path);
    if (!match?.[1]) return null;
    const id = decodeURIComponent(match[1]);
    const order = orders.find((each) => each.id === id);
    if (method === 'GET' && !match[2])
      return order ? view(order, 200) : error(404, `Order ${id} was not found.`);
    if (method !== 'POST' || !match[2]) return error(405, 'Method not allowed.');
    const parsed = supplierCancelRequestSchema.safeParse(body);
    if (!parsed.success)
      return error(400, `The cancellation breaks the contract at ${issueText(parsed.error.issues[0])}`);
    if (!order) return error(404, `Order ${id} was not found.`);
    if (knobs.cancelUnavailable) return error(503, 'Cancellations cannot be taken now.');
    const cancelled = cancelSimulatedOrder(order, now(), {
      outcome: knobs.cancel,
      stepMs: knobs.cancelStepMs,
      reason: parsed.data.reason,
    });
    if (cancelled === 'ended') return error(409, `Order ${id} has ended; it can no longer be cancelled.`);
    return view(cancelled, 202);
  };

  return {
    orders: (sourceKey) => [...(held.get(sourceKey) ?? [])],
    exchanges,
    handle({ method, sourceKey, path, url, body }) {
      if (path !== '/orders' && !path.startsWith('/orders/')) return null;
      let json: unknown = null;
      if (body !== '') {
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
      }
      const answered =
        json === undefined ? error(400, 'The body is not JSON.') : answer(method, sourceKey, path, url, json);
      if (!answered) return null;
      exchanges.push({
        sourceKey,
        method,
        path,
        query: url.search.replace(/^\?/, ''),
        status: answered.status,
        requestBody: json ?? null,
        responseBody: answered.body,
      });
      return answered;
    },
  };
}
