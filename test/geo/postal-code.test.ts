import { createRequire } from 'node:module';
import { validate as libraryValidate } from 'postal-codes-js';
import { describe, expect, it } from 'vitest';
import { isCountryCode } from '../../src/geo/countries.js';
import {
  compactPostalCode,
  normalisePostalCode,
  postalCodePattern,
  validatePostalCode,
} from '../../src/geo/postal-code.js';

describe('normalisePostalCode', () => {
  it('compacts Dutch postal codes (DESIGN: "1016 XA" in, "1016XA" out)', () => {
    expect(normalisePostalCode('NL', '1016 XA')).toBe('1016XA');
    expect(normalisePostalCode('NL', ' 1016xa ')).toBe('1016XA');
    expect(normalisePostalCode('NL', '1016-XA')).toBe('1016XA');
  });

  it('writes valid UK-style postcodes with one space before the inward code', () => {
    expect(normalisePostalCode('GB', 'WC2N5BW')).toBe('WC2N 5BW');
    expect(normalisePostalCode('GB', 'wc2n 5bw')).toBe('WC2N 5BW');
    expect(normalisePostalCode('GB', ' W1A  0AX ')).toBe('W1A 0AX');
    expect(normalisePostalCode('GB', 'GIR0AA')).toBe('GIR 0AA');
    expect(normalisePostalCode('JE', 'je23ab')).toBe('JE2 3AB');
  });

  it('leaves an invalid UK-style postcode compact, without a guessed space', () => {
    expect(normalisePostalCode('GB', 'wc2h')).toBe('WC2H');
  });

  it('compacts other countries by their redundant characters', () => {
    expect(normalisePostalCode('US', '12345-6789')).toBe('123456789');
    expect(normalisePostalCode('DE', ' 10115 ')).toBe('10115');
    // Poland's hyphen is part of the code, only spaces are redundant.
    expect(normalisePostalCode('PL', '00 - 950')).toBe('00-950');
  });

  it('trims and uppercases for unknown countries and countries without postal codes', () => {
    expect(normalisePostalCode('XX', ' ab 1 ')).toBe('AB 1');
    expect(normalisePostalCode('AE', ' 00000 ')).toBe('00000');
  });

  it('is idempotent', () => {
    for (const [countryCode, value] of [
      ['NL', '1016 xa'],
      ['GB', 'wc2n5bw'],
      ['US', '12345-6789'],
      ['PL', '00-950'],
    ] as const) {
      const once = normalisePostalCode(countryCode, value);
      expect(normalisePostalCode(countryCode, once)).toBe(once);
    }
  });
});

describe('validatePostalCode for NL', () => {
  it('accepts the contract forms', () => {
    expect(validatePostalCode('NL', '1016 XA')).toBe(true);
    expect(validatePostalCode('NL', '1016XA')).toBe(true);
  });

  it('rejects what the contract pattern rejects', () => {
    for (const value of ['1016 xa', '1016  XA', '1016-XA', ' 1016XA', '1016XA ', '1016 X', '10166XA', '']) {
      expect(validatePostalCode('NL', value), value).toBe(false);
    }
  });

  it('rejects codes that match the pattern but cannot exist', () => {
    expect(validatePostalCode('NL', '0123AB')).toBe(false);
    expect(validatePostalCode('NL', '1945SS')).toBe(false);
    expect(validatePostalCode('NL', '1945 SA')).toBe(false);
    expect(validatePostalCode('NL', '1945 SD')).toBe(false);
  });
});

describe('validatePostalCode for other countries', () => {
  it('checks the compact form against the library pattern', () => {
    expect(validatePostalCode('GB', 'WC2N 5BW')).toBe(true);
    expect(validatePostalCode('GB', 'wc2n5bw')).toBe(true);
    expect(validatePostalCode('GB', 'W1A 0AX')).toBe(true);
    expect(validatePostalCode('GB', 'WC2H 7LTA')).toBe(false);
    expect(validatePostalCode('US', '12345')).toBe(true);
    expect(validatePostalCode('US', '12345-6789')).toBe(true);
    expect(validatePostalCode('US', '1234')).toBe(false);
    expect(validatePostalCode('DE', '10115')).toBe(true);
    expect(validatePostalCode('DE', '1011')).toBe(false);
    expect(validatePostalCode('DE', '')).toBe(false);
  });

  it('accepts only an empty value where a country has no postal codes', () => {
    expect(validatePostalCode('AE', '')).toBe(true);
    expect(validatePostalCode('AE', '  ')).toBe(true);
    expect(validatePostalCode('AE', '00000')).toBe(false);
  });

  it('rejects everything for codes that are not countries', () => {
    expect(validatePostalCode('XX', '12345')).toBe(false);
    expect(validatePostalCode('nl', '1016XA')).toBe(false);
  });

  it('agrees with compactPostalCode and the published pattern', () => {
    for (const [countryCode, value] of [
      ['GB', 'sw1a 1aa'],
      ['CA', 'K1A 0B1'],
      ['US', '12345-6789'],
      ['IE', 'D02 X285'],
    ] as const) {
      const pattern = new RegExp(postalCodePattern(countryCode) ?? '(?!)');
      expect(pattern.test(compactPostalCode(countryCode, value)), `${countryCode} ${value}`).toBe(true);
      expect(validatePostalCode(countryCode, value), `${countryCode} ${value}`).toBe(true);
    }
  });
});

interface LibraryTestData {
  readonly Valid: readonly string[];
  readonly Invalid: readonly string[];
}

describe('agreement with postal-codes-js on its own test data', () => {
  const require = createRequire(import.meta.url);
  const table = require('postal-codes-js/generated/postal-codes-alpha2.json') as Record<
    string,
    { postalCodeFormat?: string }
  >;
  const cases: [string, string, boolean][] = [];
  for (const [countryCode, entry] of Object.entries(table)) {
    if (!isCountryCode(countryCode) || !entry.postalCodeFormat || countryCode === 'NL') {
      continue;
    }
    const format = require(`postal-codes-js/formats/${entry.postalCodeFormat}`) as {
      TestData?: LibraryTestData;
    };
    for (const value of format.TestData?.Valid ?? []) cases.push([countryCode, value, true]);
    for (const value of format.TestData?.Invalid ?? []) cases.push([countryCode, value, false]);
  }

  it('covers many countries', () => {
    expect(new Set(cases.map(([countryCode]) => countryCode)).size).toBeGreaterThan(150);
  });

  it('validates exactly as the library does, with flag-free patterns', () => {
    const disagreements = cases.filter(
      ([countryCode, value]) =>
        validatePostalCode(countryCode, value) !== (libraryValidate(countryCode, value) === true),
    );
    expect(disagreements).toEqual([]);
    const wrong = cases.filter(
      ([countryCode, value, valid]) => validatePostalCode(countryCode, value) !== valid,
    );
    expect(wrong).toEqual([]);
  });
});
