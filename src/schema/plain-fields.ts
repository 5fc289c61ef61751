import { defaultFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';

/**
 * Leaves the fields that only read their parent's property of the same name without a resolver, as a
 * schema written by hand would: Pothos gives every exposed field (`t.exposeString('city')`, …) graphql-js's
 * `defaultFieldResolver` as an explicit `resolve`, and graphql-jit compiles any field with a `resolve` into a
 * resolver call with its own handler, resolve info and promise checks — where a field without one is read
 * inline from its parent. A list page of 25 requests has about 400 such fields (`npm run bench`,
 * graphql-list-vs-rest, issue 50). graphql-js falls back to the same `defaultFieldResolver`, so every
 * executor answers as before. Changes `schema` in place and returns it.
 */
export function withPlainFields(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.resolve === defaultFieldResolver) field.resolve = undefined;
    }
  }
  return schema;
}
