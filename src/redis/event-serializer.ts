/** An ISO 8601 timestamp as `Date.prototype.toJSON` writes it. */
const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Event payloads on the wire: JSON, with the `Date`s of rows (`createdAt`, `updatedAt`, … — every key ending
 * in `At`) turned back into `Date`s on arrival, so a subscriber reads the same record whether the event was
 * published in its own process or another.
 */
export const eventSerializer = {
  stringify: (value: unknown): string => JSON.stringify(value),
  parse: (text: string): unknown =>
    JSON.parse(text, (key, value) =>
      key.endsWith('At') && typeof value === 'string' && isoTimestamp.test(value) ? new Date(value) : value,
    ),
};
