import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { error400, error404, error429, error501, type SellerAnswer } from './errors.js';
import { type Hub, parseEventQuery } from './hub.js';
import type { Lifecycle, SellerContext, SonataApi } from './lifecycle.js';
import { createPoq } from './poq.js';
import { createQuote } from './quote.js';
import { firstIssue, hubInputSchema, poqCreateSchema, quoteCreateSchema } from './requests.js';

/** What the sellers share: the POQs and Quotes they hold, their listeners, and the deferred-step scheduler. */
export interface SellerState {
  lifecycles: Map<string, Lifecycle>;
  hub: Hub;
  /** Takes `lifecycle`'s deferred steps, every `stepMs`, publishing each step's events (about `href`). */
  schedule(lifecycle: Lifecycle, stepMs: number, href: string): void;
}

/** One authenticated API call, its path below the API base (`/productOfferingQualification/{id}`). */
export interface ApiCall {
  api: SonataApi;
  method: string;
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body; `undefined` when there was none, a `SyntaxError` when it was not JSON. */
  body: unknown;
  now: Date;
}

const RESOURCE: Record<SonataApi, string> = { poq: 'productOfferingQualification', quote: 'quote' };

function parsed<T>(
  schema: z.ZodType<T>,
  body: unknown,
  name: string,
): { data: T } | { answer: SellerAnswer } {
  if (body instanceof SyntaxError || body === undefined)
    return { answer: error400('invalidBody', `The body must be a JSON ${name}.`) };
  const result = schema.safeParse(body);
  return result.success
    ? { data: result.data }
    : { answer: error400('invalidBody', `The body does not follow ${name}.`, firstIssue(result.error)) };
}

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
  call: ApiCall,
  options: { unableToProvide: boolean; withoutPrice: boolean; retryAfter: string | null },
): { answer: SellerAnswer; after?: () => void } {
  const buyerId = call.query.get('buyerId') ?? undefined;
  const sellerId = call.query.get('sellerId') ?? undefined;
  if (sellerId !== undefined && sellerId !== context.sourceKey) {
    return { answer: error400('invalidQuery', `This seller is ${context.sourceKey}, not ${sellerId}.`) };
  }
  const sellerKey = `${context.sourceKey}/${context.mode}`;
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
    if (context.mode === 'sync-only') return { answer: error501('This seller sends no notifications.') };
    if (call.method === 'POST' && id === undefined) {
      const input = parsed(hubInputSchema, call.body, 'EventSubscriptionInput');
      if ('answer' in input) return input;
      const eventTypes = parseEventQuery(call.api, input.data.query);
      if (typeof eventTypes === 'string') return { answer: error400('invalidBody', `query: ${eventTypes}`) };
      const { callback, query } = input.data;
      const listener = state.hub.register({
        sellerKey,
        api: call.api,
        buyerId,
        sellerId,
        callback,
        query,
        eventTypes,
      });
      return {
        answer: {
          status: 201,
          body: { id: listener.id, callback, ...(query === undefined ? {} : { query }) },
        },
      };
    }
    if (call.method === 'DELETE' && id !== undefined && extra === undefined) {
      const listener = state.hub.listeners.get(id);
      if (
        !listener ||
        listener.sellerKey !== sellerKey ||
        listener.api !== call.api ||
        listener.buyerId !== buyerId
      )
        return { answer: error404(`No listener ${id}.`) };
      state.hub.listeners.delete(id);
      return { answer: { status: 204 } };
    }
    return { answer: error404(`No operation ${call.method} ${call.path}.`) };
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
          state.hub.publish(lifecycle, [{ eventType: 'poqCreateEvent' }], href(context, lifecycle));
        if (!lifecycle.complete()) state.schedule(lifecycle, context.stepMs, href(context, lifecycle));
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

function href(context: SellerContext, lifecycle: Lifecycle): string {
  return `${context.apiBase(lifecycle.api)}/${RESOURCE[lifecycle.api]}/${lifecycle.id}`;
}

function create(
  state: SellerState,
  context: SellerContext,
  call: ApiCall,
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
  });
}

/** A list entry (POQ `ProductOfferingQualification_Find`, Quote `Quote_Find`) from a full representation. */
function find(api: SonataApi, view: Record<string, unknown>): Record<string, unknown> {
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
