/** The PostgreSQL store's auth operations, as `contract/tenancy.ts` states them. */
import { and, eq, gt, isNull, type SQLWrapper, sql } from 'drizzle-orm';
import { toApplicationCredentials, tokenPairRows, toLiveToken } from '../../shared/tenancy.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { applications, authTokens, users } from '../schema/index.js';

/** A token neither revoked nor expired at `now` (a time, or a placeholder for one). */
const isLive = (now: Date | SQLWrapper) => and(isNull(authTokens.revokedAt), gt(authTokens.expiresAt, now));

export const findApplicationByClientId: Op<'findApplicationByClientId'> = async (db, clientId) => {
  const [row] = await db
    .select({ application: applications, user: users })
    .from(applications)
    .innerJoin(users, eq(users.id, applications.userId))
    .where(eq(applications.clientId, clientId))
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
      .where(and(eq(authTokens.id, usedRefreshTokenId), isLive(input.now)))
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
    .where(
      and(
        eq(authTokens.tokenHash, sql.placeholder('tokenHash')),
        eq(authTokens.kind, sql.placeholder('kind')),
        isLive(sql.placeholder('now')),
      ),
    )
    .limit(1)
    .prepare(name),
);

export const findLiveToken: Op<'findLiveToken'> = async (db, kind, tokenHash, now) => {
  const [row] = await liveToken(db).execute({ tokenHash, kind, now });
  return row && toLiveToken(row);
};
