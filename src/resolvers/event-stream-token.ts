import { SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { Session } from '../auth/revocations.js';
import type { Context, Role, Services } from '../context.js';
import { AppError } from '../errors.js';
import { requireViewer } from './authentication.js';
import { orderReaders } from './orders.js';

/** Lifetime of an `sse_jwt`: short, since it travels in URLs and cookies. */
export const EVENT_STREAM_TOKEN_TTL_SECONDS = 10 * 60;

/**
 * The kinds of an instance's Mercure topics, `<instance_id>/<kind>`: its availability requests and its
 * orders (issue 35). The first is listed first in every claim, as it was the only one before.
 */
export const eventStreamTopicKinds = ['availability_request', 'order'] as const;
/** One kind of {@link eventStreamTopicKinds}. */
export type EventStreamTopicKind = (typeof eventStreamTopicKinds)[number];

/**
 * The roles that read each kind's records, as the resolvers require them (`requireViewer`; `instance_admin`
 * reads everything): requests `availability-requests.ts`, orders {@link orderReaders}.
 */
const topicReaders: Record<EventStreamTopicKind, readonly Role[]> = {
  availability_request: ['connectivity_check'],
  order: orderReaders,
};

/** Every role that reads some topic: who may have an `sse_jwt` at all (computed once, not per request). */
const anyTopicReaders: readonly Role[] = [...new Set(Object.values(topicReaders).flat())];

/** The Mercure topic of an instance's events of one kind: `<instance_id>/<kind>`. */
export function eventStreamTopic(instanceId: string, kind: EventStreamTopicKind): string {
  return `${instanceId}/${kind}`;
}

/**
 * The instance and kind of a topic of {@link eventStreamTopic}'s form, or null for any other string (an
 * unknown kind, an empty instance id or one with a `/`).
 */
export function parseEventStreamTopic(
  topic: string,
): { instanceId: string; kind: EventStreamTopicKind } | null {
  const slash = topic.lastIndexOf('/');
  const instanceId = topic.slice(0, slash);
  const kind = eventStreamTopicKinds.find((known) => known === topic.slice(slash + 1));
  return slash > 0 && kind !== undefined && !instanceId.includes('/') ? { instanceId, kind } : null;
}

/** Every instance's id: the topics a Mercure claim that is a pattern (`*`, a URI template) may cover. */
export async function allInstanceIds(services: Services): Promise<string[]> {
  return services.db.listInstanceIds();
}

/**
 * How long an issued `sse_jwt` is handed out again before a new one is signed. The claims depend only on
 * the caller's auth token (its instance, roles, id and application) and the issue time, so every request
 * with the same token within this window gets the same `sse_jwt`, still valid for at least
 * {@link EVENT_STREAM_TOKEN_TTL_SECONDS} − 60 s; a list page polled by a dashboard then costs no signature
 * per request.
 */
export const EVENT_STREAM_TOKEN_REUSE_SECONDS = 60;

/** Tokens issued per signing key (one key per running service), by auth token id; at most 10,000 kept. */
const issuedTokens = new WeakMap<CryptoKey, LRUCache<string, { token: string; issuedAt: number }>>();

/**
 * Issues the `sse_jwt` of the caller: an HS256 JWT in the Mercure claim format
 * `{exp, mercure: {publish: [], subscribe: ["<instance_id>/availability_request", "<instance_id>/order"]}}`
 * (DESIGN.md, "Events"; Mercure spec, "Authorization") whose `subscribe` lists the topics of the caller's
 * instance whose records its roles may read — requests with `connectivity_check`, orders with
 * `connectivity_check` or `ordering`, both with `instance_admin` — valid for
 * {@link EVENT_STREAM_TOKEN_TTL_SECONDS} from its `iat`, naming the session it was minted from: `sid`, the
 * caller's auth token id (`tok_…`), and `app`, its application id (`app_…`). Revoking that token, or
 * disabling that application, stops it working (see {@link eventStreamSession}). A token of the same auth
 * token issued less than {@link EVENT_STREAM_TOKEN_REUSE_SECONDS} ago is returned again instead of signing a
 * new one.
 *
 * @throws {AppError} `UNAUTHENTICATED` without a viewer; `FORBIDDEN` when its roles read no topic.
 */
export async function issueEventStreamToken(ctx: Context): Promise<string> {
  const viewer = requireViewer(ctx, anyTopicReaders);
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  let issued = issuedTokens.get(ctx.signingKey);
  if (!issued) {
    issued = new LRUCache({ max: 10_000 });
    issuedTokens.set(ctx.signingKey, issued);
  }
  const cached = issued.get(viewer.tokenId);
  if (cached && now >= cached.issuedAt && now - cached.issuedAt < EVENT_STREAM_TOKEN_REUSE_SECONDS) {
    return cached.token;
  }
  const subscribe = eventStreamTopicKinds
    .filter((kind) => mayRead(ctx, topicReaders[kind]))
    .map((kind) => eventStreamTopic(viewer.instanceId, kind));
  const token = await new SignJWT({
    mercure: { publish: [], subscribe },
    sid: viewer.tokenId,
    app: viewer.applicationId,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + EVENT_STREAM_TOKEN_TTL_SECONDS)
    .sign(ctx.signingKey);
  issued.set(viewer.tokenId, { token, issuedAt: now });
  return token;
}

/** Whether the viewer passes `requireViewer` for `readers`: the one place the role rule is written. */
function mayRead(ctx: Context, readers: readonly Role[]): boolean {
  try {
    requireViewer(ctx, readers);
    return true;
  } catch (error) {
    if (error instanceof AppError && error.code === 'FORBIDDEN') return false;
    throw error;
  }
}

/** The session claims of an `sse_jwt`: both or neither. */
const sessionClaims = z
  .object({ sid: z.string().min(1).max(200).optional(), app: z.string().min(1).max(200).optional() })
  .refine((claims) => (claims.sid === undefined) === (claims.app === undefined));

/**
 * The session an `sse_jwt` was minted from, when it is still live — for the Mercure hub, which checks it
 * when a stream opens and then ends the stream when the session is revoked (register it with
 * `services.revocations.sessions(…)`).
 *
 * @param payload the claims of an `sse_jwt` whose signature and expiry were verified already.
 * @returns the session (`sid` as `tokenId`, `app` as `applicationId`); null for a token without these claims
 *   — one minted before they existed (they live {@link EVENT_STREAM_TOKEN_TTL_SECONDS} at most) or signed by
 *   the operator with the service's key — which has no parent session to revoke and is accepted as it is.
 * @throws {AppError} `UNAUTHENTICATED` when the auth token it names was revoked, or its application disabled
 *   (one read of the store, `findRevokedTokens`), or when only one of `sid` and `app` is given.
 */
export async function eventStreamSession(services: Services, payload: unknown): Promise<Session | null> {
  const parsed = sessionClaims.safeParse(payload);
  if (!parsed.success) {
    throw new AppError('UNAUTHENTICATED', 'The event-stream token is invalid or expired.');
  }
  const { sid, app } = parsed.data;
  if (sid === undefined || app === undefined) return null;
  const revoked = await services.db.findRevokedTokens([sid]);
  if (revoked.length > 0) {
    throw new AppError('UNAUTHENTICATED', 'The event-stream token was revoked with its auth token.');
  }
  return { tokenId: sid, applicationId: app };
}
