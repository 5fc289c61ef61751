import { createRequire } from 'node:module';

/**
 * A country's postal code format, derived from postal-codes-js.
 *
 * The pattern applies to the *compact* form of a postal code: trimmed,
 * uppercased, with the characters of `redundantPattern` removed (this is how postal-codes-js
 * itself validates). Unlike the library, which compiles its patterns with the
 * `i` flag, `pattern` is meant to be used without flags on that uppercase form,
 * so it can be published as-is in field descriptors.
 */
export interface PostalCodeFormat {
  /** Anchored (`^…$`), flag-free JavaScript pattern for the compact value. */
  readonly pattern: string;
  /** `pattern`, compiled without flags. */
  readonly regex: RegExp;
  /**
   * The characters removed before matching (postal-codes-js's `RedundantCharacters`, e.g. a space and a
   * hyphen) as one global character class, `/[ \-]/g`; null when there are none.
   */
  readonly redundantPattern: RegExp | null;
}

interface CountryEntry {
  readonly postalCodeFormat?: string;
}

interface FormatFile {
  readonly RedundantCharacters: string;
  readonly ValidationRegex: string | readonly string[];
}

/**
 * Corrections to library patterns that only worked thanks to the `i` flag.
 * GB's `[AZa-z]` (meant as `[A-Za-z]`) lets only A and Z through in uppercase,
 * rejecting real postcodes such as `W1A 0AX` once the flag is gone.
 */
const PATTERN_FIXES: Readonly<Record<string, readonly (readonly [string, string])[]>> = {
  'GB.json': [['[AZa-z]', '[A-Za-z]']],
};

const FORMAT_FILE_NAME = /^[A-Za-z0-9]+\.json$/;

// Loaded through require (cached by Node): the library ships plain JSON and
// has no ESM entry points for it.
const require = createRequire(import.meta.url);
const formatCache = new Map<string, PostalCodeFormat | null>();
let countryTable: Readonly<Record<string, CountryEntry>> | undefined;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function loadCountryTable(): Readonly<Record<string, CountryEntry>> {
  if (countryTable === undefined) {
    const raw: unknown = require('postal-codes-js/generated/postal-codes-alpha2.json');
    if (!isRecord(raw)) {
      throw new Error('postal-codes-js: country table is not an object');
    }
    countryTable = raw as Record<string, CountryEntry>;
  }
  return countryTable;
}

function loadFormatFile(fileName: string): FormatFile {
  if (!FORMAT_FILE_NAME.test(fileName)) {
    throw new Error(`postal-codes-js: unexpected format file name ${fileName}`);
  }
  const raw: unknown = require(`postal-codes-js/formats/${fileName}`);
  if (isRecord(raw)) {
    const { ValidationRegex: regex, RedundantCharacters: redundant } = raw;
    const regexOk =
      typeof regex === 'string' || (Array.isArray(regex) && regex.every((part) => typeof part === 'string'));
    if (regexOk && typeof redundant === 'string') {
      return { ValidationRegex: regex, RedundantCharacters: redundant };
    }
  }
  throw new Error(`postal-codes-js: malformed format file ${fileName}`);
}

/** Makes a library pattern anchored, the way the library's own matching treats it. */
function anchor(source: string | readonly string[]): string {
  if (typeof source !== 'string') {
    // The library joins array patterns as ^a|b$; grouping keeps both anchors on every branch.
    return `^(?:${source.join('|')})$`;
  }
  if (source.startsWith('^') && source.endsWith('$')) {
    return source;
  }
  // Unanchored patterns (GB) are accepted by the library only as a whole-string match.
  return `^(?:${source})$`;
}

function buildFormat(fileName: string): PostalCodeFormat {
  const file = loadFormatFile(fileName);
  let pattern = anchor(file.ValidationRegex);
  for (const [from, to] of PATTERN_FIXES[fileName] ?? []) {
    pattern = pattern.split(from).join(to);
  }
  return Object.freeze({
    pattern,
    regex: new RegExp(pattern),
    redundantPattern:
      file.RedundantCharacters.length === 0
        ? null
        : // Within a character class only `\`, `]`, `^` and `-` need escaping.
          new RegExp(`[${file.RedundantCharacters.replace(/[\\\]^-]/g, '\\$&')}]`, 'g'),
  });
}

/**
 * The postal code format of a country, per postal-codes-js (computed once per country).
 *
 * @param countryCode - uppercase ISO 3166-1 alpha-2 code; validity is the caller's concern
 * @returns the format, or `null` when the country has no postal code system. Countries
 *   postal-codes-js does not list (BQ, CW, SX; and any non-country string) also give
 *   `null`: those three islands really have no postal codes.
 * @throws Error when the installed postal-codes-js data is malformed (a packaging fault)
 */
export function postalCodeFormat(countryCode: string): PostalCodeFormat | null {
  const cached = formatCache.get(countryCode);
  if (cached !== undefined) {
    return cached;
  }
  const table = loadCountryTable();
  if (!Object.hasOwn(table, countryCode)) {
    // Not cached: arbitrary caller input must not grow the cache.
    return null;
  }
  const fileName = table[countryCode]?.postalCodeFormat;
  const format = fileName ? buildFormat(fileName) : null;
  formatCache.set(countryCode, format);
  return format;
}
