import {
  type GraphQLObjectType,
  getIntrospectionQuery,
  getNamedType,
  isLeafType,
  isObjectType,
} from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { schema } from '../../src/schema/index.js';
import { graphqlLimits } from '../../src/server/graphql-limits.js';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import {
  admin,
  countStatements,
  customerWithProject,
  deepRead,
  refused,
  tooDeepMessage,
} from './graphql-limits-fixtures.js';

/*
 * The limits on a GraphQL document (src/server/graphql-limits.ts) outside production; production mode is in
 * graphql-limits-production.test.ts, the body size in graphql-body-limit-http.test.ts.
 */

const { maxDepth, maxAliases, maxDirectives, maxTokens, maxCharacters, maxCost } = graphqlLimits;

/** `count` aliased reads of one customer. */
const aliasedReads = (count: number) =>
  Array.from({ length: count }, (_, i) => `c${i}: customer(id: $id) { id }`).join(' ');

/**
 * Every field of a type that needs no argument, nested objects down to `levels` more levels, nested
 * connections left out: what a client could ask of one node of a list.
 */
function everyField(type: GraphQLObjectType, levels: number): string {
  const fields = Object.values(type.getFields()).filter(
    (field) => !field.args.some((arg) => arg.type.toString().endsWith('!')),
  );
  return fields
    .flatMap((field) => {
      const named = getNamedType(field.type);
      if (isLeafType(named)) return [field.name];
      if (!isObjectType(named) || named.name.endsWith('Connection') || levels === 0) return [];
      return [`${field.name} { ${everyField(named, levels - 1)} }`];
    })
    .join(' ');
}

/** A full page (`first: 100`) of every root connection, each with every field of its nodes. */
const fullPages = Object.values(schema.getQueryType()?.getFields() ?? {}).flatMap((field) => {
  const connection = getNamedType(field.type);
  if (!isObjectType(connection) || !connection.name.endsWith('Connection')) return [];
  const edge = getNamedType(connection.getFields().edges?.type);
  const node = isObjectType(edge) ? getNamedType(edge.getFields().node?.type) : undefined;
  if (!isObjectType(node)) return [];
  const page = `totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ${everyField(node, 3)} } }`;
  return [{ name: field.name, query: `{ ${field.name}(first: 100) { ${page} } }` }];
});

/** An error without the `http` hints Yoga drops from HTTP responses but not from WebSocket messages. */
const asSeenOverHttp = ({ message, extensions: { http: _http, ...extensions } }: Json) => ({
  message,
  extensions,
});

describe('GraphQL limits', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let customerId: string;

  beforeAll(async () => {
    // No worker: its polling would add statements to the counts.
    server = await startTestServer({ startWorker: false, env: { EVENT_RELAY: 'off' } });
    tenant = await server.tenant({ roles: [...admin] });
    customerId = await customerWithProject(tenant);
  });
  afterAll(() => server.close());

  const read = (query: string) =>
    countStatements(server, () => tenant.api.graphql(query, { id: customerId }));

  it(`when a read is ${maxDepth} deep, then it runs; one level deeper, then it is refused before any resolver runs`, async () => {
    const atLimit = await read(`query ($id: ID!) { ${deepRead(maxDepth)} }`);
    const over = await read(`query ($id: ID!) { ${deepRead(maxDepth + 1)} }`);

    expect(atLimit.result.errors).toBeUndefined();
    expect(atLimit.result.data.customer.projects.edges).toHaveLength(1);
    expect(atLimit.statements).toBeGreaterThan(0);
    expect(over.result).toEqual({
      errors: [refused(`Query depth limit of ${maxDepth} exceeded, found ${maxDepth + 1}.`)],
    });
    expect(over.statements).toBe(0);
  });

  it(`when a read has ${maxAliases} aliases, then it runs; one more, then it is refused before any resolver runs`, async () => {
    const atLimit = await read(`query ($id: ID!) { ${aliasedReads(maxAliases)} }`);
    const over = await read(`query ($id: ID!) { ${aliasedReads(maxAliases + 1)} }`);

    expect(atLimit.result.errors).toBeUndefined();
    expect(Object.keys(atLimit.result.data)).toHaveLength(maxAliases);
    expect(atLimit.statements).toBeGreaterThan(0);
    expect(over.result).toEqual({
      errors: [refused(`Aliases limit of ${maxAliases} exceeded, found ${maxAliases + 1}.`)],
    });
    expect(over.statements).toBe(0);
  });

  it(`when a read ${maxDepth} deep is written with two nested fragment spreads, then it runs as its inline form does; one level deeper, then it is refused alike`, async () => {
    /** {@link deepRead} split as a front-end with colocated fragments writes it: P and C are components. */
    const fragmented = (leaf: string) =>
      `query ($id: ID!) { customer(id: $id) { ...P } }
       fragment P on Customer { projects { edges { node { ...C } } } }
       fragment C on Project { customer { projects { edges { node { customer { ${leaf} } } } } } }`;

    const atLimit = await read(fragmented('__typename'));
    const over = await read(fragmented('projects { __typename }'));

    expect(atLimit.result.errors).toBeUndefined();
    expect(atLimit.result.data.customer.projects.edges).toHaveLength(1);
    expect(over.result).toEqual({ errors: [refused(tooDeepMessage)] });
    expect(over.statements).toBe(0);
  });

  it.each([
    {
      amplification: `one fragment of 8 aliases spread twice (16 > ${maxAliases})`,
      query: `query ($id: ID!) { ...Eight ...Eight }
        fragment Eight on Query { ${aliasedReads(8)} }`,
      message: `Aliases limit of ${maxAliases} exceeded, found 16.`,
    },
    {
      amplification: 'a page of customers whose fragment reads a page of requests each',
      query: `{ customers(first: 100) { edges { node { ...Requests } } } }
        fragment Requests on Customer { availabilityRequests(first: 100) { edges { node { id status } } } }`,
      message: expect.stringMatching(new RegExp(`^Query Cost limit of ${maxCost} exceeded, found \\d`)),
    },
  ])('when $amplification, then it is refused before any resolver runs', async ({ query, message }) => {
    const { result, statements } = await read(query);

    expect(result).toEqual({ errors: [refused(message)] });
    expect(statements).toBe(0);
  });

  it.each([
    {
      trick: 'the too-deep read is in a fragment named __schema',
      query: `query ($id: ID!) { ...__schema } fragment __schema on Query { ${deepRead(maxDepth + 1)} }`,
    },
    {
      trick: 'the too-deep read is aliased __schema',
      query: `query ($id: ID!) { __schema: ${deepRead(maxDepth + 1)} }`,
    },
  ])('when $trick, then the depth limit still refuses it before any resolver runs', async ({ query }) => {
    const { result, statements } = await read(query);

    expect(result).toEqual({ errors: [refused(tooDeepMessage)] });
    expect(statements).toBe(0);
  });

  it('when directives, tokens, characters or cost go one past their limit, then each is refused before any resolver runs', async () => {
    const directives = await read(
      `query ($id: ID!) { customer(id: $id) { id } ${'__typename @include(if: true) '.repeat(maxDirectives + 1)}}`,
    );
    // Already at the limit before the braces: one token per field.
    const tokens = await read(`query ($id: ID!) { ${'__typename '.repeat(maxTokens)} }`);
    const padded = `query ($id: ID!) { customer(id: $id) { id } }${' '.repeat(maxCharacters)}`;
    const characters = await read(padded);
    const cost = await read(
      '{ customers(first: 100) { edges { node { availabilityRequests(first: 100) { edges { node { id } } } } } } }',
    );

    expect(directives.result).toEqual({
      errors: [refused(`Directives limit of ${maxDirectives} exceeded, found ${maxDirectives + 1}.`)],
    });
    expect(tokens.result).toEqual({
      errors: [
        {
          message: `Syntax Error: Token limit of ${maxTokens} exceeded.`,
          extensions: { code: 'GRAPHQL_PARSE_FAILED' },
        },
      ],
    });
    expect(characters.result).toEqual({
      errors: [
        {
          message: `Syntax Error: Character limit of ${maxCharacters} exceeded, found ${padded.length}.`,
          extensions: { code: 'GRAPHQL_PARSE_FAILED' },
        },
      ],
    });
    expect(cost.result).toEqual({
      errors: [
        refused(expect.stringMatching(new RegExp(`^Query Cost limit of ${maxCost} exceeded, found \\d+`))),
      ],
    });
    expect([directives, tokens, characters, cost].map(({ statements }) => statements)).toEqual([0, 0, 0, 0]);
  });

  it.each(fullPages)(
    'when a full page of $name asks for every field, then it passes every limit',
    async ({ query }) => {
      const result = await tenant.api.graphql(query);

      expect(result.errors).toBeUndefined();
    },
  );

  it('when a browser asks for /graphql outside production, then GraphiQL’s page is served', async () => {
    const response = await fetch(`${server.app.url}/graphql`, { headers: { accept: 'text/html' } });
    const body = await response.text();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html');
    expect(body).toContain('<title>Connectivity Gateway</title>');
    expect(body).toContain('renderYogaGraphiQL');
  });

  it('when GraphiQL introspects the schema outside production, then its query passes every limit', async () => {
    const result = await tenant.api.graphql(getIntrospectionQuery());

    expect(result.errors).toBeUndefined();
    expect(result.data.__schema.queryType).toEqual({ name: 'Query', kind: 'OBJECT' });
  });

  it('when a client accepts application/graphql-response+json, then a refused document is a 400', async () => {
    const response = await tenant.api.request('POST', '/graphql', {
      body: { query: `query ($id: ID!) { ${deepRead(maxDepth + 1)} }`, variables: { id: customerId } },
      headers: { accept: 'application/graphql-response+json' },
    });

    expect(response.status).toBe(400);
    expect(response.body.errors[0].extensions).toEqual({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });

  it('when first is 101, then availabilityRequests answers BAD_USER_INPUT naming the argument', async () => {
    const result = await tenant.api.graphql('{ availabilityRequests(first: 101) { totalCount } }');

    expect(result).toEqual({
      data: null,
      errors: [
        {
          message: 'The connection arguments are invalid.',
          locations: [{ line: 1, column: 3 }],
          path: ['availabilityRequests'],
          extensions: {
            code: 'BAD_USER_INPUT',
            problems: [{ path: '/first', message: 'Too big: expected number to be <=100' }],
          },
        },
      ],
    });
  });

  it.each([
    { mistake: 'a misspelt field', query: '{ pricePlan { id } }', variables: {} },
    { mistake: 'a misspelt argument', query: '{ customers(frist: 1) { totalCount } }', variables: {} },
    {
      mistake: 'a misspelt type',
      query: 'query ($id: Id!) { customer(id: $id) { id } }',
      variables: { id: 'x' },
    },
  ])(
    'when a query has $mistake, then the error suggests no name from the schema',
    async ({ query, variables }) => {
      const result = await tenant.api.graphql(query, variables);

      const messages = (result.errors ?? []).map((error: Json) => error.message).join('\n');

      expect(messages).toContain('[Suggestion hidden]');
      expect(messages).not.toMatch(/did you mean/i);
    },
  );

  it('when the variables misspell an input field, then the errors name what is wrong and suggest nothing', async () => {
    const result = await tenant.api.graphql(
      'mutation ($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } } }',
      { input: { nam: 'Acme' } },
    );

    expect((result.errors ?? []).map((error: Json) => error.message)).toEqual([
      'Variable "$input" got invalid value { nam: "Acme" }; Field value.name of required type String! was not provided.',
      'Variable "$input" got invalid value { nam: "Acme" }; Field "nam" is not defined by type CreateCustomerInput.',
    ]);
  });

  it('when a read over WebSocket is one level too deep, then graphql-ws answers the same refusal before any resolver runs', async () => {
    const client = createClient({
      url: `${server.app.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authToken: tenant.api.token },
      retryAttempts: 0,
    });
    const operation = (depth: number) =>
      new Promise<Json>((resolve) => {
        let data: Json;
        client.subscribe(
          { query: `query ($id: ID!) { ${deepRead(depth)} }`, variables: { id: customerId } },
          {
            next: (result) => {
              data = result;
            },
            error: (errors) => resolve({ errors: (errors as Json[]).map(asSeenOverHttp) }),
            complete: () => resolve(data),
          },
        );
      });
    try {
      const atLimit = await countStatements(server, () => operation(maxDepth));
      const over = await countStatements(server, () => operation(maxDepth + 1));

      expect(atLimit.result.errors).toBeUndefined();
      expect(atLimit.statements).toBeGreaterThan(0);
      expect(over.result).toEqual({
        errors: [refused(`Query depth limit of ${maxDepth} exceeded, found ${maxDepth + 1}.`)],
      });
      // graphql-ws's onSubscribe (src/server/graphql-ws.ts) builds the context, looking up the viewer,
      // before it validates; nothing else may touch the database.
      expect(over.sql.filter((sql) => !sql.includes('from "auth_tokens"'))).toEqual([]);
    } finally {
      await client.dispose();
    }
  });
});
