import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlLimits } from '../../src/server/graphql-limits.js';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { executeSql } from '../helpers/store.js';
import {
  admin,
  countStatements,
  customerWithProject,
  deepRead,
  refused,
  tooDeepMessage,
} from './graphql-limits-fixtures.js';

/*
 * GraphQL in production mode (src/server/graphql.ts): no introspection, no GraphiQL, no batching, masked
 * errors — and the document limits of src/server/graphql-limits.ts still apply.
 */

const { maxDepth } = graphqlLimits;

describe('GraphQL in production mode', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let customerId: string;

  beforeAll(async () => {
    server = await startTestServer({
      env: { NODE_ENV: 'production', EVENT_RELAY: 'off' },
      startWorker: false,
    });
    tenant = await server.tenant({ roles: [...admin] });
    customerId = await customerWithProject(tenant);
  });
  afterAll(() => server.close());

  const read = (query: string, variables: Record<string, unknown> = {}) =>
    countStatements(server, () => tenant.api.graphql(query, variables));
  const introspectionDisabled = (field: string) =>
    refused(
      `GraphQL introspection has been disabled, but the requested query contained the field "${field}".`,
    );

  it('when the schema is introspected, then it is refused', async () => {
    const { result, statements } = await read('{ __schema { types { name } } }');

    expect(result).toEqual({
      errors: [
        { ...introspectionDisabled('__schema'), locations: [{ line: 1, column: 3 }] },
        { ...introspectionDisabled('types'), locations: [{ line: 1, column: 14 }] },
      ],
    });
    expect(statements).toBe(0);
  });

  it.each([
    {
      trick: 'hidden in a fragment named __schema',
      query: 'query { ...__schema } fragment __schema on Query { __schema { queryType { name } } }',
      fields: ['__schema', 'queryType'],
    },
    {
      trick: 'hidden in a named fragment',
      query:
        'query { pricePlans { id } ...Types } fragment Types on Query { __type(name: "Query") { name } }',
      fields: ['__type'],
    },
    {
      trick: 'hidden in an inline fragment',
      query: 'query { ... on Query { __type(name: "Customer") { fields { name } } } }',
      fields: ['__type', 'fields'],
    },
  ])(
    'when introspection is $trick, then it is refused before any resolver runs',
    async ({ query, fields }) => {
      const { result, statements } = await read(query);

      expect(result.data).toBeUndefined();
      expect(result.errors?.map(({ message, extensions }: Json) => ({ message, extensions }))).toEqual(
        fields.map(introspectionDisabled),
      );
      expect(statements).toBe(0);
    },
  );

  it('when a too-deep read is in a fragment named __schema, then the depth limit refuses it before any resolver runs', async () => {
    const { result, statements } = await read(
      `query ($id: ID!) { ...__schema } fragment __schema on Query { ${deepRead(maxDepth + 1)} }`,
      { id: customerId },
    );

    expect(result).toEqual({ errors: [refused(tooDeepMessage)] });
    expect(statements).toBe(0);
  });

  it('when __typename is asked without a token, then it answers', async () => {
    const result = await server.anonymous.graphql('{ __typename }');

    expect(result).toEqual({ data: { __typename: 'Query' } });
  });

  it('when storage fails unexpectedly, then the error is masked: no message, SQL or stack', async () => {
    const { db } = server.app.services;
    await executeSql(db, 'ALTER TABLE instance_products RENAME TO instance_products_away');
    let response: Json;
    try {
      response = await tenant.api.request('POST', '/graphql', {
        body: { query: '{ instanceProducts { id } }' },
      });
    } finally {
      await executeSql(db, 'ALTER TABLE instance_products_away RENAME TO instance_products');
    }

    expect(response.body).toEqual({
      data: null,
      errors: [
        {
          message: 'Unexpected error.',
          locations: [{ line: 1, column: 3 }],
          path: ['instanceProducts'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ],
    });
    expect(JSON.stringify(response.body)).not.toMatch(/instance_products|sqlite|stack|\.ts:/i);
  });

  it('when a browser asks for /graphql, then there is no GraphiQL', async () => {
    const response = await fetch(`${server.app.url}/graphql`, { headers: { accept: 'text/html' } });
    const body = await response.text();

    expect(response.headers.get('content-type') ?? '').not.toContain('text/html');
    expect(body).not.toMatch(/graphiql/i);
  });

  it('when operations are sent as a batch, then the batch is refused', async () => {
    const response = await tenant.api.request('POST', '/graphql', {
      body: [{ query: '{ __typename }' }, { query: '{ __typename }' }],
    });

    expect(response.body).toEqual({
      errors: [{ message: 'Batching is not supported.', extensions: { code: 'BAD_REQUEST' } }],
    });
  });
});
