/**
 * The dates a seller gave as text and a line keeps as it gave them (a charge's `responseDueDate`, a
 * milestone's `date`), read as instants so REST and GraphQL show them like their other timestamps.
 */

/** RFC 3339 `date-time`: a date, a time (seconds and fractions optional) and `Z` or a `±hh:mm` offset. */
const dateTimeText = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * The instant a seller's date-time text names, or null for null and for text that is not an ISO 8601
 * date-time with an offset (a seller's answers are checked to hold one when read, so only a value stored
 * otherwise can be one; it is then shown as null instead of failing the whole document).
 */
export function sellerDateTime(text: string | null): Date | null {
  if (text === null || !dateTimeText.test(text)) return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}
