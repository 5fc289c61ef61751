import fc from 'fast-check';
import {
  type GraphQLField,
  type GraphQLInputType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';
import { type Json, startTestServer, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';
import { countEveryTable } from '../helpers/store.js';

/**
 * Property-based tests of the GraphQL mutation inputs: inputs generated from the schema's own input
 * types, mutations of valid inputs and arbitrary JSON never give `INTERNAL_SERVER_ERROR` or a 5xx, and a
 * failed mutation writes no row anywhere.
 */

const numRuns = 60;

/** Strings a JSON text turns into the numbers `JSON.parse` reads as ±Infinity (JSON.stringify cannot). */
const INFINITY = '__json_1e999__';
const MINUS_INFINITY = '__json_-1e999__';
const serialise = (body: unknown): string =>
  JSON.stringify(body).replaceAll(`"${INFINITY}"`, '1e999').replaceAll(`"${MINUS_INFINITY}"`, '-1e999');

const hostileStrings = fc.constantFrom(
  '',
  '   ',
  'NaN',
  '\u0000',
  '\uD800',
  '\u202Eevil',
  'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  '🇳🇱👩‍👩‍👧‍👦',
  "'; DROP TABLE customers; --",
  '%_\\',
  'x'.repeat(100_000),
);
/** Strings the domain accepts somewhere, so generated inputs get past the first check now and then. */
const plausibleStrings = fc.constantFrom(
  'NL',
  'BE',
  'EUR',
  'USD',
  '1016XA',
  '1016 XA',
  '206',
  'H',
  'Amsterdam',
  'Lijnbaansgracht',
  'KPN',
  'FIBER',
  'DIA',
  'https://acme.example',
  'billing@acme.example',
  'NL91ABNA0417164300',
  'NL123456789B01',
  'kpn-weas',
);
const anyString = fc.oneof(fc.string({ unit: 'binary', maxLength: 30 }), hostileStrings, plausibleStrings);

const nested = (depth: number): unknown => (depth === 0 ? [] : [nested(depth - 1)]);
/** Values of the wrong type or at the edges: for mutating valid inputs. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    0,
    -0,
    -1,
    -1e308,
    1e308,
    2 ** 31,
    2 ** 53 + 2,
    5e-324,
    0.125,
    INFINITY,
    MINUS_INFINITY,
  ),
  anyString,
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer({ min: 1, max: 100 }).map(nested),
);

let planCount = 0;
let server: TestServer;
let tenant: TestTenant;
const world: Json = {};

/** A value of a GraphQL input type that GraphQL itself accepts, so the resolvers see it. */
function typed(type: GraphQLInputType, depth = 0): fc.Arbitrary<unknown> {
  if (isNonNullType(type)) return typed(type.ofType, depth);
  if (isListType(type)) return fc.array(nonNull(type.ofType, depth + 1), { maxLength: depth > 1 ? 1 : 3 });
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    return fc.record(
      Object.fromEntries(fields.map((field) => [field.name, nonNull(field.type, depth + 1)])),
      {
        requiredKeys: fields.filter((field) => isNonNullType(field.type)).map((field) => field.name),
      },
    );
  }
  if (isEnumType(type)) return fc.constantFrom(...type.getValues().map((value) => value.name));
  switch (type.name) {
    case 'Int':
      return fc.oneof(
        fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
        fc.constantFrom(0, -1, 1, 30, 100, 365),
      );
    case 'Float':
      return fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.constantFrom(0, -100, 12.5, 0.005),
      );
    case 'Boolean':
      return fc.boolean();
    case 'ID':
      return fc.oneof(
        anyString,
        fc.constantFrom(...Object.values(world).filter((v) => typeof v === 'string')),
      );
    default:
      return anyString;
  }
}

/** A value of the type, or null for a nullable one. */
const nonNull = (type: GraphQLInputType, depth: number): fc.Arbitrary<unknown> =>
  isNonNullType(type) ? typed(type, depth) : fc.option(typed(type, depth), { nil: null, freq: 6 });

/** `mutation ($a: T!) { field(a: $a) { __typename } }` for a root field. */
function document(field: GraphQLField<unknown, unknown>): string {
  const variables = field.args.map((arg) => `$${arg.name}: ${String(arg.type)}`).join(', ');
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  return `mutation (${variables}) { ${field.name}(${args}) { __typename } }`;
}

/** Rows in every table of the database. */
function rowCounts(server: TestServer): Promise<Record<string, number>> {
  return countEveryTable(server.app.services.db);
}

/** Runs one mutation and checks: no 5xx, no unexpected error, and on any error no row written. */
async function check(field: GraphQLField<unknown, unknown>, variables: unknown): Promise<boolean> {
  const before = await rowCounts(server);
  const response = await tenant.api.request('POST', '/graphql', {
    raw: serialise({ query: document(field), variables }),
    headers: { 'content-type': 'application/json' },
  });
  expect(response.status).toBeLessThan(500);
  const errors: Json[] = response.body.errors ?? [];
  expect(errors.filter((error) => error.extensions?.code === 'INTERNAL_SERVER_ERROR')).toEqual([]);
  expect(errors.filter((error) => error.message === 'Unexpected error.')).toEqual([]);
  if (errors.length > 0) expect(await rowCounts(server)).toEqual(before);
  else expect(response.body.data[field.name]).toEqual({ __typename: expect.any(String) });
  return errors.length === 0;
}

/** One change to an input: at the `at`-th value (root included, depth first). */
interface Mutation {
  op: 'drop' | 'replace' | 'add' | 'wrap';
  at: number;
  key: string;
  value: unknown;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('drop', 'replace', 'add', 'wrap'),
  at: fc.nat(),
  key: fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('__proto__', 'constructor', 'id', 'instanceId'),
  ),
  value: oddValue,
});

function places(value: unknown, parent: Json, key: string | number, into: [Json, string | number][] = []) {
  into.push([parent, key]);
  if (value !== null && typeof value === 'object') {
    for (const [inner, child] of Object.entries(value)) {
      places(child, value, Array.isArray(value) ? Number(inner) : inner, into);
    }
  }
  return into;
}

/** Variables with the mutations applied in turn. */
function mutate(valid: unknown, mutations: Mutation[]): unknown {
  const holder: Json = { variables: structuredClone(valid) };
  for (const { op, at, key, value } of mutations) {
    const all = places(holder.variables, holder, 'variables');
    const [parent, slot] = all[at % all.length] ?? [holder, 'variables'];
    const target = parent[slot];
    if (op === 'drop') {
      if (Array.isArray(parent)) parent.splice(Number(slot), 1);
      else delete parent[slot];
    } else if (op === 'wrap') parent[slot] = [target];
    else if (op === 'add' && Array.isArray(target)) target.push(value);
    else if (op === 'add' && target !== null && typeof target === 'object') {
      Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    } else parent[slot] = value;
  }
  return holder.variables ?? {};
}

/** Inputs that once broke a mutation, tried first on every run. */
const knownCases: Record<string, Record<string, unknown>[]> = {
  // A malformed currency reached Intl.NumberFormat in the decimals check: 500 instead of 422.
  createInstanceProduct: [{ input: { name: 'Router', currency: 'euro', mrc: 1, nrc: 0 } }],
  // A lone surrogate is stored as U+FFFD, so the name check misses the plan made first: UNIQUE error, 500.
  createPricePlan: Array(2).fill({ input: { name: '\uD800', mrcMarkupPercent: 0, nrcMarkupPercent: 0 } }),
};

/** Reads the NL filter values, which follow the enabled sources (the generated calls may toggle one). */
async function loadFilters(): Promise<void> {
  const { data } = await tenant.api.graphql(`{ availabilityOptions(countryCode: "NL") {
    filters { technologyTypes connectionTypes networks contractTerms bandwidths { download upload } } } }`);
  world.filters = data.availabilityOptions.filters;
}

/** Valid variables of the main mutations, in camelCase as GraphQL takes them. */
const valid: Record<string, () => Record<string, unknown>> = {
  createAvailabilityRequests: () => ({
    input: [
      {
        address: { countryCode: 'NL', postalCode: '1016 XA', houseNumber: '206', houseNumberAddition: 'H' },
        ...world.filters,
        customerId: world.customer,
        projectId: world.project,
      },
      { address: { coordinates: { latitude: 52.36801, longitude: 4.879151 } }, projectId: world.project },
    ],
  }),
  createCustomer: () => ({
    input: {
      name: 'Acme B.V.',
      website: 'https://acme.example',
      preferredCurrency: 'EUR',
      monthlyAvailabilityRequestLimit: 50,
      financialDetails: {
        email: 'billing@acme.example',
        postalCode: '1016 XA',
        countryCode: 'NL',
        vatNumber: 'NL123456789B01',
        bankAccountNumber: 'NL91ABNA0417164300',
        applyVat: true,
        paymentTermDays: 30,
      },
    },
  }),
  createQuote: () => ({
    input: {
      name: 'Head office',
      customerId: world.customer,
      referenceNumber: 'PO-17',
      availabilityRequestProductIds: [world.product],
      instanceProductIds: [world.instanceProduct],
      mandatoryProductIds: [world.mandatoryProduct],
    },
  }),
  createPricePlan: () => ({
    input: {
      name: `Plan ${++planCount}`,
      isDefault: false,
      mrcMarkupPercent: 12.5,
      nrcMarkupPercent: 0,
      rules: [{ network: 'KPN', technologyType: 'FIBER', mrcMarkupPercent: -5.25, nrcMarkupPercent: 100 }],
    },
  }),
};

beforeAll(async () => {
  const unlimited = '100000000';
  server = await startTestServer({
    env: { RATE_LIMIT_PER_TOKEN: unlimited, RATE_LIMIT_PER_INSTANCE: unlimited },
  });
  tenant = await server.tenant({ roles: ['instance_admin', 'connectivity_check'] });
  const { api } = tenant;
  world.customer = (await api.post('/customers', { name: 'Acme' })).body.data.id;
  world.project = (await api.post('/projects', { customer_id: world.customer, name: 'HQ' })).body.data.id;
  world.instanceProduct = (await api.get('/instance-products')).body.data[0].id;
  world.mandatoryProduct = (await api.get('/mandatory-products')).body.data[0].id;
  const catalogue = (await api.graphql('{ pricePlans { id } sources { id } }')).data;
  world.pricePlan = catalogue.pricePlans[0].id;
  world.source = catalogue.sources[0].id;
  const created = await api.post('/availability-requests', [
    { address: { country_code: 'NL', postal_code: '1016XA', house_number: '206' } },
  ]);
  const done = await waitFor(
    () => api.get(`/availability-requests/${created.body.data[0].id}`),
    (response) => response.body.data.status === 'completed' && response.body.data.products.length > 0,
  );
  world.product = done.body.data.products[0].id;
  world.quote = (await api.post('/quotes', { name: 'Later', customer_id: world.customer })).body.data.id;
  // Gathering writes rows in the background; with it stopped, every row a call writes is its own.
  await server.app.worker.stop();
}, 60_000);
afterAll(() => server.close());

describe('GraphQL mutation inputs under random and mutated input', () => {
  const mutations = Object.values(schema.getMutationType()?.getFields() ?? {});

  for (const field of mutations) {
    it(`when ${field.name} gets inputs generated from its argument types, then never an internal error and nothing written on error`, async () => {
      const variables = fc.record(Object.fromEntries(field.args.map((arg) => [arg.name, typed(arg.type)])));
      await fc.assert(
        fc.asyncProperty(variables, async (input) => {
          await check(field, input);
        }),
        { numRuns, examples: (knownCases[field.name] ?? []).map((input) => [input]) },
      );
    });
  }

  for (const [name, build] of Object.entries(valid)) {
    const field = mutations.find((candidate) => candidate.name === name);
    if (!field) throw new Error(`no mutation ${name}`);

    it(`when a valid ${name} input is mutated or replaced by arbitrary JSON, then never an internal error and nothing written on error`, async () => {
      await loadFilters();
      expect(await check(field, build())).toBe(true);
      const inputs = fc.oneof(
        fc.array(mutation, { minLength: 1, maxLength: 3 }).map((changes) => mutate(build(), changes)),
        fc.jsonValue({ maxDepth: 3 }).map((input) => ({ input })),
      );
      await fc.assert(
        fc.asyncProperty(inputs, async (variables) => {
          await check(field, variables);
        }),
        { numRuns },
      );
    });
  }
});
