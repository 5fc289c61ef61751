import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/db/open.js';
import type { TokenPairInput } from '../../src/db/rows.js';
import type { Store } from '../../src/db/store.js';
import { createLogger } from '../../src/logger.js';
import { tempDatabasePath } from '../helpers/app.js';
import { storedRows, testStore } from '../helpers/store.js';

/*
 * The store's revocation operations (issue 34), on this project's store (SQLite, then PostgreSQL):
 * `revokeAuthToken`, `findRevokedTokens`, `setApplicationDisabled`, and how `findLiveToken`,
 * `findApplicationByClientId` and `rotateRefreshToken` respect a disabled application.
 */

const now = new Date('2026-11-25T10:00:00.000Z');
const at = (ms: number) => new Date(now.getTime() + ms);

describe(`revocation in the ${testStore} store`, () => {
  const database = tempDatabasePath();
  let store: Store;
  let instanceId: string;
  let otherInstanceId: string;
  let owner: { instanceId: string; userId: string; applicationId: string };
  let pairs = 0;

  beforeAll(async () => {
    store = await openStore(database.path, { poolSize: 4, logger: createLogger('silent') });
    instanceId = (await store.insertInstance({ name: 'Acme', code: 'ACM', now })).id;
    otherInstanceId = (await store.insertInstance({ name: 'Other', code: 'OTH', now })).id;
    const created = await store.insertApplication({
      instanceId,
      name: 'Checker',
      roles: ['connectivity_check'],
      clientId: 'client-1',
      clientSecretHash: 'secret-hash',
      now,
    });
    owner = { instanceId, userId: created.userId, applicationId: created.applicationId };
  });
  afterAll(async () => {
    await store?.close();
    database.remove();
  });

  /** Stores a pair issued at `issuedAt` (auth 1 h, refresh 1 day); answers its hashes and token ids. */
  async function issue(issuedAt: Date) {
    pairs += 1;
    const input: TokenPairInput = {
      ...owner,
      authTokenHash: `auth-${pairs}`,
      authTokenExpiresAt: new Date(issuedAt.getTime() + 3_600_000),
      refreshTokenHash: `refresh-${pairs}`,
      refreshTokenExpiresAt: new Date(issuedAt.getTime() + 86_400_000),
      now: issuedAt,
    };
    await store.insertTokenPair(input);
    const idOf = async (tokenHash: string) =>
      ((await storedRows(store, 'authTokens', { tokenHash })) as { id: string }[])[0]?.id ?? '';
    return {
      input,
      authId: await idOf(input.authTokenHash),
      refreshId: await idOf(input.refreshTokenHash),
    };
  }
  const revokedAt = async (tokenId: string) =>
    ((await storedRows(store, 'authTokens', { id: tokenId })) as { revokedAt: Date | null }[])[0]?.revokedAt;

  it('when an auth token is revoked, then it and its pair’s refresh token are, another pair is not, and a second revocation finds nothing', async () => {
    const revoked = await issue(at(0));
    const kept = await issue(at(1));

    const first = await store.revokeAuthToken(revoked.authId, at(10));
    const second = await store.revokeAuthToken(revoked.authId, at(20));

    expect(first).toEqual({ tokenId: revoked.authId, applicationId: owner.applicationId, instanceId });
    expect(second).toBeUndefined();
    expect(await store.revokeAuthToken(revoked.refreshId, at(20))).toBeUndefined();
    expect([await revokedAt(revoked.authId), await revokedAt(revoked.refreshId)]).toEqual([at(10), at(10)]);
    expect([await revokedAt(kept.authId), await revokedAt(kept.refreshId)]).toEqual([null, null]);
    expect(await store.findLiveToken('auth', revoked.input.authTokenHash, at(30))).toBeUndefined();
    expect(await store.rotateRefreshToken(revoked.refreshId, (await issue(at(30))).input)).toBe(false);
  });

  it('when two revocations of one token race, then exactly one revokes it', async () => {
    const token = await issue(at(0));

    const results = await Promise.all([
      store.revokeAuthToken(token.authId, at(5)),
      store.revokeAuthToken(token.authId, at(5)),
    ]);

    expect(results.filter((result) => result !== undefined)).toHaveLength(1);
  });

  it('when token ids are checked, then the revoked and the unknown ones are answered once each, the expired and the live ones not', async () => {
    const revoked = await issue(at(0));
    const live = await issue(at(0));
    const expired = await issue(at(-7_200_000));
    await store.revokeAuthToken(revoked.authId, at(1));

    const answer = await store.findRevokedTokens([
      live.authId,
      revoked.authId,
      'tok_unknown',
      expired.authId,
      revoked.authId,
    ]);

    expect(answer).toEqual([revoked.authId, 'tok_unknown']);
    expect(await store.findRevokedTokens([])).toEqual([]);
  });

  it('when an application is disabled, enabled and disabled again, then its tokens are revoked for good, it cannot sign in meanwhile, and the first disabling time stays', async () => {
    const before = await issue(at(0));
    const raced = await issue(at(0));
    const application = {
      id: owner.applicationId,
      instanceId,
      name: 'Checker',
      clientId: 'client-1',
      createdAt: now,
      updatedAt: now,
    };

    const elsewhere = await store.setApplicationDisabled({
      clientId: 'client-1',
      instanceId: otherInstanceId,
      disabled: true,
      now: at(100),
    });
    const disabled = await store.setApplicationDisabled({
      clientId: 'client-1',
      disabled: true,
      now: at(100),
    });
    const again = await store.setApplicationDisabled({
      clientId: 'client-1',
      instanceId,
      disabled: true,
      now: at(200),
    });
    // A token stored after the disabling (a sign-in racing it) is not accepted either while disabled.
    const late = await issue(at(250));
    const whileDisabled = {
      credentials: await store.findApplicationByClientId('client-1'),
      live: await store.findLiveToken('auth', late.input.authTokenHash, at(300)),
      rotated: await store.rotateRefreshToken(late.refreshId, (await issue(at(300))).input),
      revoked: await store.findRevokedTokens([late.authId]),
    };
    const enabled = await store.setApplicationDisabled({
      clientId: 'client-1',
      disabled: false,
      now: at(400),
    });

    expect(elsewhere).toBeUndefined();
    expect(disabled).toEqual({ ...application, disabledAt: at(100), updatedAt: at(100) });
    expect(again).toEqual({ ...application, disabledAt: at(100), updatedAt: at(100) });
    expect(whileDisabled).toEqual({
      credentials: undefined,
      live: undefined,
      rotated: false,
      revoked: [late.authId],
    });
    expect(enabled).toEqual({ ...application, disabledAt: null, updatedAt: at(400) });
    expect((await store.findApplicationByClientId('client-1'))?.applicationId).toBe(owner.applicationId);
    expect([await revokedAt(before.authId), await revokedAt(raced.refreshId)]).toEqual([at(100), at(100)]);
    expect(await store.findLiveToken('auth', before.input.authTokenHash, at(500))).toBeUndefined();
    // Enabling brings back none of the tokens, not even one that raced the disabling.
    expect(await store.findRevokedTokens([before.authId, late.authId])).toEqual([before.authId, late.authId]);
    expect(await revokedAt(late.authId)).toEqual(at(400));
    expect(await store.setApplicationDisabled({ clientId: 'nobody', disabled: true, now })).toBeUndefined();
  });
});
