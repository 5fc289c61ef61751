import { postalCodePattern } from './postal-code.js';
import { postalCodeFormat } from './postal-formats.js';

/** The address input fields of the contract ("Address input"), in publication order. */
export type AddressFieldKey =
  | 'country_code'
  | 'street'
  | 'city'
  | 'house_number'
  | 'house_number_addition'
  | 'postal_code';

/**
 * One address field as the options endpoint publishes it (contract, "Field
 * descriptor"; the REST layer renames `countryCode` to `country_code`).
 *
 * `regex` is a JavaScript pattern source, anchored with `^…$` and meant to be
 * compiled without flags. It applies to a value that is present: an empty or
 * absent value is governed by `required` alone. For `postal_code` outside NL it
 * applies to the compact value (trimmed, uppercased, spaces and hyphens removed;
 * see `compactPostalCode`); every other pattern applies to the value as sent.
 */
export interface FieldDescriptor {
  /** Uppercase ISO 3166-1 alpha-2 code of the country the descriptor applies to. */
  readonly countryCode: string;
  readonly key: AddressFieldKey;
  /** Human-readable English label, e.g. `"House number"`. */
  readonly name: string;
  readonly required: boolean;
  readonly regex: string;
}

const FIELD_ORDER: readonly AddressFieldKey[] = [
  'country_code',
  'street',
  'city',
  'house_number',
  'house_number_addition',
  'postal_code',
];

const FIELD_NAMES: Readonly<Record<AddressFieldKey, string>> = {
  country_code: 'Country',
  street: 'Street',
  city: 'City',
  house_number: 'House number',
  house_number_addition: 'House number addition',
  postal_code: 'Postal code',
};

/**
 * Street and city names: 1–100 characters, no control characters, not starting
 * with a space. Written with \x escapes rather than \p{L} so the pattern needs no
 * `u` flag and reads the same in PCRE, Java and Python clients; letters of every
 * script pass.
 */
const NAME_PATTERN = '^[^\\x00-\\x20\\x7F][^\\x00-\\x1F\\x7F]{0,99}$';
/** Dutch house numbers are 1–5 digits (BAG huisnummer range 1–99999). */
const NL_HOUSE_NUMBER_PATTERN = '^[0-9]{1,5}$';
/**
 * Elsewhere numbers carry letters, ranges and fractions (`12A`, `12-14`, `1/2`);
 * they must start with a letter or digit and stay short.
 */
// Hyphen and slash escaped so the pattern also compiles in an HTML `pattern` attribute (the `v` flag).
const HOUSE_NUMBER_PATTERN = '^[0-9A-Za-z][0-9A-Za-z \\/\\-]{0,9}$';
/** Additions such as `A`, `bis`, `1-hoog`, `2 rd`: up to 10 letters, digits, spaces, hyphens. */
const HOUSE_NUMBER_ADDITION_PATTERN = '^[A-Za-z0-9 \\-]{0,10}$';

const cache = new Map<string, readonly FieldDescriptor[]>();

function requiredFields(countryCode: string): ReadonlySet<AddressFieldKey> {
  if (countryCode === 'NL') {
    // Binding: the contract's one example country requires exactly these two.
    return new Set<AddressFieldKey>(['postal_code', 'house_number']);
  }
  // Elsewhere there is no postcode table to fill in street and city, and the
  // offline geocoder works from the city, so the written-out address is needed.
  // House numbers stay optional: named buildings (GB) and rural addresses have none.
  const required = new Set<AddressFieldKey>(['country_code', 'street', 'city']);
  if (postalCodeFormat(countryCode) !== null) {
    required.add('postal_code');
  }
  return required;
}

function fieldPatterns(
  countryCode: string,
  postalPattern: string,
): Readonly<Record<AddressFieldKey, string>> {
  return {
    country_code: `^${countryCode}$`,
    street: NAME_PATTERN,
    city: NAME_PATTERN,
    house_number: countryCode === 'NL' ? NL_HOUSE_NUMBER_PATTERN : HOUSE_NUMBER_PATTERN,
    house_number_addition: HOUSE_NUMBER_ADDITION_PATTERN,
    postal_code: postalPattern,
  };
}

function buildDescriptors(countryCode: string, postalPattern: string): readonly FieldDescriptor[] {
  const required = requiredFields(countryCode);
  const patterns = fieldPatterns(countryCode, postalPattern);
  return Object.freeze(
    FIELD_ORDER.map((key) =>
      Object.freeze({
        countryCode,
        key,
        name: FIELD_NAMES[key],
        required: required.has(key),
        regex: patterns[key],
      }),
    ),
  );
}

/**
 * The address field descriptors for a country, as the options endpoint publishes
 * them: all six keys, in the order country_code, street, city, house_number,
 * house_number_addition, postal_code. Computed once per country.
 *
 * Required fields:
 * - NL (binding contract rule): postal_code and house_number; the rest optional.
 *   postal_code pattern `^\d{4}[ ]?[A-Z]{2}$` (raw value), house_number `^[0-9]{1,5}$`.
 * - Other countries: country_code, street and city, plus postal_code where the
 *   country has a postal code system (per postal-codes-js). house_number is optional
 *   there because many addresses (named buildings, rural roads) have none.
 *   postal_code pattern: postal-codes-js's, applied to the compact value; for
 *   countries without postal codes `^$` (leave the field empty).
 *
 * @param countryCode - candidate ISO 3166-1 alpha-2 code, uppercase
 * @returns a fresh array of frozen descriptors, or `null` when `countryCode` is not
 *   an assigned uppercase alpha-2 code (`"XX"`, `"nl"`, `"NLD"`); the caller answers 422.
 *   Never throws for bad input.
 */
export function addressFieldDescriptors(countryCode: string): FieldDescriptor[] | null {
  let descriptors = cache.get(countryCode);
  if (descriptors === undefined) {
    const postalPattern = postalCodePattern(countryCode);
    if (postalPattern === null) {
      return null;
    }
    descriptors = buildDescriptors(countryCode, postalPattern);
    cache.set(countryCode, descriptors);
  }
  // A copy, so a caller sorting or filtering its array cannot alter the cache.
  return [...descriptors];
}
