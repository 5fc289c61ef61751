import SchemaBuilder from '@pothos/core';
import { type GraphQLSchema, graphql, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';
import { withPlainFields } from '../../src/schema/plain-fields.js';

/** The fields of the object type `name` of `schema`. */
function objectFields(schema: GraphQLSchema, name: string) {
  const type = schema.getType(name);
  if (!isObjectType(type)) throw new Error(`no object type ${name}`);
  return type.getFields();
}

describe('withPlainFields', () => {
  it('drops the resolver of a field exposed under its own name and keeps every other resolver', async () => {
    const builder = new SchemaBuilder<{ Objects: { Line: { city: string; contractTermMonths: number } } }>(
      {},
    );
    builder.objectType('Line', {
      fields: (t) => ({
        city: t.exposeString('city'),
        contractTerm: t.exposeInt('contractTermMonths'),
        shout: t.string({ resolve: (line) => line.city.toUpperCase() }),
      }),
    });
    builder.queryType({
      fields: (t) => ({
        line: t.field({ type: 'Line', resolve: () => ({ city: 'Utrecht', contractTermMonths: 36 }) }),
      }),
    });
    const plain = withPlainFields(builder.toSchema());
    const fields = objectFields(plain, 'Line');
    expect(fields.city?.resolve).toBeUndefined();
    expect(fields.contractTerm?.resolve).toBeTypeOf('function');
    expect(fields.shout?.resolve).toBeTypeOf('function');
    expect(await graphql({ schema: plain, source: '{ line { city contractTerm shout } }' })).toEqual({
      data: { line: { city: 'Utrecht', contractTerm: 36, shout: 'UTRECHT' } },
    });
  });

  it('leaves the service schema’s exposed address fields plain, and its computed ones resolved', () => {
    const fields = objectFields(schema, 'Address');
    expect(fields.city?.resolve).toBeUndefined();
    expect(fields.postalCode?.resolve).toBeUndefined();
    expect(fields.coordinates?.resolve).toBeTypeOf('function');
  });
});
