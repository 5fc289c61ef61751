import { describe, expect, it } from 'vitest';
import { hashCredential, newCredential } from '../../src/resolvers/authentication.js';

describe('hashCredential', () => {
  it('when a credential is hashed, then it answers its SHA-256 in lowercase hex (FIPS 180-2 test vectors)', () => {
    expect(hashCredential('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashCredential('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('when a new credential is hashed, then the hash is 64 hex digits and differs from another credential’s', () => {
    const [first, second] = [newCredential(), newCredential()];

    expect(hashCredential(first)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashCredential(first)).not.toBe(hashCredential(second));
    expect(hashCredential(first)).toBe(hashCredential(first));
  });
});
