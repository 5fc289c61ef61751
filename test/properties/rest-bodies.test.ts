import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/rest/routes.js';
import {
  type ApiClient,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';
import { countEveryTable } from '../helpers/store.js';

/**
 * Property-based tests of every REST body: arbitrary JSON and mutations of a valid body never give a 5xx,
 * every error is problem+json (the ApiClient checks), and an error writes no row anywhere.
 */

const numRuns = 60;

/** Strings a JSON text turns into the numbers `JSON.parse` reads as ±Infinity (JSON.stringify cannot). */
const INFINITY = '__json_1e999__';
const MINUS_INFINITY = '__json_-1e999__';

/** The JSON text of a body; `undefined` (a dropped root) becomes an empty body. */
const serialise = (body: unknown): string =>
  (JSON.stringify(body) ?? '')
    .replaceAll(`"${INFINITY}"`, '1e999')
    .replaceAll(`"${MINUS_INFINITY}"`, '-1e999');

const nested = (depth: number): unknown => (depth === 0 ? [] : [nested(depth - 1)]);

/** Values that break naive parsing: wrong types, extreme numbers, hostile and huge strings, deep arrays. */
const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -0,
    -1,
    -1e308,
    1e308,
    2 ** 53 + 2,
    5e-324,
    0.1,
    INFINITY,
    MINUS_INFINITY,
  ),
  fc.constantFrom(
    '',
    '   ',
    'NaN',
    '-Infinity',
    '1e999',
    '-1',
    '\u0000',
    '\uD800',
    '\u202Eevil',
    'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
    '🇳🇱👩‍👩‍👧‍👦',
    "'; DROP TABLE customers; --",
    '%_\\',
    'x'.repeat(100_000),
    '€'.repeat(400_000),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer({ min: 1, max: 200 }).map(nested),
);

/** One change to a body: at the `at`-th value (root included, depth first). */
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
    fc.constantFrom('__proto__', 'constructor', 'id', 'instance_id', 'customerId', 'auto_number', ''),
  ),
  value: oddValue,
});

/** Every place a value sits in `holder.body`, as parent and key. */
function places(value: unknown, parent: Json, key: string | number, into: [Json, string | number][] = []) {
  into.push([parent, key]);
  if (value !== null && typeof value === 'object') {
    for (const [inner, child] of Object.entries(value)) {
      places(child, value, Array.isArray(value) ? Number(inner) : inner, into);
    }
  }
  return into;
}

/** A valid body with the mutations applied in turn. */
function mutate(valid: unknown, mutations: Mutation[]): unknown {
  const holder: Json = { body: structuredClone(valid) };
  for (const { op, at, key, value } of mutations) {
    const all = places(holder.body, holder, 'body');
    const [parent, slot] = all[at % all.length] ?? [holder, 'body'];
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
  return holder.body;
}

/** Rows in every table of the database. */
function rowCounts(server: TestServer): Promise<Record<string, number>> {
  return countEveryTable(server.app.services.db);
}

/** A POST route as the properties drive it: where to send, as whom, what succeeds, and valid bodies. */
interface BodyFixture {
  path: () => string;
  api: () => ApiClient;
  success: number;
  valid: () => unknown[];
}

let server: TestServer;
let tenant: TestTenant;
const world: Json = {};

const fixtures: Record<string, BodyFixture> = {
  'POST /authentication': {
    path: () => '/authentication',
    api: () => server.anonymous,
    success: 200,
    valid: () => [{ client_id: tenant.clientId, client_secret: tenant.clientSecret }],
  },
  'POST /availability-requests': {
    path: () => '/availability-requests',
    api: () => tenant.api,
    success: 201,
    valid: () => [
      [
        {
          address: {
            country_code: 'NL',
            street: 'Lijnbaansgracht',
            city: 'Amsterdam',
            house_number: '206',
            house_number_addition: 'H',
            postal_code: '1016 XA',
          },
          ...world.filters,
          customer_id: world.customer,
          project_id: world.project,
        },
        { address: { coordinates: { latitude: 52.36801, longitude: 4.879151 } }, project_id: world.project },
      ],
    ],
  },
  'POST /customers': {
    path: () => '/customers',
    api: () => tenant.api,
    success: 201,
    valid: () => [
      {
        name: 'Acme B.V.',
        external_id: 'EXT-1',
        website: 'https://acme.example',
        interconnected: true,
        preferred_currency: 'EUR',
        monthly_availability_request_limit: 50,
        financial_details: {
          email: 'billing@acme.example',
          postal_code: '1016 XA',
          country_code: 'NL',
          vat_number: 'NL123456789B01',
          bank_account_number: 'NL91ABNA0417164300',
          apply_vat: true,
          payment_term_days: 30,
        },
      },
    ],
  },
  'POST /projects': {
    path: () => '/projects',
    api: () => tenant.api,
    success: 201,
    valid: () => [{ customer_id: world.customer, name: 'Head office' }],
  },
  'POST /quotes': {
    path: () => '/quotes',
    api: () => tenant.api,
    success: 201,
    valid: () => [
      {
        name: 'Head office',
        customer_id: world.customer,
        reference_number: 'PO-17',
        availability_request_product_ids: [world.product],
        instance_product_ids: [world.instanceProduct],
        mandatory_product_ids: [world.mandatoryProduct],
      },
    ],
  },
  'POST /orders': {
    path: () => '/orders',
    api: () => tenant.api,
    success: 201,
    // One order per quote: the first valid body places it, later ones are refused (409) and write nothing.
    valid: () => [
      {
        quote_id: world.orderQuote,
        requested_completion_date: '2031-01-15T09:00:00+00:00',
        contact: { name: 'Acme NOC', email_address: 'noc@acme.example', number: '+31 20 555 0100' },
      },
    ],
  },
  'POST /orders/:id/cancel': {
    path: () => `/orders/${world.cancelOrder}/cancel`,
    api: () => tenant.api,
    success: 202,
    // The first valid body cancels the order; later ones are refused (409) and write nothing.
    valid: () => [{ reason: 'The customer moved offices.' }],
  },
  'POST /quotes/:id/products': {
    path: () => `/quotes/${world.quote}/products`,
    api: () => tenant.api,
    success: 200,
    valid: () => [
      {
        availability_request_product_ids: [world.product],
        instance_product_ids: [world.instanceProduct],
        mandatory_product_ids: [world.mandatoryProduct],
      },
    ],
  },
};

/** Sends one body and checks the outcome: no 5xx; an error writes nothing; a success has the route's status. */
async function check(fixture: BodyFixture, body: unknown | { raw: string }): Promise<number> {
  const raw = typeof body === 'object' && body !== null && 'raw' in body ? String(body.raw) : serialise(body);
  const before = await rowCounts(server);
  const response = await fixture
    .api()
    .request('POST', fixture.path(), { raw, headers: { 'content-type': 'application/json' } });
  expect(response.status).toBeLessThan(500);
  if (response.status >= 400) expect(await rowCounts(server)).toEqual(before);
  else expect(response.status).toBe(fixture.success);
  return response.status;
}

beforeAll(async () => {
  const unlimited = '100000000';
  server = await startTestServer({
    env: {
      RATE_LIMIT_PER_TOKEN: unlimited,
      RATE_LIMIT_PER_INSTANCE: unlimited,
      RATE_LIMIT_PER_ANONYMOUS_ADDRESS: unlimited,
    },
  });
  tenant = await server.tenant({ roles: ['instance_admin', 'connectivity_check'] });
  const { api } = tenant;
  world.customer = (await api.post('/customers', { name: 'Acme' })).body.data.id;
  world.project = (await api.post('/projects', { customer_id: world.customer, name: 'HQ' })).body.data.id;
  world.instanceProduct = (await api.get('/instance-products')).body.data[0].id;
  world.mandatoryProduct = (await api.get('/mandatory-products')).body.data[0].id;
  const options = (await api.get('/availability-requests/options?country_code=NL')).body.data.filters.filters;
  world.filters = options;
  const created = await api.post('/availability-requests', [
    { address: { country_code: 'NL', postal_code: '1016XA', house_number: '206' } },
  ]);
  const done = await waitFor(
    () => api.get(`/availability-requests/${created.body.data[0].id}`),
    (response) => response.body.data.status === 'completed' && response.body.data.products.length > 0,
  );
  world.product = done.body.data.products[0].id;
  world.quote = (await api.post('/quotes', { name: 'Later', customer_id: world.customer })).body.data.id;
  world.orderQuote = (
    await api.post('/quotes', {
      name: 'To order',
      customer_id: world.customer,
      instance_product_ids: [world.instanceProduct],
    })
  ).body.data.id;
  const cancelQuote = (
    await api.post('/quotes', {
      name: 'To cancel',
      customer_id: world.customer,
      instance_product_ids: [world.instanceProduct],
    })
  ).body.data.id;
  world.cancelOrder = (await api.post('/orders', { quote_id: cancelQuote })).body.data.id;
  // Gathering writes rows in the background; with it stopped, every row a request writes is its own.
  await server.app.worker.stop();
}, 60_000);
afterAll(() => server.close());

describe('REST bodies under random and mutated input', () => {
  const posts = routes.filter((route) => route.method === 'POST' && route.body);

  it('when the route table is read, then every POST body has a property fixture', () => {
    expect(posts.map((route) => `${route.method} ${route.path}`).sort()).toEqual(
      Object.keys(fixtures).sort(),
    );
  });

  for (const [key, fixture] of Object.entries(fixtures)) {
    it(`when ${key} gets arbitrary JSON or non-JSON, then never a 5xx and nothing is written on error`, async () => {
      const text = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 60 }).map((raw) => ({ raw })),
        fc.constantFrom('{', '[1,]', '{"a":1}{', 'NaN', '\uFEFF{}', '{"a":1e999}').map((raw) => ({ raw })),
      );
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.anything({ maxDepth: 3 }), text), async (body) => {
          await check(fixture, body);
        }),
        { numRuns },
      );
    });

    it(`when a valid ${key} body is mutated, then never a 5xx and nothing is written on error`, async () => {
      for (const body of fixture.valid()) expect(await check(fixture, body)).toBe(fixture.success);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...fixture.valid()),
          fc.array(mutation, { minLength: 1, maxLength: 3 }),
          async (valid, mutations) => {
            await check(fixture, mutate(valid, mutations));
          },
        ),
        { numRuns },
      );
    });
  }
});
