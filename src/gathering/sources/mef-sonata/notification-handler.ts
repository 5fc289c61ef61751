import { z } from 'zod';
import type { SonataApi } from './client.js';
import type { SonataNotification, SonataNotificationInbox } from './inbox.js';

/**
 * The notification APIs' base paths and listener resources, from the buyer-side documents (MEF 87 POQ
 * Notification 7.0.1, MEF 115 Quote Notification 8.0.1): the seller appends them to the registered
 * callback.
 */
export const sonataNotificationPaths = {
  poq: {
    basePath: '/mefApi/sonata/productOfferingQualificationNotification/v7',
    eventTypes: ['poqCreateEvent', 'poqStateChangeEvent', 'poqItemStateChangeEvent'],
  },
  quote: {
    basePath: '/mefApi/sonata/quoteNotification/v8',
    eventTypes: ['quoteStateChangeEvent', 'quoteItemStateChangeEvent'],
  },
} as const satisfies Record<SonataApi, { basePath: string; eventTypes: readonly string[] }>;

const text = z.string().min(1).max(500);

/** MEF 87 POQ Notification 7.0.1 `Event` (with `PoqEvent`); unknown members are ignored. */
const poqEventSchema = z.object({
  eventId: text,
  eventTime: z.iso.datetime({ offset: true }),
  eventType: z.enum(sonataNotificationPaths.poq.eventTypes),
  event: z.object({
    id: text,
    href: z.string().max(2000).optional(),
    poqItemId: text.optional(),
    buyerId: text.optional(),
    sellerId: text.optional(),
  }),
});

/** MEF 115 Quote Notification 8.0.1 `Event` (with `QuoteEvent`); unknown members are ignored. */
const quoteEventSchema = z.object({
  eventId: text,
  eventTime: z.iso.datetime({ offset: true }),
  eventType: z.enum(sonataNotificationPaths.quote.eventTypes),
  event: z.object({
    id: text,
    href: z.string().max(2000).optional(),
    quoteItemId: text.optional(),
    buyerId: text.optional(),
    sellerId: text.optional(),
  }),
});

/** A notification request as the callback route received it. */
export interface SonataNotificationRequest {
  /** The source id segment of the callback URL. */
  sourceId: string;
  /**
   * The rest of the path after the source id: `/<token>/mefApi/sonata/<notification API>/v<n>/listener/<eventType>`.
   */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The request body: parsed JSON, or its text. */
  body: unknown;
}

/** The answer to give: status, and a MEF `Error` body (null for 204). */
export interface SonataNotificationResponse {
  status: number;
  body: { code: string; reason: string; message?: string } | null;
}

/**
 * Handles one hub notification (framework-free: mount it as `POST <callbackBase>/:sourceId/*` and pass the
 * rest of the path). Answers as the notification documents define:
 *
 * - 401 `Error401` (`missingCredentials` / `invalidCredentials`) when the path's token is not the source's
 *   (see {@link SonataNotificationInbox}) — checked first, so a forger learns nothing else;
 * - 404 when the path is not one of the documents' listener resources;
 * - 400 `Error400` (`invalidBody`) when the body is not the documents' `Event`, its `eventType` is not
 *   the listener's, or its `buyerId`/`sellerId` are not the source's (docs/mef-sonata-mapping.md §5);
 * - 204 otherwise, also for an event delivered before (it changes nothing the second time).
 *
 * @param deliver takes an accepted event in (default: `inbox.deliver`); the gateway's route also hands it
 *   to the other processes (`src/server/sonata-callbacks.ts`).
 */
export function handleSonataNotification(
  inbox: SonataNotificationInbox,
  request: SonataNotificationRequest,
  deliver: (notification: SonataNotification) => void = (notification) => {
    inbox.deliver(notification);
  },
): SonataNotificationResponse {
  const rest = listenerPath(inbox, request);
  if (typeof rest !== 'string') return rest;
  const listener = listenerOf(rest);
  if (!listener) return noListener;
  const body = eventBody(request);
  if (body instanceof NotificationAnswer) return body.response;
  const parsed = listener.api === 'poq' ? poqEventSchema.safeParse(body) : quoteEventSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return invalidBody(
      `The event does not match the ${listener.api === 'poq' ? 'POQ' : 'Quote'} notification Event at /${issue?.path.join('/') ?? ''}.`,
    );
  }
  const event = parsed.data;
  if (event.eventType !== listener.eventType) {
    return invalidBody(`An ${event.eventType} was sent to the ${listener.eventType} listener.`);
  }
  if (!inbox.idsFit(request.sourceId, event.event)) {
    return invalidBody('The event names another buyerId or sellerId than the source registered with.');
  }
  deliver({
    sourceId: request.sourceId,
    api: listener.api,
    eventId: event.eventId,
    eventType: event.eventType,
    eventTime: event.eventTime,
    resourceId: event.event.id,
    itemId:
      ('poqItemId' in event.event ? event.event.poqItemId : undefined) ??
      ('quoteItemId' in event.event ? event.event.quoteItemId : undefined) ??
      null,
  });
  return { status: 204, body: null };
}

function listenerOf(path: string): { api: SonataApi; eventType: string } | null {
  for (const api of ['poq', 'quote'] as const) {
    const { basePath, eventTypes } = sonataNotificationPaths[api];
    const prefix = `${basePath}/listener/`;
    if (!path.startsWith(prefix)) continue;
    const eventType = path.slice(prefix.length);
    return (eventTypes as readonly string[]).includes(eventType) ? { api, eventType } : null;
  }
  return null;
}

/** A request header by its lower-case name (the first value of a repeated one). */
function header(headers: SonataNotificationRequest['headers'], name: string): string | undefined {
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

/** A body's JSON, or undefined when it is none. */
function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** The notification documents' `401` (`Error401`). */
function unauthorized(code: 'missingCredentials' | 'invalidCredentials'): SonataNotificationResponse {
  return { status: 401, body: { code, reason: 'The notification callback is not authenticated.' } };
}

/** The notification documents' `400 invalidBody` (`Error400`). */
export function invalidBody(message: string): SonataNotificationResponse {
  return { status: 400, body: { code: 'invalidBody', reason: 'The event is not valid.', message } };
}

/** The notification documents' `404`: no listener of that event type at the path. */
export const noListener: SonataNotificationResponse = {
  status: 404,
  body: { code: 'notFound', reason: 'No notification listener at this path.' },
};

/**
 * The path of a callback below its token (`/mefApi/sonata/<notification API>/v<n>/listener/<eventType>`,
 * without a trailing slash), or the `401` for a missing or wrong token (the HMAC of the source id).
 */
export function listenerPath(
  inbox: SonataNotificationInbox,
  request: SonataNotificationRequest,
): string | SonataNotificationResponse {
  const match = /^\/([^/]*)(\/.*)?$/.exec(request.path);
  const token = match?.[1] ?? '';
  if (token === '') return unauthorized('missingCredentials');
  if (!inbox.authenticates(request.sourceId, token)) return unauthorized('invalidCredentials');
  return (match?.[2] ?? '').replace(/\/+$/, '');
}

/** An answer given instead of a value (see {@link eventBody}). */
export class NotificationAnswer {
  constructor(readonly response: SonataNotificationResponse) {}
}

/** A callback's JSON body (undefined when it is no JSON), or the `400` for another content type. */
export function eventBody(request: SonataNotificationRequest): unknown {
  const contentType = header(request.headers, 'content-type');
  if (contentType !== undefined && !/^application\/json\s*(;|$)/i.test(contentType.trim())) {
    return new NotificationAnswer(invalidBody('The event must be sent as application/json.'));
  }
  return typeof request.body === 'string' ? parseJson(request.body) : request.body;
}
