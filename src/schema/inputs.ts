/**
 * GraphQL sends an explicit `null` for an optional input field the client nulled; the shared resolver
 * schemas treat absent and null alike only when they see `undefined`. Drops null object fields, deeply,
 * so both entry points validate the same shape.
 */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, inner]) => inner !== null)
      .map(([key, inner]) => [key, withoutNulls(inner)]),
  );
}
