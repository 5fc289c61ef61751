import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { Context, Role, Services, Viewer } from '../context.js';
import { roles } from '../context.js';
import type { UserRow } from '../db/rows.js';
import { AppError } from '../errors.js';
import { parseInput } from './validation.js';

/** Lifetime of an auth token: one hour (DESIGN.md, "Auth"). */
export const AUTH_TOKEN_TTL_MS = 60 * 60 * 1000;
/** Lifetime of a refresh token: one month, taken as 30 days. */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * SHA-256 of a credential, hex. Tokens and client secrets are 256-bit random values, so a fast hash is
 * enough (no dictionary to guess from) and lets a token be found by its hash in one indexed look-up.
 * Every authenticated request hashes its token: `crypto.hash`, the one-shot form (Node 20.12+), makes no
 * `Hash` object to collect, about a third of `createHash(…).update(…).digest(…)`'s time on a token.
 */
export function hashCredential(value: string): string {
  return hash('sha256', value, 'hex');
}

/** A new random credential: 32 bytes, base64url. */
export function newCredential(): string {
  return randomBytes(32).toString('base64url');
}

export const authenticationInput = z.union([
  z.strictObject({ clientId: z.string().min(1).max(200), clientSecret: z.string().min(1).max(200) }),
  z.strictObject({ authRefreshToken: z.string().min(1).max(200) }),
]);

/** The answer to `POST /authentication`. */
export interface AuthenticationResult {
  authToken: string;
  authTokenExpiresAt: Date;
  authRefreshToken: string;
  authRefreshTokenExpiresAt: Date;
  user: UserRow;
}

/**
 * Exchanges client credentials, or a refresh token, for a new auth token (1 hour) and refresh token
 * (1 month). A refresh token works once: using it revokes it.
 *
 * @throws {AppError} `VALIDATION` for a body of neither form; `UNAUTHENTICATED` for wrong credentials or an
 *   unknown, used or expired refresh token (one message for all, so nothing is learnt by guessing).
 */
export async function authenticate(services: Services, input: unknown): Promise<AuthenticationResult> {
  const body = parseInput(
    authenticationInput,
    input,
    'Give either client_id and client_secret, or auth_refresh_token.',
  );
  const { db, clock } = services;
  const now = clock.now();
  const rejected = new AppError('UNAUTHENTICATED', 'The credentials are invalid or expired.');
  const pair = {
    authToken: newCredential(),
    authTokenExpiresAt: new Date(now.getTime() + AUTH_TOKEN_TTL_MS),
    authRefreshToken: newCredential(),
    authRefreshTokenExpiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_MS),
  };
  const stored = {
    authTokenHash: hashCredential(pair.authToken),
    authTokenExpiresAt: pair.authTokenExpiresAt,
    refreshTokenHash: hashCredential(pair.authRefreshToken),
    refreshTokenExpiresAt: pair.authRefreshTokenExpiresAt,
    now,
  };
  if ('clientId' in body) {
    const application = await db.findApplicationByClientId(body.clientId);
    const given = Buffer.from(hashCredential(body.clientSecret), 'hex');
    const expected = Buffer.from(application?.clientSecretHash ?? hashCredential(newCredential()), 'hex');
    if (!application || !timingSafeEqual(given, expected)) throw rejected;
    const owner = { instanceId: application.user.instanceId, userId: application.user.id };
    await db.insertTokenPair({ ...owner, applicationId: application.applicationId, ...stored });
    return { ...pair, user: application.user };
  }
  const refresh = await db.findLiveToken('refresh', hashCredential(body.authRefreshToken), now);
  if (!refresh) throw rejected;
  const owner = {
    instanceId: refresh.user.instanceId,
    userId: refresh.user.id,
    applicationId: refresh.applicationId,
  };
  if (!(await db.rotateRefreshToken(refresh.tokenId, { ...owner, ...stored }))) throw rejected;
  return { ...pair, user: refresh.user };
}

/**
 * The viewer an auth token stands for.
 * @throws {AppError} `UNAUTHENTICATED` when the token is unknown, revoked or expired.
 */
export async function viewerForToken(services: Services, token: string): Promise<Viewer> {
  return viewerForTokenHash(services, hashCredential(token));
}

/**
 * {@link viewerForToken} for a token already hashed with {@link hashCredential}, for a caller that needs
 * the hash again (the per-token rate limit is keyed by it).
 * @throws {AppError} `UNAUTHENTICATED` when the token is unknown, revoked or expired.
 */
export async function viewerForTokenHash(services: Services, tokenHash: string): Promise<Viewer> {
  const now = services.clock.now();
  const cache = viewerCache(services.db);
  const cached = cache.get(tokenHash);
  if (cached && now < cached.expiresAt) return cached.viewer;
  const found = await services.db.findLiveToken('auth', tokenHash, now);
  if (!found) {
    cache.delete(tokenHash);
    throw new AppError('UNAUTHENTICATED', 'The auth token is invalid or expired.');
  }
  const viewer: Viewer = {
    instanceId: found.user.instanceId,
    userId: found.user.id,
    roles: found.user.roles.filter((role): role is Role => (roles as readonly string[]).includes(role)),
  };
  cache.set(tokenHash, { viewer, expiresAt: found.expiresAt });
  return viewer;
}

const viewerCaches = new WeakMap<Services['db'], LRUCache<string, { viewer: Viewer; expiresAt: Date }>>();

/**
 * The viewers of auth tokens found live, by token hash, each until its token expires: one store per cache
 * (a WeakMap, so a closed test store's cache goes with it), at most 10,000 tokens (least recently used
 * leave first). A REST or GraphQL request then authenticates without a database round trip.
 *
 * Exact, not a trade-off of freshness: an auth token never changes after it is issued, so until it expires
 * the store would give the same answer. Auth tokens are never revoked — rotating a refresh token revokes
 * that refresh token only; the auth token issued with it lives on until it expires — and a user's
 * instance and roles are written once, when its application is created. Only tokens found live are kept:
 * an unknown or expired token is looked up each time. Whatever comes to revoke auth tokens, change roles or
 * delete users must drop the entries here (on every gateway process) or stop using this cache.
 */
function viewerCache(store: Services['db']): LRUCache<string, { viewer: Viewer; expiresAt: Date }> {
  let cache = viewerCaches.get(store);
  if (!cache) {
    cache = new LRUCache({ max: 10_000 });
    viewerCaches.set(store, cache);
  }
  return cache;
}

/**
 * The caller, who must hold at least one of `allowed` (`instance_admin` may do everything).
 * @throws {AppError} `UNAUTHENTICATED` without a viewer; `FORBIDDEN` without a fitting role.
 */
export function requireViewer(ctx: Context, allowed: readonly Role[]): Viewer {
  const { viewer } = ctx;
  if (!viewer) throw new AppError('UNAUTHENTICATED', 'Send a valid auth token in the X-Auth-Token header.');
  if (viewer.roles.includes('instance_admin') || viewer.roles.some((role) => allowed.includes(role)))
    return viewer;
  throw new AppError('FORBIDDEN', `This operation needs one of the roles: ${allowed.join(', ')}.`);
}
