import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { covers, REVOCATION_RECHECK_MS, type Revocation } from '../auth/revocations.js';
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
 * @throws {AppError} `VALIDATION` for a body of neither form; `UNAUTHENTICATED` for wrong credentials, the
 *   credentials or a refresh token of a disabled application, or an unknown, used, revoked or expired
 *   refresh token (one message for all, so nothing is learnt by guessing).
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
 * @throws {AppError} `UNAUTHENTICATED` when the token is unknown, revoked or expired, or its application is
 *   disabled.
 */
export async function viewerForToken(services: Services, token: string): Promise<Viewer> {
  return viewerForTokenHash(services, hashCredential(token));
}

/**
 * {@link viewerForToken} for a token already hashed with {@link hashCredential}, for a caller that needs
 * the hash again (the per-token rate limit is keyed by it). Answered from the viewer cache (see
 * {@link viewerCache}) while its entry is younger than {@link REVOCATION_RECHECK_MS}, else from the store.
 * @throws {AppError} `UNAUTHENTICATED` when the token is unknown, revoked or expired, or its application is
 *   disabled.
 */
export async function viewerForTokenHash(services: Services, tokenHash: string): Promise<Viewer> {
  const now = services.clock.now();
  const nowMs = now.getTime();
  const cache = viewerCache(services.db);
  const cached = cache.get(tokenHash);
  if (cached && nowMs < cached.expiresAtMs && nowMs - cached.checkedAtMs < REVOCATION_RECHECK_MS) {
    return cached.viewer;
  }
  const found = await services.db.findLiveToken('auth', tokenHash, now);
  if (!found) {
    cache.delete(tokenHash);
    throw new AppError('UNAUTHENTICATED', 'The auth token is invalid or expired.');
  }
  const viewer: Viewer = {
    instanceId: found.user.instanceId,
    userId: found.user.id,
    roles: found.user.roles.filter((role): role is Role => (roles as readonly string[]).includes(role)),
    tokenId: found.tokenId,
    applicationId: found.applicationId,
  };
  cache.set(tokenHash, { viewer, expiresAtMs: found.expiresAt.getTime(), checkedAtMs: nowMs });
  return viewer;
}

/** A viewer cache entry: the viewer, when its token expires and when the store last said it was live. */
interface CachedViewer {
  viewer: Viewer;
  expiresAtMs: number;
  checkedAtMs: number;
}

const viewerCaches = new WeakMap<Services['db'], LRUCache<string, CachedViewer>>();

/**
 * The viewers of auth tokens found live, by token hash: one store per cache (a WeakMap, so a closed test
 * store's cache goes with it), at most 10,000 tokens (least recently used leave first). A REST or GraphQL
 * request then authenticates without a database round trip.
 *
 * An entry is used until its token expires and for at most {@link REVOCATION_RECHECK_MS} after the store
 * last confirmed it; then the store is read again. A user's instance and roles are written once, when its
 * application is created, so only revocation changes the answer: a revoked token or a disabled application
 * is announced to every process (`src/auth/revocations.ts`, through Redis in the shared mode), whose
 * listener {@link forgetRevokedViewers} drops the entries it covers at once; the re-read bounds what a lost
 * announcement costs. Only tokens found live are kept: an unknown or expired token is looked up each time.
 * Whatever comes to change roles or delete users must announce it likewise or stop using this cache.
 */
function viewerCache(store: Services['db']): LRUCache<string, CachedViewer> {
  let cache = viewerCaches.get(store);
  if (!cache) {
    cache = new LRUCache({ max: 10_000 });
    viewerCaches.set(store, cache);
  }
  return cache;
}

/**
 * Drops the viewer cache entries of `store` that `revocation` covers — every entry when it is null (what
 * was announced meanwhile may have been missed) — so those tokens are looked up in the store again.
 */
export function forgetRevokedViewers(store: Services['db'], revocation: Revocation | null): void {
  const cache = viewerCaches.get(store);
  if (!cache) return;
  if (revocation === null) {
    cache.clear();
    return;
  }
  for (const [tokenHash, entry] of cache.entries()) {
    if (covers(revocation, entry.viewer)) cache.delete(tokenHash);
  }
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
