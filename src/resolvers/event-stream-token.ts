import { SignJWT } from 'jose';
import type { Context, Services } from '../context.js';
import { requireViewer } from './authentication.js';

/** Lifetime of an `sse_jwt`: short, since it travels in URLs and cookies. */
export const EVENT_STREAM_TOKEN_TTL_SECONDS = 10 * 60;

const TOPIC_SUFFIX = '/availability_request';

/** The Mercure topic of an instance's availability-request events. */
export function availabilityRequestTopic(instanceId: string): string {
  return `${instanceId}${TOPIC_SUFFIX}`;
}

/**
 * The instance whose availability-request topic `topic` is (the inverse of {@link availabilityRequestTopic}),
 * or null for any other string.
 */
export function instanceOfTopic(topic: string): string | null {
  if (!topic.endsWith(TOPIC_SUFFIX)) return null;
  const instanceId = topic.slice(0, -TOPIC_SUFFIX.length);
  return instanceId !== '' && !instanceId.includes('/') ? instanceId : null;
}

/** Every instance's id: the topics a Mercure claim that is a pattern (`*`, a URI template) may cover. */
export async function allInstanceIds(services: Services): Promise<string[]> {
  return services.db.listInstanceIds();
}

/**
 * How long an issued `sse_jwt` is handed out again before a new one is signed. The claims depend only on
 * the instance and the issue time, so every caller of an instance within this window gets the same token,
 * still valid for at least {@link EVENT_STREAM_TOKEN_TTL_SECONDS} − 60 s; a list page polled by many
 * dashboards then costs no signature per request.
 */
export const EVENT_STREAM_TOKEN_REUSE_SECONDS = 60;

/** Tokens issued per signing key (one key per running service), by instance id. */
const issuedTokens = new WeakMap<CryptoKey, Map<string, { token: string; issuedAt: number }>>();

/**
 * Issues the `sse_jwt` of the caller's instance: an HS256 JWT in the Mercure claim format
 * `{exp, mercure: {publish: [], subscribe: ["<instance_id>/availability_request"]}}` (DESIGN.md, "Events";
 * Mercure spec, "Authorization"), valid for {@link EVENT_STREAM_TOKEN_TTL_SECONDS} from its `iat`.
 * A token of the same instance issued less than {@link EVENT_STREAM_TOKEN_REUSE_SECONDS} ago is returned
 * again instead of signing a new one.
 *
 * @throws {AppError} `UNAUTHENTICATED` without a viewer.
 */
export async function issueEventStreamToken(ctx: Context): Promise<string> {
  const viewer = requireViewer(ctx, ['connectivity_check']);
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  let issued = issuedTokens.get(ctx.signingKey);
  if (!issued) {
    issued = new Map();
    issuedTokens.set(ctx.signingKey, issued);
  }
  const cached = issued.get(viewer.instanceId);
  if (cached && now >= cached.issuedAt && now - cached.issuedAt < EVENT_STREAM_TOKEN_REUSE_SECONDS) {
    return cached.token;
  }
  const token = await new SignJWT({
    mercure: { publish: [], subscribe: [availabilityRequestTopic(viewer.instanceId)] },
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + EVENT_STREAM_TOKEN_TTL_SECONDS)
    .sign(ctx.signingKey);
  issued.set(viewer.instanceId, { token, issuedAt: now });
  return token;
}
