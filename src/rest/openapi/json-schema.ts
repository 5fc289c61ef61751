import { z } from 'zod';
import { snakeKey } from '../keys.js';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as a plain JSON object. */
export type JsonSchema = { [keyword: string]: unknown };

/** Keywords whose values are data, not subschemas: never renamed or walked into. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples', 'example']);

/**
 * Drops what says nothing to a reader: zod's safe-integer bounds on every `.int()` (`±2^53-1`) and the
 * `$schema`/`$id` zod stamps on a root (an OpenAPI 3.1 document sets the dialect once).
 */
function tidy(node: JsonSchema, root: boolean): void {
  if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
  if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  if (root) {
    delete node.$schema;
    delete node.$id;
  }
}

/** Applies {@link tidy} at every level of a converted schema. */
function tidyAll(value: unknown, root = false): void {
  if (Array.isArray(value)) {
    for (const item of value) tidyAll(item);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const node = value as JsonSchema;
  tidy(node, root);
  for (const [keyword, inner] of Object.entries(node)) {
    if (!DATA_KEYWORDS.has(keyword)) tidyAll(inner);
  }
}

/**
 * The JSON Schema of a zod schema as a client sends it (`io: 'input'`: before transforms, so the
 * defaults and `null`s a resolver accepts are shown). Refinements that JSON Schema cannot express (an
 * IBAN checksum, an assigned country code) stay with the resolver; the document states the shape.
 */
export function inputJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-2020-12',
    unrepresentable: 'any',
  }) as JsonSchema;
  tidyAll(json, true);
  return json;
}

/**
 * JSON Schemas of every schema in `registry` that has an `id`, keyed by id, with references between them
 * as `#/components/schemas/<id>` (OpenAPI's place for named schemas). Descriptions come from the same
 * registry.
 */
export function componentSchemas(
  registry: z.core.$ZodRegistry<{ id?: string; description?: string; examples?: unknown[] }>,
): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(registry, {
    io: 'output',
    target: 'draft-2020-12',
    metadata: registry,
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  for (const schema of Object.values(schemas)) tidyAll(schema, true);
  return schemas;
}

/**
 * Renames every property of a JSON Schema, and every `required` entry, from the resolvers' camelCase to
 * the contract's snake_case (`postalCode` → `postal_code`), at any depth: the REST layer renames a body's
 * keys the same way before the resolver validates it (see `camelizeBody`).
 */
export function snakeCaseSchema<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => snakeCaseSchema(item)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: JsonSchema = {};
  for (const [keyword, inner] of Object.entries(value)) {
    if (keyword === 'properties' && inner !== null && typeof inner === 'object') {
      out.properties = Object.fromEntries(
        Object.entries(inner).map(([name, schema]) => [snakeKey(name), snakeCaseSchema(schema)]),
      );
    } else if (keyword === 'required' && Array.isArray(inner)) {
      out.required = inner.map((name) => snakeKey(String(name)));
    } else if (DATA_KEYWORDS.has(keyword)) {
      out[keyword] = inner;
    } else {
      out[keyword] = snakeCaseSchema(inner);
    }
  }
  return out as T;
}

/** A parameter's schema: a `nullish()` resolver field without its `null` branch (a query value is text). */
export function withoutNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((type) => type !== 'null');
    return { ...schema, type: types.length === 1 ? types[0] : types };
  }
  const branches = schema.anyOf;
  if (!Array.isArray(branches)) return schema;
  const rest = (branches as JsonSchema[]).filter((branch) => branch.type !== 'null');
  if (rest.length !== 1 || !rest[0]) return schema;
  const { anyOf: _, ...others } = schema;
  return { ...others, ...rest[0] };
}
