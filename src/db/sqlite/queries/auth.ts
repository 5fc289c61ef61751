import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { prepareTableRows } from '../prepared-rows.js';
import { applications, authTokens, users } from '../schema/index.js';
import type { UserRow } from './tenancy.js';

/** An application with its service-account user, looked up by client id. */
export async function findApplicationByClientId(
  db: SqliteDb,
  clientId: string,
): Promise<{ applicationId: string; clientSecretHash: string; user: UserRow } | undefined> {
  const row = db
    .select({ application: applications, user: users })
    .from(applications)
    .innerJoin(users, eq(users.id, applications.userId))
    .where(eq(applications.clientId, clientId))
    .get();
  return (
    row && {
      applicationId: row.application.id,
      clientSecretHash: row.application.clientSecretHash,
      user: row.user,
    }
  );
}

/** Hashes and expiry times of a new auth-token / refresh-token pair. */
export interface TokenPairInput {
  instanceId: string;
  userId: string;
  applicationId: string;
  authTokenHash: string;
  authTokenExpiresAt: Date;
  refreshTokenHash: string;
  refreshTokenExpiresAt: Date;
  now: Date;
}

function tokenRows(input: TokenPairInput) {
  const owner = { instanceId: input.instanceId, userId: input.userId, applicationId: input.applicationId };
  return [
    {
      id: newId('authToken'),
      ...owner,
      kind: 'auth' as const,
      tokenHash: input.authTokenHash,
      expiresAt: input.authTokenExpiresAt,
      createdAt: input.now,
    },
    {
      id: newId('authToken'),
      ...owner,
      kind: 'refresh' as const,
      tokenHash: input.refreshTokenHash,
      expiresAt: input.refreshTokenExpiresAt,
      createdAt: input.now,
    },
  ];
}

/** Stores a new token pair (one transaction). */
export async function insertTokenPair(db: SqliteDb, input: TokenPairInput): Promise<void> {
  db.transaction((tx) => tx.insert(authTokens).values(tokenRows(input)).run(), { behavior: 'immediate' });
}

/**
 * Swaps a refresh token for a new pair: revokes the used refresh token and stores the new pair in one
 * transaction. Returns false (and writes nothing) when the refresh token was already used, revoked or
 * expired, so a refresh token works exactly once.
 */
export async function rotateRefreshToken(
  db: SqliteDb,
  usedRefreshTokenId: string,
  input: TokenPairInput,
): Promise<boolean> {
  return db.transaction(
    (tx) => {
      const revoked = tx
        .update(authTokens)
        .set({ revokedAt: input.now })
        .where(
          and(
            eq(authTokens.id, usedRefreshTokenId),
            isNull(authTokens.revokedAt),
            gt(authTokens.expiresAt, input.now),
          ),
        )
        .run();
      if (revoked.changes !== 1) return false;
      tx.insert(authTokens).values(tokenRows(input)).run();
      return true;
    },
    { behavior: 'immediate' },
  );
}

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
          isNull(authTokens.revokedAt),
          gt(authTokens.expiresAt, sql.placeholder('nowMs')),
        ),
      ),
  ),
);

/** A live (unexpired, unrevoked) token of the given kind with its user, and when it expires, or undefined. */
export async function findLiveToken(
  db: SqliteDb,
  kind: 'auth' | 'refresh',
  tokenHash: string,
  now: Date,
): Promise<{ tokenId: string; applicationId: string; expiresAt: Date; user: UserRow } | undefined> {
  const row = liveToken(db).get({ tokenHash, kind, nowMs: now.getTime() });
  return (
    row && {
      tokenId: row.token.id,
      applicationId: row.token.applicationId,
      expiresAt: row.token.expiresAt,
      user: row.user,
    }
  );
}
