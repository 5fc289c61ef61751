import { describe, expect, it } from 'vitest';
import { placeNameKey } from '../../src/geo/place-name.js';

describe('placeNameKey', () => {
  it('folds case, diacritics, punctuation and spacing', () => {
    expect(placeNameKey('Amsterdam')).toBe('amsterdam');
    expect(placeNameKey("'s-Hertogenbosch")).toBe('s hertogenbosch');
    expect(placeNameKey('  Den   Haag ')).toBe('den haag');
    expect(placeNameKey('Zürich')).toBe('zurich');
    expect(placeNameKey('Łódź')).toBe('lodz');
    expect(placeNameKey('Straße')).toBe('strasse');
    expect(placeNameKey('İstanbul')).toBe('istanbul');
    expect(placeNameKey('Frankfurt (Oder)')).toBe('frankfurt oder');
  });

  it('keeps non-Latin scripts as letters', () => {
    expect(placeNameKey('Москва')).toBe('москва');
  });

  it('gives "" for names without letters or digits', () => {
    expect(placeNameKey('')).toBe('');
    expect(placeNameKey(" -' ")).toBe('');
  });
});
