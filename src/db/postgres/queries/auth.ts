import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { TokenPairInput, UserRow } from '../../rows.js';
import type { PostgresDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { applications, authTokens, users } from '../schema/index.js';

/** An application with its service-account user, looked up by client id. */
export async function findApplicationByClientId(
  db: PostgresDb,
  clientId: string,
): Promise<{ applicationId: string; clientSecretHash: string; user: UserRow } | undefined> {
  const [row] = await db
    .select({ application: applications, user: users })
    .from(applications)
    .innerJoin(users, eq(users.id, applications.userId))
    .where(eq(applications.clientId, clientId))
    .limit(1);
  return (
    row && {
      applicationId: row.application.id,
      clientSecretHash: row.application.clientSecretHash,
      user: row.user,
    }
  );
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

/** Stores a new token pair (one multi-row `INSERT`, so both or neither). */
export async function insertTokenPair(db: PostgresDb, input: TokenPairInput): Promise<void> {
  await db.insert(authTokens).values(tokenRows(input));
}

/**
 * Swaps a refresh token for a new pair: revokes the used refresh token and stores the new pair in one
 * transaction. Returns false (and writes nothing) when the refresh token was already used, revoked or
 * expired, so a refresh token works exactly once.
 *
 * Race-free on PostgreSQL through a conditional `UPDATE ... WHERE revoked_at IS NULL ... RETURNING`: a
 * concurrent rotation of the same token waits for the first one's row lock, then re-checks the condition
 * on the committed row (READ COMMITTED), finds it revoked, updates nothing and returns false.
 */
export async function rotateRefreshToken(
  db: PostgresDb,
  usedRefreshTokenId: string,
  input: TokenPairInput,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const revoked = await tx
      .update(authTokens)
      .set({ revokedAt: input.now })
      .where(
        and(
          eq(authTokens.id, usedRefreshTokenId),
          isNull(authTokens.revokedAt),
          gt(authTokens.expiresAt, input.now),
        ),
      )
      .returning({ id: authTokens.id });
    if (revoked.length !== 1) return false;
    await tx.insert(authTokens).values(tokenRows(input));
    return true;
  });
}

const liveToken = preparedQuery('find_live_token', (db, name) =>
  db
    .select({ token: authTokens, user: users })
    .from(authTokens)
    .innerJoin(users, eq(users.id, authTokens.userId))
    .where(
      and(
        eq(authTokens.tokenHash, sql.placeholder('tokenHash')),
        eq(authTokens.kind, sql.placeholder('kind')),
        isNull(authTokens.revokedAt),
        gt(authTokens.expiresAt, sql.placeholder('now')),
      ),
    )
    .limit(1)
    .prepare(name),
);

/** A live (unexpired, unrevoked) token of the given kind with its user, and when it expires, or undefined. */
export async function findLiveToken(
  db: PostgresDb,
  kind: 'auth' | 'refresh',
  tokenHash: string,
  now: Date,
): Promise<{ tokenId: string; applicationId: string; expiresAt: Date; user: UserRow } | undefined> {
  const [row] = await liveToken(db).execute({ tokenHash, kind, now });
  return (
    row && {
      tokenId: row.token.id,
      applicationId: row.token.applicationId,
      expiresAt: row.token.expiresAt,
      user: row.user,
    }
  );
}
