/** The SQLite store's auth operations, as `contract/tenancy.ts` states them. */
import { and, eq, isNotNull, isNull, type SQLWrapper, sql } from 'drizzle-orm';
import {
  revokedAmong,
  toApplicationCredentials,
  toApplicationRow,
  tokenPairRows,
  toLiveToken,
} from '../../shared/tenancy.js';
import { isLiveToken, ofEnabledApplication } from '../../shared/token-conditions.js';
import { inJsonIds } from '../json-ids.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { prepareTableRows } from '../prepared-rows.js';
import { applications, authTokens, users } from '../schema/index.js';

const isLive = (now: Date | SQLWrapper) => isLiveToken(authTokens, now);
const enabledApplication = ofEnabledApplication(authTokens, applications);

export const findApplicationByClientId: Op<'findApplicationByClientId'> = async (db, clientId) => {
  const row = db
    .select({ application: applications, user: users })
    .from(applications)
    .innerJoin(users, eq(users.id, applications.userId))
    .where(and(eq(applications.clientId, clientId), isNull(applications.disabledAt)))
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
        .where(and(eq(authTokens.id, usedRefreshTokenId), isLive(input.now), enabledApplication))
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
      .innerJoin(applications, eq(applications.id, authTokens.applicationId))
      .where(
        and(
          eq(authTokens.tokenHash, sql.placeholder('tokenHash')),
          eq(authTokens.kind, sql.placeholder('kind')),
          isLive(sql.placeholder('nowMs')),
          isNull(applications.disabledAt),
        ),
      ),
  ),
);

export const findLiveToken: Op<'findLiveToken'> = async (db, kind, tokenHash, now) => {
  const row = liveToken(db).get({ tokenHash, kind, nowMs: now.getTime() });
  return row && toLiveToken(row);
};

/** The ids among a JSON array that are neither revoked nor of a disabled application (expired or not). */
const usableTokenIds = preparedQuery((db) =>
  db
    .select({ id: authTokens.id })
    .from(authTokens)
    .innerJoin(applications, eq(applications.id, authTokens.applicationId))
    .where(
      and(inJsonIds(authTokens.id, 'ids'), isNull(authTokens.revokedAt), isNull(applications.disabledAt)),
    )
    .prepare(),
);

export const findRevokedTokens: Op<'findRevokedTokens'> = async (db, tokenIds) => {
  if (tokenIds.length === 0) return [];
  const usable = usableTokenIds(db).all({ ids: JSON.stringify(tokenIds) });
  return revokedAmong(
    tokenIds,
    usable.map((row) => row.id),
  );
};

/** Under `BEGIN IMMEDIATE`: the auth token and its pair's refresh token are revoked together. */
export const revokeAuthToken: Op<'revokeAuthToken'> = async (db, tokenId, now) => {
  return db.transaction(
    (tx) => {
      const revoked = tx
        .update(authTokens)
        .set({ revokedAt: now })
        .where(and(eq(authTokens.id, tokenId), eq(authTokens.kind, 'auth'), isNull(authTokens.revokedAt)))
        .returning({
          tokenId: authTokens.id,
          applicationId: authTokens.applicationId,
          instanceId: authTokens.instanceId,
          createdAt: authTokens.createdAt,
        })
        .get();
      if (!revoked) return undefined;
      tx.update(authTokens)
        .set({ revokedAt: now })
        .where(
          and(
            eq(authTokens.applicationId, revoked.applicationId),
            eq(authTokens.kind, 'refresh'),
            eq(authTokens.createdAt, revoked.createdAt),
            isNull(authTokens.revokedAt),
          ),
        )
        .run();
      const { createdAt: _createdAt, ...token } = revoked;
      return token;
    },
    { behavior: 'immediate' },
  );
};

/** Under `BEGIN IMMEDIATE`: the application's state and its tokens' revocation change together. */
export const setApplicationDisabled: Op<'setApplicationDisabled'> = async (db, input) => {
  return db.transaction(
    (tx) => {
      const where = and(
        eq(applications.clientId, input.clientId),
        input.instanceId === undefined ? undefined : eq(applications.instanceId, input.instanceId),
      );
      const found = tx.select().from(applications).where(where).get();
      if (!found) return undefined;
      if (input.disabled) {
        if (found.disabledAt === null) {
          tx.update(applications)
            .set({ disabledAt: input.now, updatedAt: input.now })
            .where(eq(applications.id, found.id))
            .run();
        }
        tx.update(authTokens)
          .set({ revokedAt: input.now })
          .where(and(eq(authTokens.applicationId, found.id), isNull(authTokens.revokedAt)))
          .run();
      } else if (found.disabledAt !== null) {
        tx.update(applications)
          .set({ disabledAt: null, updatedAt: input.now })
          .where(and(eq(applications.id, found.id), isNotNull(applications.disabledAt)))
          .run();
        tx.update(authTokens)
          .set({ revokedAt: input.now })
          .where(and(eq(authTokens.applicationId, found.id), isNull(authTokens.revokedAt)))
          .run();
      }
      const row = tx.select().from(applications).where(eq(applications.id, found.id)).get();
      return row && toApplicationRow(row);
    },
    { behavior: 'immediate' },
  );
};
