/** The PostgreSQL store's auth operations, as `contract/tenancy.ts` states them. */
import { and, eq, isNull, type SQLWrapper, sql } from 'drizzle-orm';
import {
  revokedAmong,
  toApplicationCredentials,
  toApplicationRow,
  tokenPairRows,
  toLiveToken,
} from '../../shared/tenancy.js';
import { isLiveToken, ofEnabledApplication } from '../../shared/token-conditions.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { applications, authTokens, users } from '../schema/index.js';

const isLive = (now: Date | SQLWrapper) => isLiveToken(authTokens, now);
const enabledApplication = ofEnabledApplication(authTokens, applications);

export const findApplicationByClientId: Op<'findApplicationByClientId'> = async (db, clientId) => {
  const [row] = await db
    .select({ application: applications, user: users })
    .from(applications)
    .innerJoin(users, eq(users.id, applications.userId))
    .where(and(eq(applications.clientId, clientId), isNull(applications.disabledAt)))
    .limit(1);
  return row && toApplicationCredentials(row);
};

export const insertTokenPair: Op<'insertTokenPair'> = async (db, input) => {
  await db.insert(authTokens).values(tokenPairRows(input));
};

/**
 * Exactly once through the conditional `UPDATE … WHERE revoked_at IS NULL … RETURNING`: a concurrent
 * rotation of the same token waits for the first one's row lock, then re-checks the condition on the
 * committed row (READ COMMITTED), finds it revoked and updates nothing.
 */
export const rotateRefreshToken: Op<'rotateRefreshToken'> = async (db, usedRefreshTokenId, input) => {
  return db.transaction(async (tx) => {
    const revoked = await tx
      .update(authTokens)
      .set({ revokedAt: input.now })
      .where(and(eq(authTokens.id, usedRefreshTokenId), isLive(input.now), enabledApplication))
      .returning({ id: authTokens.id });
    if (revoked.length !== 1) return false;
    await tx.insert(authTokens).values(tokenPairRows(input));
    return true;
  });
};

const liveToken = preparedQuery('find_live_token', (db, name) =>
  db
    .select({ token: authTokens, user: users })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .innerJoin(applications, eq(applications.id, authTokens.applicationId))
    .where(
      and(
        eq(authTokens.tokenHash, sql.placeholder('tokenHash')),
        eq(authTokens.kind, sql.placeholder('kind')),
        isLive(sql.placeholder('now')),
        isNull(applications.disabledAt),
      ),
    )
    .limit(1)
    .prepare(name),
);

export const findLiveToken: Op<'findLiveToken'> = async (db, kind, tokenHash, now) => {
  const [row] = await liveToken(db).execute({ tokenHash, kind, now });
  return row && toLiveToken(row);
};

/** The ids among a `text[]` that are neither revoked nor of a disabled application (expired or not). */
const usableTokenIds = preparedQuery('usable_token_ids', (db, name) =>
  db
    .select({ id: authTokens.id })
    .from(authTokens)
    .innerJoin(applications, eq(applications.id, authTokens.applicationId))
    .where(
      and(
        sql`${authTokens.id} = any(${sql.placeholder('ids')}::text[])`,
        isNull(authTokens.revokedAt),
        isNull(applications.disabledAt),
      ),
    )
    .prepare(name),
);

export const findRevokedTokens: Op<'findRevokedTokens'> = async (db, tokenIds) => {
  if (tokenIds.length === 0) return [];
  const usable = await usableTokenIds(db).execute({ ids: [...new Set(tokenIds)] });
  return revokedAmong(
    tokenIds,
    usable.map((row) => row.id),
  );
};

/**
 * The conditional `UPDATE … RETURNING` revokes the auth token once: a concurrent revocation waits for its
 * row lock, re-checks `revoked_at is null` and updates nothing.
 */
export const revokeAuthToken: Op<'revokeAuthToken'> = async (db, tokenId, now) => {
  return db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(authTokens)
      .set({ revokedAt: now })
      .where(and(eq(authTokens.id, tokenId), eq(authTokens.kind, 'auth'), isNull(authTokens.revokedAt)))
      .returning({
        tokenId: authTokens.id,
        applicationId: authTokens.applicationId,
        instanceId: authTokens.instanceId,
        createdAt: authTokens.createdAt,
      });
    if (!revoked) return undefined;
    await tx
      .update(authTokens)
      .set({ revokedAt: now })
      .where(
        and(
          eq(authTokens.applicationId, revoked.applicationId),
          eq(authTokens.kind, 'refresh'),
          eq(authTokens.createdAt, revoked.createdAt),
          isNull(authTokens.revokedAt),
        ),
      );
    const { createdAt: _createdAt, ...token } = revoked;
    return token;
  });
};

/**
 * The application's row is locked (`FOR UPDATE`) first, so disables and enables of one application run one
 * after the other, each seeing the state the previous one committed.
 */
export const setApplicationDisabled: Op<'setApplicationDisabled'> = async (db, input) => {
  return db.transaction(async (tx) => {
    const [found] = await tx
      .select()
      .from(applications)
      .where(
        and(
          eq(applications.clientId, input.clientId),
          input.instanceId === undefined ? undefined : eq(applications.instanceId, input.instanceId),
        ),
      )
      .for('update');
    if (!found) return undefined;
    if (input.disabled) {
      if (found.disabledAt === null) {
        await tx
          .update(applications)
          .set({ disabledAt: input.now, updatedAt: input.now })
          .where(eq(applications.id, found.id));
      }
      await tx
        .update(authTokens)
        .set({ revokedAt: input.now })
        .where(and(eq(authTokens.applicationId, found.id), isNull(authTokens.revokedAt)));
    } else if (found.disabledAt !== null) {
      await tx
        .update(applications)
        .set({ disabledAt: null, updatedAt: input.now })
        .where(eq(applications.id, found.id));
      await tx
        .update(authTokens)
        .set({ revokedAt: input.now })
        .where(and(eq(authTokens.applicationId, found.id), isNull(authTokens.revokedAt)));
    }
    const [row] = await tx.select().from(applications).where(eq(applications.id, found.id));
    return row && toApplicationRow(row);
  });
};
