import { SignJWT } from 'jose';
import type { Context } from '../context.js';
import { requireViewer } from './authentication.js';

/** Lifetime of an `sse_jwt`: short, since it travels in URLs and cookies. */
export const EVENT_STREAM_TOKEN_TTL_SECONDS = 10 * 60;

/** The Mercure topic of an instance's availability-request events. */
export function availabilityRequestTopic(instanceId: string): string {
  return `${instanceId}/availability_request`;
}

/**
 * Issues the `sse_jwt` of the caller's instance: an HS256 JWT in the Mercure claim format
 * `{exp, mercure: {publish: [], subscribe: ["<instance_id>/availability_request"]}}` (DESIGN.md, "Events";
 * Mercure spec, "Authorization"), valid for {@link EVENT_STREAM_TOKEN_TTL_SECONDS}.
 *
 * @throws {AppError} `UNAUTHENTICATED` without a viewer.
 */
export async function issueEventStreamToken(ctx: Context): Promise<string> {
  const viewer = requireViewer(ctx, ['connectivity_check']);
  const issuedAt = Math.floor(ctx.clock.now().getTime() / 1000);
  return new SignJWT({ mercure: { publish: [], subscribe: [availabilityRequestTopic(viewer.instanceId)] } })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + EVENT_STREAM_TOKEN_TTL_SECONDS)
    .sign(ctx.signingKey);
}
