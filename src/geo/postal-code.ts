import { isCountryCode } from './countries.js';
import { postalCodeFormat } from './postal-formats.js';

/**
 * The contract's pattern for Dutch postal codes: four digits, an optional single
 * space, two uppercase letters. Binding (service-interface.md, "Address input"),
 * and applied to the value exactly as the client sent it.
 */
export const NL_POSTAL_CODE_PATTERN = '^\\d{4}[ ]?[A-Z]{2}$';

/**
 * Published pattern for countries without a postal code system: only an empty
 * value is a valid one, so clients are told to leave the field out rather than
 * invent a code.
 */
export const NO_POSTAL_CODE_PATTERN = '^$';

const NL_POSTAL_CODE_REGEX = new RegExp(NL_POSTAL_CODE_PATTERN);

/**
 * Countries whose postcodes are written outward code, space, three-character
 * inward code (Royal Mail format, shared by the Crown Dependencies).
 */
const INWARD_CODE_COUNTRIES: ReadonlySet<string> = new Set(['GB', 'GG', 'IM', 'JE']);
const INWARD_CODE_LENGTH = 3;

/**
 * The compact form of a postal code: trimmed, uppercased, with the country's
 * redundant characters (per postal-codes-js; usually spaces and hyphens) removed.
 * This is the form the published non-NL patterns apply to.
 *
 * @param countryCode - uppercase ISO 3166-1 alpha-2 code
 * @param value - postal code as entered
 * @returns e.g. `"1016 XA"` → `"1016XA"`, `"wc2n 5bw"` → `"WC2N5BW"`, `"12345-6789"` (US)
 *   → `"123456789"`. Unknown countries and countries without postal codes: trimmed
 *   and uppercased only. Never throws for bad input.
 */
export function compactPostalCode(countryCode: string, value: string): string {
  const compact = value.trim().toUpperCase();
  const redundant = isCountryCode(countryCode) ? postalCodeFormat(countryCode)?.redundantPattern : null;
  return redundant ? compact.replace(redundant, '') : compact;
}

/**
 * The form in which a postal code is stored and returned in address records.
 *
 * The compact form (see {@link compactPostalCode}) — DESIGN: `"1016 XA"` in,
 * `"1016XA"` out — except for GB, GG, IM and JE, where a valid code is written the
 * Royal Mail way with one space before the three-character inward code
 * (`"wc2n5bw"` → `"WC2N 5BW"`), because that is how those codes are printed and
 * searched for. An invalid code is returned compact, without a guessed space.
 * Idempotent: normalising a normalised value changes nothing.
 *
 * @param countryCode - uppercase ISO 3166-1 alpha-2 code
 * @param value - postal code as entered
 * @returns the normalised postal code; never throws
 */
export function normalisePostalCode(countryCode: string, value: string): string {
  const compact = compactPostalCode(countryCode, value);
  if (!INWARD_CODE_COUNTRIES.has(countryCode) || !postalCodeFormat(countryCode)?.regex.test(compact)) {
    return compact;
  }
  const split = compact.length - INWARD_CODE_LENGTH;
  return `${compact.slice(0, split)} ${compact.slice(split)}`;
}

/**
 * The postal code pattern published for a country in the options endpoint's
 * field descriptors.
 *
 * NL: the contract's {@link NL_POSTAL_CODE_PATTERN}, applied to the raw value.
 * Other countries: postal-codes-js's pattern, anchored and usable without regex
 * flags, applied to the compact value ({@link compactPostalCode}). Countries
 * without postal codes: {@link NO_POSTAL_CODE_PATTERN}.
 *
 * @param countryCode - uppercase ISO 3166-1 alpha-2 code
 * @returns the pattern source (anchored with `^…$`), or `null` when `countryCode`
 *   is not an assigned alpha-2 code
 */
export function postalCodePattern(countryCode: string): string | null {
  if (countryCode === 'NL') {
    return NL_POSTAL_CODE_PATTERN;
  }
  if (!isCountryCode(countryCode)) {
    return null;
  }
  return postalCodeFormat(countryCode)?.pattern ?? NO_POSTAL_CODE_PATTERN;
}

/**
 * Whether a postal code is valid for a country; the check agrees with
 * {@link postalCodePattern}.
 *
 * - NL: the raw value must match the contract pattern (so lowercase letters, a
 *   double space or surrounding whitespace fail) and its compact form must pass
 *   postal-codes-js, which also rejects codes that cannot exist: a leading zero
 *   (`0123AB`) and the letter pairs SA, SD and SS (`1945SS`).
 * - Other countries: the compact form must match postal-codes-js's pattern
 *   (case-insensitive in effect, as the compact form is uppercase).
 * - Countries without postal codes: only an empty (or blank) value is valid.
 *
 * @param countryCode - uppercase ISO 3166-1 alpha-2 code
 * @param value - postal code as entered
 * @returns false for unknown country codes and for empty values where a code is
 *   needed; never throws
 */
export function validatePostalCode(countryCode: string, value: string): boolean {
  if (!isCountryCode(countryCode)) {
    return false;
  }
  const compact = compactPostalCode(countryCode, value);
  const format = postalCodeFormat(countryCode);
  if (format === null) {
    return compact === '';
  }
  if (countryCode === 'NL' && !NL_POSTAL_CODE_REGEX.test(value)) {
    return false;
  }
  return format.regex.test(compact);
}
