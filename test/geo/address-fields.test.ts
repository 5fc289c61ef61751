import { describe, expect, it } from 'vitest';
import { addressFieldDescriptors, type FieldDescriptor } from '../../src/geo/address-fields.js';

const KEYS = ['country_code', 'street', 'city', 'house_number', 'house_number_addition', 'postal_code'];
const NAME_PATTERN = '^[^\\x00-\\x20\\x7F][^\\x00-\\x1F\\x7F]{0,99}$';

function byKey(countryCode: string): Map<string, FieldDescriptor> {
  const descriptors = addressFieldDescriptors(countryCode);
  expect(descriptors).not.toBeNull();
  return new Map((descriptors ?? []).map((descriptor) => [descriptor.key, descriptor]));
}

function requiredKeys(countryCode: string): string[] {
  return (addressFieldDescriptors(countryCode) ?? []).filter((d) => d.required).map((d) => d.key);
}

describe('addressFieldDescriptors for NL (binding contract rules)', () => {
  it('lists all six fields in order with exact labels, flags and patterns', () => {
    expect(addressFieldDescriptors('NL')).toEqual([
      { countryCode: 'NL', key: 'country_code', name: 'Country', required: false, regex: '^NL$' },
      { countryCode: 'NL', key: 'street', name: 'Street', required: false, regex: NAME_PATTERN },
      { countryCode: 'NL', key: 'city', name: 'City', required: false, regex: NAME_PATTERN },
      { countryCode: 'NL', key: 'house_number', name: 'House number', required: true, regex: '^[0-9]{1,5}$' },
      {
        countryCode: 'NL',
        key: 'house_number_addition',
        name: 'House number addition',
        required: false,
        regex: '^[A-Za-z0-9 \\-]{0,10}$',
      },
      {
        countryCode: 'NL',
        key: 'postal_code',
        name: 'Postal code',
        required: true,
        regex: '^\\d{4}[ ]?[A-Z]{2}$',
      },
    ]);
  });

  it('publishes patterns that compile without flags and behave as documented', () => {
    const fields = byKey('NL');
    const test = (key: string, value: string): boolean =>
      new RegExp(fields.get(key)?.regex ?? '(?!)').test(value);
    expect(test('postal_code', '1016 XA')).toBe(true);
    expect(test('postal_code', '1016XA')).toBe(true);
    expect(test('postal_code', '1016 xa')).toBe(false);
    expect(test('postal_code', '1016  XA')).toBe(false);
    expect(test('house_number', '99999')).toBe(true);
    expect(test('house_number', '100000')).toBe(false);
    expect(test('house_number', '12a')).toBe(false);
    expect(test('house_number_addition', '')).toBe(true);
    expect(test('house_number_addition', '1-hoog')).toBe(true);
    expect(test('street', 'Nieuwezijds Voorburgwal')).toBe(true);
    expect(test('street', "Burgemeester 's-Jacobplein")).toBe(true);
    expect(test('city', "'s-Hertogenbosch")).toBe(true);
    expect(test('city', 'Zürich')).toBe(true);
    expect(test('city', ' Amsterdam')).toBe(false);
    expect(test('city', 'Amster\ndam')).toBe(false);
    expect(test('city', 'x'.repeat(100))).toBe(true);
    expect(test('city', 'x'.repeat(101))).toBe(false);
  });
});

describe('addressFieldDescriptors for other countries', () => {
  it('requires country, street, city and postal code where the country has postal codes', () => {
    for (const countryCode of ['GB', 'US', 'DE']) {
      expect(requiredKeys(countryCode), countryCode).toEqual([
        'country_code',
        'street',
        'city',
        'postal_code',
      ]);
      const fields = byKey(countryCode);
      expect([...fields.keys()]).toEqual(KEYS);
      expect(fields.get('country_code')?.regex).toBe(`^${countryCode}$`);
      expect(fields.get('house_number')?.regex).toBe('^[0-9A-Za-z][0-9A-Za-z \\/\\-]{0,9}$');
      expect(fields.get('house_number')?.required).toBe(false);
    }
  });

  it('publishes the anchored postal-codes-js pattern for the compact value', () => {
    expect(byKey('DE').get('postal_code')?.regex).toBe('^[0-9]{5}$');
    expect(byKey('US').get('postal_code')?.regex).toBe('^[0-9]{5}([0-9]{4})?$');
    const gb = byKey('GB').get('postal_code')?.regex ?? '';
    expect(gb.startsWith('^(?:')).toBe(true);
    expect(gb.endsWith(')$')).toBe(true);
    const gbRegex = new RegExp(gb);
    for (const compact of ['WC2N5BW', 'W1A0AX', 'EC1A1BB', 'M11AE', 'GIR0AA']) {
      expect(gbRegex.test(compact), compact).toBe(true);
    }
    expect(gbRegex.test('WC2N 5BW')).toBe(false);
    expect(gbRegex.test('WC2N5BWX')).toBe(false);
  });

  it('makes postal_code optional and empty-only where there are no postal codes', () => {
    for (const countryCode of ['AE', 'HK', 'CW']) {
      expect(requiredKeys(countryCode), countryCode).toEqual(['country_code', 'street', 'city']);
      expect(byKey(countryCode).get('postal_code')?.regex).toBe('^$');
    }
  });
});

describe('addressFieldDescriptors for codes that are not countries', () => {
  it('answers null', () => {
    for (const code of ['XX', 'nl', 'NLD', 'Nl', '', 'XK', 'constructor', '__proto__']) {
      expect(addressFieldDescriptors(code), code).toBeNull();
    }
  });
});

describe('addressFieldDescriptors caching', () => {
  it('returns equal, independent arrays of frozen descriptors', () => {
    const first = addressFieldDescriptors('GB');
    const second = addressFieldDescriptors('GB');
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    first?.pop();
    expect(addressFieldDescriptors('GB')).toHaveLength(6);
    expect(Object.isFrozen(second?.[0])).toBe(true);
  });
});
