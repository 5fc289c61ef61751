import { z } from 'zod';

/**
 * The registry of the REST documents' zod schemas: an `id` makes a schema the named component
 * `#/components/schemas/<id>` of the OpenAPI document; a `description` is shown beside it.
 */
export const responseSchemas = z.registry<{ id?: string; description?: string; examples?: unknown[] }>();

/** Registers `schema` as the named component `id`. */
export function named<T extends z.ZodType>(id: string, description: string, schema: T): T {
  responseSchemas.add(schema, { id, description });
  return schema;
}

/** Gives `schema` a description (shown beside the property that holds it), and optionally an example. */
export function about<T extends z.ZodType>(description: string, schema: T, example?: z.output<T>): T {
  responseSchemas.add(schema, example === undefined ? { description } : { description, examples: [example] });
  return schema;
}
