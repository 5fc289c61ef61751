/** The PostgreSQL store's auth operations, as `contract/tenancy.ts` states them. */
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { ApplicationCredentials, LiveToken, TokenKind, TokenPairInput } from '../../contract/index.js';
import { toApplicationCredentials, tokenPairRows, toLiveToken } from '../../shared/tenancy.js';
import type { PostgresDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { applications, authTokens, users } from '../schema/index.js';

export async function findApplicationByClientId(
  db: PostgresDb,
  clientId: string,
): Promise<ApplicationCredentials | undefined> {
  const [row] = await db
    .select({ application: applications, user: users })
    .from(applications)
    .innerJoin(users, eq(users.id, applications.userId))
    .where(eq(applications.clientId, clientId))
    .limit(1);
  return row && toApplicationCredentials(row);
}

export async function insertTokenPair(db: PostgresDb, input: TokenPairInput): Promise<void> {
  await db.insert(authTokens).values(tokenPairRows(input));
}

/**
 * Exactly once through the conditional `UPDATE … WHERE revoked_at IS NULL … RETURNING`: a concurrent
 * rotation of the same token waits for the first one's row lock, then re-checks the condition on the
 * committed row (READ COMMITTED), finds it revoked and updates nothing.
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
    await tx.insert(authTokens).values(tokenPairRows(input));
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

export async function findLiveToken(
  db: PostgresDb,
  kind: TokenKind,
  tokenHash: string,
  now: Date,
): Promise<LiveToken | undefined> {
  const [row] = await liveToken(db).execute({ tokenHash, kind, now });
  return row && toLiveToken(row);
}
