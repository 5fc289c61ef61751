import { describe, expect, it } from 'vitest';
import { currencyFractionDigits, isCurrencyCode, toMajorUnits, toMinorUnits } from '../src/money.js';

describe('money', () => {
  it.each([
    ['EUR', true],
    ['JPY', true],
    ['eur', false],
    ['XYZ', false],
    ['EURO', false],
    [undefined, false],
  ])('when the code is %s, then isCurrencyCode says %s', (code, valid) => {
    expect(isCurrencyCode(code)).toBe(valid);
  });

  it('when currencies have different minor units, then amounts convert by each one’s digits', () => {
    expect([
      currencyFractionDigits('EUR'),
      currencyFractionDigits('JPY'),
      currencyFractionDigits('BHD'),
    ]).toEqual([2, 0, 3]);
    expect(toMinorUnits(49.95, 'EUR')).toBe(4995);
    expect(toMinorUnits(0.1 + 0.2, 'EUR')).toBe(30);
    expect(toMinorUnits(1500, 'JPY')).toBe(1500);
    expect(toMinorUnits(1.234, 'BHD')).toBe(1234);
    expect(toMinorUnits(-12.5, 'EUR')).toBe(-1250);
    expect(toMajorUnits(4995, 'EUR')).toBe(49.95);
  });

  it('when an amount has more decimals than its currency, then toMinorUnits gives null', () => {
    expect([toMinorUnits(49.955, 'EUR'), toMinorUnits(1.5, 'JPY'), toMinorUnits(1.2345, 'BHD')]).toEqual([
      null,
      null,
      null,
    ]);
  });
});
