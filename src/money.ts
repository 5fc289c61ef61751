const fractionDigitsCache = new Map<string, number>();

/** Minor-unit digits of an ISO 4217 currency (EUR 2, JPY 0), from the platform's ICU data. */
export function currencyFractionDigits(currency: string): number {
  let digits = fractionDigitsCache.get(currency);
  if (digits === undefined) {
    digits =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2;
    fractionDigitsCache.set(currency, digits);
  }
  return digits;
}

/**
 * An amount in integer minor units as a decimal number in the currency's major unit (`4995`, EUR → `49.95`).
 * Money is computed in minor units and converted only at the edge, so sums never drift (DESIGN.md).
 */
export function toMajorUnits(minor: number, currency: string): number {
  return minor / 10 ** currencyFractionDigits(currency);
}
