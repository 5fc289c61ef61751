import { eq } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as auth from '../../../src/db/postgres/queries/auth.js';
import { insertApplication, insertInstance } from '../../../src/db/postgres/queries/tenancy.js';
import { authTokens } from '../../../src/db/postgres/schema/index.js';
import { postgresUnavailable } from '../../../src/db/postgres/unavailable.js';
import type { TokenPairInput } from '../../../src/db/rows.js';
import { bindOperations, type StoreOperations } from '../../../src/db/store.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';

let database: { url: string; drop(): Promise<void> };
let pool: pg.Pool;
let db: PostgresDb;
/** The module bound as the store binds it, typed by the SQLite twin's signatures. */
let store: Pick<StoreOperations, keyof typeof auth>;
let owner: { instanceId: string; userId: string; applicationId: string };

const now = new Date('2026-11-25T10:00:00.000Z');
const at = (ms: number) => new Date(now.getTime() + ms);

let pairs = 0;
/** A token pair issued at `issuedAt`: the auth token lives 1 h, the refresh token 1 day. */
function pair(issuedAt = now): TokenPairInput & { n: number } {
  pairs += 1;
  return {
    ...owner,
    n: pairs,
    authTokenHash: `auth-${pairs}`,
    authTokenExpiresAt: new Date(issuedAt.getTime() + 3_600_000),
    refreshTokenHash: `refresh-${pairs}`,
    refreshTokenExpiresAt: new Date(issuedAt.getTime() + 86_400_000),
    now: issuedAt,
  };
}

beforeAll(async () => {
  database = await createTestDatabase(inject('postgresAdminUrl'));
  pool = openPostgresPool(database.url, 10);
  // As the store does (it logs them): the database's drop at the end may end a connection still closing.
  pool.on('error', () => undefined);
  await migratePostgres(pool);
  db = postgresDb(pool);
  store = bindOperations(db, auth, postgresUnavailable);
  const instance = await insertInstance(db, { name: 'Acme', code: 'ACM', now });
  const app = await insertApplication(db, {
    instanceId: instance.id,
    name: 'Checker',
    roles: ['connectivity_check'],
    clientId: 'client-1',
    clientSecretHash: 'secret-hash',
    now,
  });
  owner = { instanceId: instance.id, userId: app.userId, applicationId: app.applicationId };
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const expectedUser = () => ({
  id: owner.userId,
  instanceId: owner.instanceId,
  email: 'client-1@applications.invalid',
  firstName: 'Checker',
  lastName: '',
  locale: 'en',
  roles: ['connectivity_check'],
  createdAt: now,
  updatedAt: now,
});

async function refreshTokenId(hash: string): Promise<string> {
  const [row] = await db.select({ id: authTokens.id }).from(authTokens).where(eq(authTokens.tokenHash, hash));
  if (!row) throw new Error(`no token ${hash}`);
  return row.id;
}

describe('PostgreSQL auth queries', () => {
  it('when an application is looked up by client id, then it comes with its user', async () => {
    expect(await store.findApplicationByClientId('client-1')).toEqual({
      applicationId: owner.applicationId,
      clientSecretHash: 'secret-hash',
      user: expectedUser(),
    });
    expect(await store.findApplicationByClientId('nobody')).toBeUndefined();
  });

  it('when a pair is stored, then each token is live for its kind until it expires', async () => {
    const input = pair();
    await store.insertTokenPair(input);

    const auth1 = await store.findLiveToken('auth', input.authTokenHash, now);
    expect(auth1).toEqual({
      tokenId: expect.stringMatching(/^tok_/),
      applicationId: owner.applicationId,
      expiresAt: input.authTokenExpiresAt,
      user: expectedUser(),
    });
    expect(await store.findLiveToken('refresh', input.refreshTokenHash, now)).toEqual({
      tokenId: await refreshTokenId(input.refreshTokenHash),
      applicationId: owner.applicationId,
      expiresAt: input.refreshTokenExpiresAt,
      user: expectedUser(),
    });
    expect(await store.findLiveToken('refresh', input.authTokenHash, now)).toBeUndefined();
    expect(await store.findLiveToken('auth', input.authTokenHash, at(3_600_000 - 1))).toBeDefined();
    expect(await store.findLiveToken('auth', input.authTokenHash, at(3_600_000))).toBeUndefined();
  });

  it('when a refresh token is rotated, then it is revoked, the new pair is live, and a second use fails', async () => {
    const first = pair();
    await store.insertTokenPair(first);
    const usedId = await refreshTokenId(first.refreshTokenHash);
    const next = pair(at(1000));

    expect(await store.rotateRefreshToken(usedId, next)).toBe(true);

    expect(await store.findLiveToken('refresh', first.refreshTokenHash, at(1000))).toBeUndefined();
    const [used] = await db.select().from(authTokens).where(eq(authTokens.id, usedId));
    expect(used?.revokedAt).toEqual(at(1000));
    expect(await store.findLiveToken('auth', next.authTokenHash, at(1000))).toBeDefined();
    expect(await store.findLiveToken('refresh', next.refreshTokenHash, at(1000))).toBeDefined();

    const again = pair(at(2000));
    const before = await db.$count(authTokens);
    expect(await store.rotateRefreshToken(usedId, again)).toBe(false);
    expect(await db.$count(authTokens)).toBe(before);
  });

  it('when an expired refresh token is rotated, then it fails and writes nothing', async () => {
    const old = pair();
    await store.insertTokenPair(old);
    const id = await refreshTokenId(old.refreshTokenHash);
    const before = await db.$count(authTokens);

    expect(await store.rotateRefreshToken(id, pair(at(86_400_000)))).toBe(false);
    expect(await db.$count(authTokens)).toBe(before);
    const [row] = await db.select().from(authTokens).where(eq(authTokens.id, id));
    expect(row?.revokedAt).toBeNull();
  });

  it('when a refresh token is rotated 10 times at once, then exactly one rotation succeeds and stores a pair', async () => {
    const shared = pair();
    await store.insertTokenPair(shared);
    const id = await refreshTokenId(shared.refreshTokenHash);
    const before = await db.$count(authTokens);

    const results = await Promise.all(
      Array.from({ length: 10 }, () => store.rotateRefreshToken(id, pair(at(5)))),
    );

    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await db.$count(authTokens)).toBe(before + 2);
  });
});
