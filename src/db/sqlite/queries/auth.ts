/** The SQLite store's auth operations, as `contract/tenancy.ts` states them. */
import { and, eq, gt, isNull, type SQLWrapper, sql } from 'drizzle-orm';
import { toApplicationCredentials, tokenPairRows, toLiveToken } from '../../shared/tenancy.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { prepareTableRows } from '../prepared-rows.js';
import { applications, authTokens, users } from '../schema/index.js';

/** A token neither revoked nor expired at `now` (a time, or a placeholder for one). */
const isLive = (now: Date | SQLWrapper) => and(isNull(authTokens.revokedAt), gt(authTokens.expiresAt, now));

export const findApplicationByClientId: Op<'findApplicationByClientId'> = async (db, clientId) => {
  const row = db
    .select({ application: applications, user: users })
    .from(applications)
    .innerJoin(users, eq(users.id, applications.userId))
    .where(eq(applications.clientId, clientId))
    .get();
  return row && toApplicationCredentials(row);
};

export const insertTokenPair: Op<'insertTokenPair'> = async (db, input) => {
  db.insert(authTokens).values(tokenPairRows(input)).run();
};

/** Under `BEGIN IMMEDIATE` no other writer runs between the revoking update and the insert. */
export const rotateRefreshToken: Op<'rotateRefreshToken'> = async (db, usedRefreshTokenId, input) => {
  return db.transaction(
    (tx) => {
      const revoked = tx
        .update(authTokens)
        .set({ revokedAt: input.now })
        .where(and(eq(authTokens.id, usedRefreshTokenId), isLive(input.now)))
        .run();
      if (revoked.changes !== 1) return false;
      tx.insert(authTokens).values(tokenPairRows(input)).run();
      return true;
    },
    { behavior: 'immediate' },
  );
};

const tokenWithUser = { token: authTokens, user: users };

/** Read on every authenticated request: rows mapped by {@link prepareTableRows}. */
const liveToken = preparedQuery((db) =>
  prepareTableRows(
    db,
    tokenWithUser,
    db
      .select(tokenWithUser)
      .from(authTokens)
      .innerJoin(users, eq(users.id, authTokens.userId))
      .where(
        and(
          eq(authTokens.tokenHash, sql.placeholder('tokenHash')),
          eq(authTokens.kind, sql.placeholder('kind')),
          isLive(sql.placeholder('nowMs')),
        ),
      ),
  ),
);

export const findLiveToken: Op<'findLiveToken'> = async (db, kind, tokenHash, now) => {
  const row = liveToken(db).get({ tokenHash, kind, nowMs: now.getTime() });
  return row && toLiveToken(row);
};
