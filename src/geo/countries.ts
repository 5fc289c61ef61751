import { countries as countryList } from 'countries-list';
import isoCountries from 'i18n-iso-countries';

/**
 * Codes that i18n-iso-countries lists but ISO 3166-1 has not assigned.
 * XK (Kosovo) is a user-assigned code (the XA–XZ range), so it is not an ISO
 * 3166-1 alpha-2 code even though several libraries carry it.
 */
const NOT_ISO_ASSIGNED: ReadonlySet<string> = new Set(['XK']);

const ALPHA2_SHAPE = /^[A-Z]{2}$/;

/**
 * Whether `code` is an assigned ISO 3166-1 alpha-2 country code.
 *
 * Only the canonical uppercase form counts (`"NL"` yes; `"nl"`, `"NLD"`, `"528"`
 * no): the contract names the field "ISO 3166 Alpha-2", and accepting other
 * spellings would let two different strings name one country in stored records.
 * The code list comes from i18n-iso-countries, minus user-assigned codes (XK).
 *
 * @param code - candidate country code, taken as-is (not trimmed or uppercased)
 * @returns true for an assigned alpha-2 code; never throws
 */
export function isCountryCode(code: string): boolean {
  // i18n-iso-countries' isValid also accepts lowercase, alpha-3 and numeric
  // codes, so the shape is checked first.
  return ALPHA2_SHAPE.test(code) && !NOT_ISO_ASSIGNED.has(code) && isoCountries.isValid(code);
}

/**
 * Two-letter continent code of a country, as published in address records'
 * `continent_code`: AF, AN, AS, EU, NA, OC or SA (countries-list's main continent
 * for the country, so transcontinental countries get one: `"RU"` → `"EU"`,
 * `"TR"` → `"AS"`).
 *
 * @param countryCode - uppercase ISO 3166-1 alpha-2 code, e.g. `"NL"`
 * @returns the continent code (`"NL"` → `"EU"`, `"US"` → `"NA"`), or `""` when the
 *   country is unknown, matching the DESIGN rule that unknown string fields are `""`
 */
export function continentCode(countryCode: string): string {
  if (!Object.hasOwn(countryList, countryCode)) {
    return '';
  }
  // hasOwn proved the key exists; the cast only narrows string to the key union.
  const country = countryList[countryCode as keyof typeof countryList];
  return country.continent;
}
