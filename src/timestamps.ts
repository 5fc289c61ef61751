/*
 * Timestamps as text, for the hot paths that write many of them: a list page of 25 requests carries 50, and
 * `Date.prototype.toISOString` costs about 0.7 µs each on Node 24 here — more than all of GraphQL's field
 * resolution of the page (`npm run bench`, graphql-list-vs-rest, issue 50). These build the same text from
 * the time of day in integer arithmetic and a cached date part, at about a tenth of the cost.
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** `00` … `99`, so that a two-digit field is one array read. */
const twoDigits = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
/** `000` … `999`, for milliseconds. */
const threeDigits = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/** The days seen, as `toISOString` writes their date and the `T` (`2026-12-08T`), by days since 1970. */
const datePrefixes = new Map<number, string>();
/** Days kept before the cache starts over: far more than the days of any page, a few kilobytes. */
const MAX_CACHED_DAYS = 4096;

function datePrefix(day: number): string {
  let prefix = datePrefixes.get(day);
  if (prefix === undefined) {
    // Whatever the year (six digits with a sign beyond 0000–9999), `toISOString` writes the date part.
    prefix = new Date(day * DAY_MS).toISOString().slice(0, -13);
    if (datePrefixes.size >= MAX_CACHED_DAYS) datePrefixes.clear();
    datePrefixes.set(day, prefix);
  }
  return prefix;
}

/** The parts of `date`'s UTC time of day, and its date part. */
function parts(date: Date): { prefix: string; hours: number; minutes: number; seconds: number; ms: number } {
  const time = date.getTime();
  const day = Math.floor(time / DAY_MS);
  // Throws the RangeError `toISOString` throws for an invalid date (NaN).
  const prefix = Number.isNaN(day) ? date.toISOString() : datePrefix(day);
  let rest = time - day * DAY_MS;
  const hours = Math.floor(rest / HOUR_MS);
  rest -= hours * HOUR_MS;
  const minutes = Math.floor(rest / MINUTE_MS);
  rest -= minutes * MINUTE_MS;
  const seconds = Math.floor(rest / 1000);
  return { prefix, hours, minutes, seconds, ms: rest - seconds * 1000 };
}

/**
 * `date` as `Date.prototype.toISOString` writes it, e.g. `2026-11-22T10:04:50.123Z` (ECMA-262, Date Time
 * String Format; GraphQL's `DateTime`).
 * @throws RangeError for an invalid date, as `toISOString` does.
 */
export function isoString(date: Date): string {
  const { prefix, hours, minutes, seconds, ms } = parts(date);
  return `${prefix}${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}.${threeDigits[ms]}Z`;
}

/**
 * `date` to the second with an explicit UTC offset, e.g. `2026-11-22T10:04:50+00:00` (the contract's
 * "ISO 8601 timestamp with UTC offset"; RFC 3339 `date-time`); milliseconds are dropped, not rounded.
 * @throws RangeError for an invalid date, as `toISOString` does.
 */
export function isoSeconds(date: Date): string {
  const { prefix, hours, minutes, seconds } = parts(date);
  return `${prefix}${twoDigits[hours]}:${twoDigits[minutes]}:${twoDigits[seconds]}+00:00`;
}
