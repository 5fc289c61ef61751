import { describe, expect, it } from 'vitest';
import { camelizeBody, camelKey, snakePath } from '../../src/rest/keys.js';

describe('REST key renaming', () => {
  it('when a snake_case key is renamed twice, then both answers are the camelCase key', () => {
    expect(camelKey('house_number_addition')).toBe('houseNumberAddition');
    expect(camelKey('house_number_addition')).toBe('houseNumberAddition');
    expect(camelKey('contract_term_1')).toBe('contractTerm1');
  });

  it('when a body is camelized, then nested keys are renamed, camelCase keys are marked and __proto__ becomes a plain field', () => {
    const body = JSON.parse(
      '[{"address":{"postal_code":"1016XA","countryCode":"NL"},"__proto__":{"x":1},"networks":["KPN"]}]',
    );

    const camelized = camelizeBody(body) as Record<string, unknown>[];

    expect(camelized).toEqual([
      { address: { postalCode: '1016XA', '~countryCode': 'NL' }, _Proto__: { x: 1 }, networks: ['KPN'] },
    ]);
    expect(Object.keys(camelized[0] ?? {})).toEqual(['address', '_Proto__', 'networks']);
    expect(Object.getPrototypeOf(camelized[0])).toBe(Object.prototype);
    expect(snakePath('/0/address/~countryCode')).toBe('/0/address/countryCode');
    expect(snakePath('/0/address/postalCode')).toBe('/0/address/postal_code');
    expect(snakePath('/0/_Proto__')).toBe('/0/__proto__');
  });
});
