/** The SQLite store's auth operations, as `contract/tenancy.ts` states them. */
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { ApplicationCredentials, LiveToken, TokenKind, TokenPairInput } from '../../contract/index.js';
import { toApplicationCredentials, tokenPairRows, toLiveToken } from '../../shared/tenancy.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { prepareTableRows } from '../prepared-rows.js';
import { applications, authTokens, users } from '../schema/index.js';

export async function findApplicationByClientId(
  db: SqliteDb,
  clientId: string,
): Promise<ApplicationCredentials | undefined> {
  const row = db
    .select({ application: applications, user: users })
    .from(applications)
    .innerJoin(users, eq(users.id, applications.userId))
    .where(eq(applications.clientId, clientId))
    .get();
  return row && toApplicationCredentials(row);
}

export async function insertTokenPair(db: SqliteDb, input: TokenPairInput): Promise<void> {
  db.insert(authTokens).values(tokenPairRows(input)).run();
}

// Under `BEGIN IMMEDIATE` no other writer runs between the revoking update and the insert.
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
      tx.insert(authTokens).values(tokenPairRows(input)).run();
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

export async function findLiveToken(
  db: SqliteDb,
  kind: TokenKind,
  tokenHash: string,
  now: Date,
): Promise<LiveToken | undefined> {
  const row = liveToken(db).get({ tokenHash, kind, nowMs: now.getTime() });
  return row && toLiveToken(row);
}
