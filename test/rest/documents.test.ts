import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/rest/documents.js';

describe('isoTimestamp', () => {
  it.each([
    ['2026-11-22T10:04:50.123Z', '2026-11-22T10:04:50+00:00'],
    ['2026-11-22T10:04:50.000Z', '2026-11-22T10:04:50+00:00'],
    ['1999-12-31T23:59:59.999Z', '1999-12-31T23:59:59+00:00'],
  ])(
    'when the instant is %s, then the contract’s timestamp is %s (to the second, explicit offset)',
    (instant, shown) => {
      expect(isoTimestamp(new Date(instant))).toBe(shown);
    },
  );
});
