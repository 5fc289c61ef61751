import { randomUUID } from 'node:crypto';
import { error404, error429, type SellerAnswer } from './errors.js';
import type { Hub } from './hub.js';
import type { InventoryProduct } from './inventory.js';
import type { Lifecycle, SellerContext } from './lifecycle.js';
import type { OrderLifecycle } from './order.js';
import { createPoq } from './poq.js';
import { createQuote } from './quote.js';
import { poqCreateSchema, quoteCreateSchema } from './requests.js';
import { type ApiCall, answerHubCall, callScope, parsed } from './routing.js';

export type { ApiCall } from './routing.js';

/**
 * What the sellers share: the POQs, Quotes and Product Orders they hold, the Charges and Cancel Product
 * Orders of those orders, the products orders delivered, their listeners, and the timers of deferred steps.
 */
export interface SellerState {
  lifecycles: Map<string, Lifecycle>;
  /** Charge id → the order that raised it. */
  charges: Map<string, OrderLifecycle>;
  /** Cancel Product Order id → the order it is about. */
  cancellations: Map<string, OrderLifecycle>;
  /** Product id → the product in the inventory. */
  products: Map<string, InventoryProduct>;
  hub: Hub;
  /** Takes `lifecycle`'s deferred steps, every `stepMs`, publishing each step's events (about `href`). */
  schedule(lifecycle: Lifecycle, stepMs: number, href: string): void;
  /** Runs `action` once after `ms` milliseconds (cancelled when the seller stops). */
  after(ms: number, action: () => void): void;
}

const RESOURCE = { poq: 'productOfferingQualification', quote: 'quote' } as const;

/**
 * Answers one authenticated call to a seller (POQ 7.0.1 / Quote 8.0.1): create and retrieve POQs and Quotes,
 * list them, register and remove listeners. Returns the answer and, for a create, what to do once it is sent
 * (the `poqCreateEvent`, MEF 87 R45, goes out after the synchronous answer).
 *
 * - `buyerId` (any) and `sellerId` (absent or the seller's source key, else `400 invalidQuery`) scope every
 *   call: a POQ or Quote is found only by the buyer that created it (`404` otherwise).
 * - `GET …/{id}` at a `notify` seller, while the buyer has a listener for that API, answers `429` with
 *   `Retry-After` unless the resource is complete or a notification about it went out since the buyer last
 *   read it: a buyer with a listener reads after events, it does not poll.
 * - `/hub` at a `sync-only` seller answers `501 notImplemented`.
 */
export function answerApiCall(
  state: SellerState,
  context: SellerContext,
  call: ApiCall & { api: 'poq' | 'quote' },
  options: { unableToProvide: boolean; withoutPrice: boolean; retryAfter: string | null },
): { answer: SellerAnswer; after?: () => void } {
  const scope = callScope(context, call.query);
  if ('status' in scope) return { answer: scope };
  const { buyerId, sellerId, sellerKey } = scope;
  const mine = (lifecycle: Lifecycle | undefined) =>
    lifecycle &&
    lifecycle.api === call.api &&
    lifecycle.sellerKey === sellerKey &&
    lifecycle.buyerId === buyerId
      ? lifecycle
      : undefined;
  const segments = call.path.split('/').slice(1);
  const [resource, id, extra] = segments;

  if (resource === 'hub') {
    return { answer: answerHubCall(state.hub, context, call, scope, segments.slice(1)) };
  }

  if (resource !== RESOURCE[call.api] || extra !== undefined) {
    return { answer: error404(`No operation ${call.method} ${call.path}.`) };
  }
  if (call.method === 'POST' && id === undefined) {
    const created = create(state, context, call, { ...options, buyerId, sellerId });
    if (!created.lifecycle) return { answer: created.answer };
    const { lifecycle } = created;
    state.lifecycles.set(lifecycle.id, lifecycle);
    return {
      answer: created.answer,
      after: () => {
        if (lifecycle.api === 'poq')
          state.hub.publish(
            lifecycle,
            [{ eventType: 'poqCreateEvent' }],
            href(context, call.api, lifecycle.id),
          );
        if (!lifecycle.complete())
          state.schedule(lifecycle, context.stepMs, href(context, call.api, lifecycle.id));
      },
    };
  }
  if (call.method === 'GET' && id === undefined) {
    const wanted = call.query.get('state');
    const found = [...state.lifecycles.values()]
      .filter((lifecycle) => mine(lifecycle))
      .map((lifecycle) => lifecycle.view())
      .filter((view) => wanted === null || view.state === wanted)
      .map((view) => find(call.api, view));
    return { answer: { status: 200, body: found } };
  }
  if (call.method === 'GET' && id !== undefined) {
    const lifecycle = mine(state.lifecycles.get(id));
    if (!lifecycle) return { answer: error404(`No ${RESOURCE[call.api]} ${id}.`) };
    const throttled =
      context.mode === 'notify' &&
      state.hub.listening(sellerKey, call.api, buyerId) &&
      !lifecycle.complete() &&
      lifecycle.unread === 0;
    if (throttled) {
      const seconds = Number(options.retryAfter ?? Math.max(1, Math.ceil(context.stepMs / 1000)));
      return {
        answer: error429('You have a listener registered: read after notifications, do not poll.', seconds),
      };
    }
    lifecycle.unread = 0;
    return { answer: { status: 200, body: lifecycle.view() } };
  }
  return { answer: error404(`No operation ${call.method} ${call.path}.`) };
}

function href(context: SellerContext, api: 'poq' | 'quote', id: string): string {
  return `${context.apiBase(api)}/${RESOURCE[api]}/${id}`;
}

function create(
  state: SellerState,
  context: SellerContext,
  call: ApiCall & { api: 'poq' | 'quote' },
  options: { unableToProvide: boolean; withoutPrice: boolean; buyerId?: string; sellerId?: string },
): { answer: SellerAnswer; lifecycle?: Lifecycle } {
  const base = { id: randomUUID(), buyerId: options.buyerId, sellerId: options.sellerId, now: call.now };
  if (call.api === 'poq') {
    const body = parsed(poqCreateSchema, call.body, 'ProductOfferingQualification_Create');
    if ('answer' in body) return body;
    return createPoq(context, body.data, { ...base, unableToProvide: options.unableToProvide });
  }
  const body = parsed(quoteCreateSchema, call.body, 'Quote_Create');
  if ('answer' in body) return body;
  const knownPoqItem = (poqId: string, itemId: string) => {
    const poq = state.lifecycles.get(poqId);
    const items = (poq?.view().productOfferingQualificationItem ?? []) as { id: string }[];
    return (
      poq?.api === 'poq' &&
      poq.sellerKey === `${context.sourceKey}/${context.mode}` &&
      poq.buyerId === options.buyerId &&
      items.some((item) => item.id === itemId)
    );
  };
  return createQuote(context, body.data, {
    ...base,
    unableToProvide: options.unableToProvide,
    withoutPrice: options.withoutPrice,
    knownPoqItem,
    query: call.query,
  });
}

/** A list entry (POQ `ProductOfferingQualification_Find`, Quote `Quote_Find`) from a full representation. */
function find(api: 'poq' | 'quote', view: Record<string, unknown>): Record<string, unknown> {
  const keys =
    api === 'poq'
      ? ['id', 'state', 'externalId', 'projectId']
      : [
          'id',
          'state',
          'externalId',
          'projectId',
          'quoteDate',
          'quoteLevel',
          'requestedQuoteCompletionDate',
          'effectiveQuoteCompletionDate',
          'expectedQuoteCompletionDate',
        ];
  return Object.fromEntries(keys.filter((key) => view[key] !== undefined).map((key) => [key, view[key]]));
}
