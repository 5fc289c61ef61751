import type { z } from 'zod';
import { error400, error404, error501, type SellerAnswer } from './errors.js';
import { type Hub, parseEventQuery } from './hub.js';
import type { NotifyingApi, SellerContext, SonataApi } from './lifecycle.js';
import { firstIssue, hubInputSchema } from './requests.js';

type Json = Record<string, unknown>;

/*
 * What the routes of every Sonata API share: reading a body against its schema, the buyer/seller scope of a
 * call, and the `/hub` listener registration.
 */

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

/** Who a call is for: the `buyerId` / `sellerId` query (MEF 87 §5.1.3, MEF 123 §5.3) and the seller's key. */
export interface CallScope {
  buyerId: string | undefined;
  sellerId: string | undefined;
  /** `${sourceKey}/${mode}`. */
  sellerKey: string;
}

/** A body read against `schema`: the data, or the `400` `Error400` `invalidBody` answer. */
export function parsed<T>(
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
 * The scope of a call: `buyerId` is any, `sellerId` absent or the seller's source key (else `400
 * invalidQuery`).
 */
export function callScope(context: SellerContext, query: URLSearchParams): CallScope | SellerAnswer {
  const buyerId = query.get('buyerId') ?? undefined;
  const sellerId = query.get('sellerId') ?? undefined;
  if (sellerId !== undefined && sellerId !== context.sourceKey) {
    return error400('invalidQuery', `This seller is ${context.sourceKey}, not ${sellerId}.`);
  }
  return { buyerId, sellerId, sellerKey: `${context.sourceKey}/${context.mode}` };
}

/**
 * `POST /hub` (`EventSubscriptionInput` → `201` `EventSubscription`), `GET /hub/{id}` (Product Order only:
 * the POQ and Quote documents lack it) and `DELETE /hub/{id}` (`204`) of a notifying API. A listener is
 * found only by the buyer that registered it, at the seller and API it registered with (`404` otherwise).
 * A `sync-only` seller answers `501 notImplemented`.
 * @param segments the path below `/hub` (`[]` or `[id]`).
 */
export function answerHubCall(
  hub: Hub,
  context: SellerContext,
  call: ApiCall & { api: NotifyingApi },
  scope: CallScope,
  segments: string[],
): SellerAnswer {
  if (context.mode === 'sync-only') return error501('This seller sends no notifications.');
  const [id, extra] = segments;
  if (call.method === 'POST' && id === undefined) {
    const input = parsed(hubInputSchema, call.body, 'EventSubscriptionInput');
    if ('answer' in input) return input.answer;
    const eventTypes = parseEventQuery(call.api, input.data.query);
    if (typeof eventTypes === 'string') return error400('invalidBody', `query: ${eventTypes}`);
    const { callback, query } = input.data;
    const listener = hub.register({ ...scope, api: call.api, callback, query, eventTypes });
    return { status: 201, body: { id: listener.id, callback, ...(query === undefined ? {} : { query }) } };
  }
  const known = id === undefined || extra !== undefined ? undefined : hub.listeners.get(id);
  const listener =
    known && known.sellerKey === scope.sellerKey && known.api === call.api && known.buyerId === scope.buyerId
      ? known
      : undefined;
  if (call.method === 'DELETE' && id !== undefined && extra === undefined) {
    if (!listener) return error404(`No listener ${id}.`);
    hub.listeners.delete(listener.id);
    return { status: 204 };
  }
  if (call.method === 'GET' && call.api === 'order' && id !== undefined && extra === undefined) {
    if (!listener) return error404(`No listener ${id}.`);
    const { callback, query } = listener;
    return { status: 200, body: { id: listener.id, callback, ...(query === undefined ? {} : { query }) } };
  }
  return error404(`No operation ${call.method} ${call.path}.`);
}

/**
 * A list answer: the entries the query's filters (by query name) keep, then `offset`/`limit`, with
 * `X-Total-Count` and `X-Result-Count` (MEF 123 R107).
 */
export function listAnswer(
  entries: Json[],
  filters: Record<string, (entry: Json, value: string) => boolean>,
  query: URLSearchParams,
): SellerAnswer {
  const matching = entries.filter((entry) =>
    Object.entries(filters).every(([name, test]) => {
      const value = query.get(name);
      return value === null || test(entry, value);
    }),
  );
  const offset = Number(query.get('offset') ?? 0) || 0;
  const limit = query.get('limit') === null ? matching.length : Number(query.get('limit')) || 0;
  const page = matching.slice(offset, offset + limit);
  return {
    status: 200,
    body: page,
    headers: { 'x-total-count': String(matching.length), 'x-result-count': String(page.length) },
  };
}
