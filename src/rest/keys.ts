/** Renamed keys: the contract's field names recur in every element of a batch. */
const camelKeys = new Map<string, string>();
/** Bound on {@link camelKeys}, whose keys come from requests: unknown names beyond it are not kept. */
const camelKeysLimit = 512;

/** `postal_code` → `postalCode`. */
export function camelKey(key: string): string {
  let camel = camelKeys.get(key);
  if (camel === undefined) {
    camel = key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
    if (camelKeys.size < camelKeysLimit) camelKeys.set(key, camel);
  }
  return camel;
}

/** `postalCode` → `postal_code`. */
export function snakeKey(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** A body key as the resolvers read it: see {@link camelizeBody}. */
function resolverKey(key: string): string {
  return /[A-Z]/.test(key) ? `~${key}` : key.includes('_') ? camelKey(key) : key;
}

/**
 * Renames every object key of a parsed JSON body from the contract's snake_case to the resolvers'
 * camelCase, at any depth. Keys already in camelCase would pass unchanged, so they are marked
 * (`~fooBar`) to make the strict input schemas reject them as the unknown fields they are in REST.
 * A `__proto__` key becomes the plain field `_Proto__` (no renamed key can be `__proto__`), so plain
 * assignment never reaches a prototype.
 */
export function camelizeBody(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelizeBody);
  if (value === null || typeof value !== 'object') return value;
  const renamed: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    renamed[resolverKey(key)] = camelizeBody((value as Record<string, unknown>)[key]);
  }
  return renamed;
}

/** Turns a resolver's problem path (`/0/address/postalCode`) into the contract's (`/0/address/postal_code`). */
export function snakePath(path: string): string {
  return path
    .split('/')
    .map((segment) => (segment.startsWith('~') ? segment.slice(1) : snakeKey(segment)))
    .join('/');
}
