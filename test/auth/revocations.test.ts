import { describe, expect, it } from 'vitest';
import { covers, type Revocation, Revocations, revocationCodec } from '../../src/auth/revocations.js';
import { createLogger } from '../../src/logger.js';

/*
 * The revocation messages and the open sessions they end, in one process (src/auth/revocations.ts); through
 * Redis and the store: test/server/revocation-shared.test.ts and test/rest/revocation.test.ts.
 */

const tokenRevocation: Revocation = {
  kind: 'token',
  tokenId: 'tok_1',
  applicationId: 'app_1',
  instanceId: 'ins_1',
};
const applicationRevocation: Revocation = {
  kind: 'application',
  applicationId: 'app_1',
  instanceId: 'ins_1',
};

describe('revocations', () => {
  it('when a revocation is compared with sessions, then a token’s covers that token only and an application’s every token of it', () => {
    const sameToken = { tokenId: 'tok_1', applicationId: 'app_1' };
    const sameApplication = { tokenId: 'tok_2', applicationId: 'app_1' };
    const other = { tokenId: 'tok_3', applicationId: 'app_2' };

    expect([sameToken, sameApplication, other].map((s) => covers(tokenRevocation, s))).toEqual([
      true,
      false,
      false,
    ]);
    expect([sameToken, sameApplication, other].map((s) => covers(applicationRevocation, s))).toEqual([
      true,
      true,
      false,
    ]);
  });

  it('when a revocation travels as a message, then it comes back equal, and a malformed message is refused', () => {
    for (const revocation of [tokenRevocation, applicationRevocation]) {
      expect(revocationCodec.decode(revocationCodec.encode(revocation))).toEqual(revocation);
    }
    expect(() => revocationCodec.decode('{"kind":"token","tokenId":"tok_1"}')).toThrow();
    expect(() => revocationCodec.decode('{"kind":"everything"}')).toThrow();
    expect(() => revocationCodec.decode('not json')).toThrow();
  });

  it('when a revocation is announced without Redis, then listeners hear it and the covered sessions end, once; a failing listener stops nobody', () => {
    const revocations = new Revocations({
      broadcast: null,
      findRevokedTokens: async () => [],
      logger: createLogger('silent'),
    });
    const heard: Revocation[] = [];
    const ended: string[] = [];
    revocations.listen(() => {
      throw new Error('a broken listener');
    });
    revocations.listen((revocation) => heard.push(revocation));
    const sessions = revocations.sessions<{ name: string }>((key) => ended.push(key.name));
    const [a, b, c] = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];
    sessions.add(a, { tokenId: 'tok_1', applicationId: 'app_1' });
    sessions.add(b, { tokenId: 'tok_2', applicationId: 'app_1' });
    sessions.add(c, { tokenId: 'tok_3', applicationId: 'app_2' });

    revocations.announce(tokenRevocation);
    revocations.announce(tokenRevocation);
    const afterToken = [...ended];
    revocations.announce(applicationRevocation);
    revocations.close();

    expect(heard).toEqual([tokenRevocation, tokenRevocation, applicationRevocation]);
    expect(afterToken).toEqual(['a']);
    expect(ended).toEqual(['a', 'b']);
    expect([sessions.size, revocations.openSessions]).toEqual([1, 1]);
  });
});
