import { z } from 'zod';
import { type Context, roles, type Services } from '../context.js';
import type { ApplicationRow } from '../db/rows.js';
import { AppError, notFound } from '../errors.js';
import { requireViewer } from './authentication.js';
import { parseInput } from './validation.js';

/*
 * Revocation (issue 34): a client revokes its own auth token; an operator, or an instance admin within
 * their instance, disables an application (and may enable it again). Each is written to the store first,
 * then announced to every process (`services.revocations`, src/auth/revocations.ts), which drop the viewer
 * cache's entries and end the open sessions (graphql-ws sockets with 4403, GraphQL SSE and Mercure streams)
 * it covers.
 */

/** What revoking a token answers: the token's id and when it was revoked. */
export interface RevokedAuthToken {
  tokenId: string;
  revokedAt: Date;
}

/**
 * Revokes the auth token the caller authenticated with, and the refresh token issued with it: from now on
 * no instance accepts either (the store's `revokeAuthToken`), and the caller's open sessions end.
 *
 * @throws {AppError} `UNAUTHENTICATED` without a viewer, or when the token was revoked meanwhile (by
 *   another request, or its application's disabling).
 */
export async function revokeOwnAuthToken(ctx: Context): Promise<RevokedAuthToken> {
  const viewer = requireViewer(ctx, roles);
  const now = ctx.clock.now();
  const revoked = await ctx.db.revokeAuthToken(viewer.tokenId, now);
  if (!revoked) throw new AppError('UNAUTHENTICATED', 'The auth token is invalid or expired.');
  ctx.revocations.announce({ kind: 'token', ...revoked });
  return { tokenId: revoked.tokenId, revokedAt: now };
}

const clientIdInput = z.strictObject({ clientId: z.string().trim().min(1, 'give the client id').max(200) });

/**
 * Disables (`disabled: true`) or enables again an application by its client id — in `instanceId` when
 * given (an instance admin's), in any instance otherwise (the operator's CLI). Disabling revokes every
 * token of the application (see the store's `setApplicationDisabled`) and announces it: its clients can no
 * longer sign in or refresh (401), and no instance accepts its tokens. Enabling lets its clients sign in
 * again; their earlier tokens stay revoked.
 *
 * @throws {AppError} `VALIDATION` for an empty client id; `NOT_FOUND` when no application has that client id
 *   (in that instance: another instance's is answered identically).
 */
export async function setApplicationDisabledIn(
  services: Services,
  input: { clientId: string; instanceId?: string; disabled: boolean },
): Promise<ApplicationRow> {
  const { clientId } = parseInput(clientIdInput, { clientId: input.clientId }, 'The client id is invalid.');
  const application = await services.db.setApplicationDisabled({
    clientId,
    ...(input.instanceId === undefined ? {} : { instanceId: input.instanceId }),
    disabled: input.disabled,
    now: services.clock.now(),
  });
  if (!application) throw notFound('Application', clientId);
  if (input.disabled) {
    services.revocations.announce({
      kind: 'application',
      applicationId: application.id,
      instanceId: application.instanceId,
    });
  }
  return application;
}

/**
 * {@link setApplicationDisabledIn} for an instance admin: an application of the caller's own instance only.
 * @throws {AppError} `UNAUTHENTICATED` without a viewer; `FORBIDDEN` for a caller who is no instance admin;
 *   otherwise as {@link setApplicationDisabledIn}.
 */
export async function setInstanceApplicationDisabled(
  ctx: Context,
  clientId: string,
  disabled: boolean,
): Promise<ApplicationRow> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  return setApplicationDisabledIn(ctx, { clientId, instanceId: viewer.instanceId, disabled });
}
