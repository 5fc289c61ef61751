import currencyCodes from 'currency-codes';

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

/** Whether `code` is an active ISO 4217 currency code (`EUR`; not `eur`, not `XYZ`), per `currency-codes`. */
export function isCurrencyCode(code: string | undefined): code is string {
  return code !== undefined && /^[A-Z]{3}$/.test(code) && currencyCodes.code(code) !== undefined;
}

/**
 * An amount in the currency's major unit as exact integer minor units (`49.95` EUR → `4995`), or null when it
 * has more decimals than the currency has (`49.955` EUR, `1.5` JPY). Tolerates binary rounding (1e-6 of a
 * minor unit). The sign is kept: callers that refuse negative amounts check it.
 */
export function toMinorUnits(amount: number, currency: string): number | null {
  const scaled = amount * 10 ** currencyFractionDigits(currency);
  const rounded = Math.round(scaled);
  return Math.abs(scaled - rounded) < 1e-6 ? rounded : null;
}
