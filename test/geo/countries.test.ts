import { describe, expect, it } from 'vitest';
import { continentCode, isCountryCode } from '../../src/geo/countries.js';

describe('isCountryCode', () => {
  it('accepts assigned uppercase alpha-2 codes', () => {
    for (const code of ['NL', 'GB', 'US', 'DE', 'BE', 'AQ', 'BQ', 'CW', 'SX']) {
      expect(isCountryCode(code), code).toBe(true);
    }
  });

  it('rejects other spellings, unassigned and user-assigned codes', () => {
    for (const code of ['nl', 'Nl', 'NLD', '528', 'XX', 'UK', 'XK', 'EU', '', ' NL', 'NL ', 'N']) {
      expect(isCountryCode(code), code).toBe(false);
    }
  });
});

describe('continentCode', () => {
  it('gives the two-letter continent of a country', () => {
    expect(continentCode('NL')).toBe('EU');
    expect(continentCode('GB')).toBe('EU');
    expect(continentCode('US')).toBe('NA');
    expect(continentCode('BR')).toBe('SA');
    expect(continentCode('JP')).toBe('AS');
    expect(continentCode('AU')).toBe('OC');
    expect(continentCode('ZA')).toBe('AF');
    expect(continentCode('AQ')).toBe('AN');
  });

  it('answers "" for unknown codes, including inherited object keys', () => {
    expect(continentCode('XX')).toBe('');
    expect(continentCode('nl')).toBe('');
    expect(continentCode('')).toBe('');
    expect(continentCode('constructor')).toBe('');
    expect(continentCode('__proto__')).toBe('');
  });
});
