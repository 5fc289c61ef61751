import { type GraphQLInputType, type GraphQLObjectType, getNamedType, isInputObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IdKind, newId } from '../../src/ids.js';
import { schema } from '../../src/schema/index.js';
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
 * Tenant isolation of the GraphQL schema, generated from its root fields: every `ID` a query or mutation
 * takes (argument or input field, alone or in a list) is given another instance's id, and the answer must
 * be exactly what a well-formed id nobody has gets, with nothing written and the other instance's
 * objects unchanged.
 */

/** The objects of one instance the fixtures refer to, by id kind. */
type Objects = Partial<Record<IdKind, string>>;

/** An operation B runs with `id` in one slot and its own valid objects everywhere else. */
interface IdCheck {
  /** The kind of A's object put in the slot. */
  kind: IdKind;
  /**
   * `null`: the field answers null; `{ data }`: exactly that data, no error (a list filtered by the id);
   * otherwise the `extensions.code` of its one error.
   */
  expects: null | 'NOT_FOUND' | 'BAD_USER_INPUT' | { data: unknown };
  operation(id: string, own: Objects): { query: string; variables: Record<string, unknown> };
}

const address = { countryCode: 'NL', postalCode: '1016XA', houseNumber: '206' };

const read = (field: string, selection: string, kind: IdKind): IdCheck => ({
  kind,
  expects: null,
  operation: (id) => ({
    query: `query ($id: ID!) { ${field}(id: $id) { ${selection} } }`,
    variables: { id },
  }),
});

const CREATE_REQUESTS = `mutation ($input: [AvailabilityRequestInput!]!) {
  createAvailabilityRequests(input: $input) { availabilityRequests { id } } }`;
const CREATE_QUOTE = `mutation ($input: CreateQuoteInput!) { createQuote(input: $input) { quote { id } } }`;
const ADD_PRODUCTS = `mutation ($input: AddQuoteProductsInput!) { addQuoteProducts(input: $input) { quote { id } } }`;
const PLACE_ORDER = `mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { order { id } } }`;
const MOVE_LINE = `mutation ($input: UpdateManualOrderLineInput!) {
  updateManualOrderLine(input: $input) { order { id } } }`;
const RESPOND = `mutation ($input: RespondToChargeInput!) { respondToCharge(input: $input) { order { id } } }`;
const CANCEL = `mutation ($input: CancelOrderInput!) { cancelOrder(input: $input) { order { id } } }`;
const RESPOND_CANCELLATION = `mutation ($input: RespondToCancellationChargeInput!) {
  respondToCancellationCharge(input: $input) { order { id } } }`;
const ASSIGN = `mutation ($c: ID!, $p: ID!) { assignPricePlan(customerId: $c, pricePlanId: $p) { customer { id } } }`;

const productLists = [
  ['availabilityRequestProductIds', 'availabilityRequestProduct'],
  ['instanceProductIds', 'instanceProduct'],
  ['mandatoryProductIds', 'mandatoryProduct'],
] as const;

/** One entry per id-taking slot (`field(arg.inputField)`); a slot missing here fails the suite. */
const fixtures: Record<string, IdCheck[]> = {
  'availabilityRequest(id)': [read('availabilityRequest', 'id status', 'availabilityRequest')],
  'customer(id)': [read('customer', 'id name', 'customer')],
  'quote(id)': [read('quote', 'id name', 'quote')],
  'order(id)': [read('order', 'id status', 'order')],
  'orders(customerId)': [
    {
      kind: 'customer',
      expects: { data: { orders: { totalCount: 0, edges: [] } } },
      operation: (id) => ({
        query: 'query ($id: ID!) { orders(first: 5, customerId: $id) { totalCount edges { node { id } } } }',
        variables: { id },
      }),
    },
  ],
  'placeOrder(input.quoteId)': [
    {
      kind: 'quote',
      expects: 'BAD_USER_INPUT',
      operation: (id) => ({ query: PLACE_ORDER, variables: { input: { quoteId: id } } }),
    },
  ],
  'cancelOrder(input.orderId)': [
    {
      kind: 'order',
      expects: 'NOT_FOUND',
      operation: (id) => ({ query: CANCEL, variables: { input: { orderId: id, reason: 'Moved.' } } }),
    },
  ],
  ...Object.fromEntries(
    (
      [
        ['orderId', 'order'],
        // A charge id is the seller's; A's order id stands in for an id of A's.
        ['chargeId', 'order'],
      ] as const
    ).map(([field, kind]) => [
      `respondToCancellationCharge(input.${field})`,
      [
        {
          kind,
          expects: 'NOT_FOUND' as const,
          operation: (id: string, own: Objects) => ({
            query: RESPOND_CANCELLATION,
            variables: { input: { orderId: own.order, chargeId: 'chg-1', accept: true, [field]: id } },
          }),
        },
      ],
    ]),
  ),
  'updateManualOrderLine(input.orderId)': [
    {
      kind: 'order',
      expects: 'NOT_FOUND',
      operation: (id, own) => ({
        query: MOVE_LINE,
        variables: { input: { orderId: id, lineId: own.orderLine, status: 'COMPLETED' } },
      }),
    },
  ],
  'updateManualOrderLine(input.lineId)': [
    {
      kind: 'orderLine',
      expects: 'NOT_FOUND',
      operation: (id, own) => ({
        query: MOVE_LINE,
        variables: { input: { orderId: own.order, lineId: id, status: 'COMPLETED' } },
      }),
    },
  ],
  ...Object.fromEntries(
    (
      [
        ['orderId', 'order'],
        ['lineId', 'orderLine'],
        // A charge id is the seller's; A's order id stands in for an id of A's.
        ['chargeId', 'order'],
      ] as const
    ).map(([field, kind]) => [
      `respondToCharge(input.${field})`,
      [
        {
          kind,
          expects: 'NOT_FOUND' as const,
          operation: (id: string, own: Objects) => ({
            query: RESPOND,
            variables: {
              input: {
                orderId: own.order,
                lineId: own.orderLine,
                chargeId: 'chg-1',
                accept: true,
                [field]: id,
              },
            },
          }),
        },
      ],
    ]),
  ),
  'node(id)': (['availabilityRequest', 'customer', 'project', 'quote', 'order', 'orderLine'] as const).map(
    (kind) => read('node', 'id __typename', kind),
  ),
  'createAvailabilityRequests(input.customerId)': [
    {
      kind: 'customer',
      expects: 'BAD_USER_INPUT',
      operation: (id) => ({ query: CREATE_REQUESTS, variables: { input: [{ address, customerId: id }] } }),
    },
  ],
  'createAvailabilityRequests(input.projectId)': [
    {
      kind: 'project',
      expects: 'BAD_USER_INPUT',
      operation: (id) => ({ query: CREATE_REQUESTS, variables: { input: [{ address, projectId: id }] } }),
    },
  ],
  'createProject(input.customerId)': [
    {
      kind: 'customer',
      expects: 'BAD_USER_INPUT',
      operation: (id) => ({
        query: `mutation ($input: CreateProjectInput!) { createProject(input: $input) { project { id } } }`,
        variables: { input: { customerId: id, name: 'Hijack' } },
      }),
    },
  ],
  'createQuote(input.customerId)': [
    {
      kind: 'customer',
      expects: 'BAD_USER_INPUT',
      operation: (id) => ({ query: CREATE_QUOTE, variables: { input: { name: 'Hijack', customerId: id } } }),
    },
  ],
  ...Object.fromEntries(
    productLists.flatMap(([field, kind]) => [
      [
        `createQuote(input.${field})`,
        [
          {
            kind,
            expects: 'BAD_USER_INPUT',
            operation: (id: string, own: Objects) => ({
              query: CREATE_QUOTE,
              variables: { input: { name: 'Hijack', customerId: own.customer, [field]: [id] } },
            }),
          },
        ],
      ],
      [
        `addQuoteProducts(input.${field})`,
        [
          {
            kind,
            expects: 'BAD_USER_INPUT',
            operation: (id: string, own: Objects) => ({
              query: ADD_PRODUCTS,
              variables: { input: { quoteId: own.quote, [field]: [id] } },
            }),
          },
        ],
      ],
    ]),
  ),
  'addQuoteProducts(input.quoteId)': [
    {
      kind: 'quote',
      expects: 'NOT_FOUND',
      operation: (id) => ({ query: ADD_PRODUCTS, variables: { input: { quoteId: id } } }),
    },
  ],
  'assignPricePlan(customerId)': [
    {
      kind: 'customer',
      expects: 'NOT_FOUND',
      operation: (id, own) => ({ query: ASSIGN, variables: { c: id, p: own.pricePlan } }),
    },
  ],
  'assignPricePlan(pricePlanId)': [
    {
      kind: 'pricePlan',
      expects: 'NOT_FOUND',
      operation: (id, own) => ({ query: ASSIGN, variables: { c: own.customer, p: id } }),
    },
  ],
  'setSourceEnabled(id)': [
    {
      kind: 'source',
      expects: 'NOT_FOUND',
      operation: (id) => ({
        query: 'mutation ($id: ID!) { setSourceEnabled(id: $id, enabled: false) { source { id } } }',
        variables: { id },
      }),
    },
  ],
  'updateSonataSource(id)': [
    {
      kind: 'source',
      expects: 'NOT_FOUND',
      operation: (id) => ({
        query: `mutation ($id: ID!, $sonata: SonataSettingsInput!) {
          updateSonataSource(id: $id, sonata: $sonata) { source { id } } }`,
        variables: {
          id,
          sonata: {
            baseUrl: 'https://sonata.hijack.example',
            oauth2: { tokenUrl: 'https://sonata.hijack.example/token', clientId: 'x', clientSecret: 'x' },
            buyerContact: { name: 'X', emailAddress: 'x@hijack.example', number: '1' },
            productOfferings: [
              {
                productOfferingId: 'x',
                technologyType: 'FIBER',
                connectionType: 'DIA',
                bandwidths: [{ download: 1000, upload: 1000 }],
                contractTerms: [12],
              },
            ],
            interaction: 'INSTANT',
          },
        },
      }),
    },
  ],
  'updateInstanceProduct(id)': (['instanceProduct', 'mandatoryProduct'] as const).map((kind) => ({
    kind,
    expects: 'NOT_FOUND' as const,
    operation: (id: string) => ({
      query: `mutation ($id: ID!) { updateInstanceProduct(id: $id, input: { name: "Hijacked", mrc: 0 }) {
        product { id } } }`,
      variables: { id },
    }),
  })),
};

/** Paths below `path` where `type` holds an ID: the type itself, or fields of input objects, at any depth. */
function idPaths(type: GraphQLInputType, path: string, seen: ReadonlySet<string> = new Set()): string[] {
  const named = getNamedType(type);
  if (named.name === 'ID') return [path];
  if (!isInputObjectType(named) || seen.has(named.name)) return [];
  return Object.values(named.getFields()).flatMap((field) =>
    idPaths(field.type, `${path}.${field.name}`, new Set([...seen, named.name])),
  );
}

/** Every id-taking slot of the query and mutation roots, as `field(arg.inputField)`. */
function idSlots(): string[] {
  const roots = [schema.getQueryType(), schema.getMutationType()].filter(
    (root): root is GraphQLObjectType => root !== null && root !== undefined,
  );
  return roots.flatMap((root) =>
    Object.values(root.getFields()).flatMap((field) =>
      field.args.flatMap((arg) => idPaths(arg.type, arg.name).map((path) => `${field.name}(${path})`)),
    ),
  );
}

/** Rows in every table of the database. */
function rowCounts(server: TestServer): Promise<Record<string, number>> {
  return countEveryTable(server.app.services.db);
}

/** A document with one id replaced by a placeholder, to compare answers about different ids. */
const withoutId = (document: unknown, id: string): unknown =>
  JSON.parse(JSON.stringify(document).replaceAll(id, '<id>'));

/** Everything of A's that a check could touch, as A reads it. */
const SNAPSHOT = `query ($request: ID!, $customer: ID!, $project: ID!, $quote: ID!, $order: ID!, $n: Int) {
  availabilityRequest(id: $request) { id status products { id mrc nrc } sources { sourceId status } }
  customer(id: $customer) {
    id name pricePlan { id } projects(first: $n) { edges { node { id name } } }
    availabilityRequests(first: $n) { totalCount }
  }
  node(id: $project) { ... on Project { id name customer { id } } }
  quote(id: $quote) { id name totalProducts totalMrc products { productId mrc nrc } }
  pricePlans { id name isDefault mrcMarkupPercent nrcMarkupPercent }
  sources { id enabled }
  instanceProducts { id name description mrc nrc }
  mandatoryProducts { id name description mrc nrc }
  customers(first: $n) { totalCount }
  quotes(first: $n) { totalCount }
  order(id: $order) { id status lines { id status note } }
  orders(first: $n) { totalCount }
}`;

const roles = ['instance_admin', 'connectivity_check'] as const;

let server: TestServer;
let a: TestTenant;
let b: TestTenant;
const ofA: Objects = {};
const ofB: Objects = {};

async function snapshotOfA(): Promise<Json> {
  const { availabilityRequest: request, customer, project, quote, order } = ofA;
  const result = await a.api.graphql(SNAPSHOT, { request, customer, project, quote, order, n: 100 });
  if (result.errors) throw new Error(`snapshot failed: ${JSON.stringify(result.errors)}`);
  return result.data;
}

/** Objects of every kind in one instance, made over REST; for A also a completed request with products. */
async function populate(tenant: TestTenant, into: Objects, gather: boolean): Promise<void> {
  const api: ApiClient = tenant.api;
  into.customer = (await api.post('/customers', { name: 'Acme' })).body.data.id;
  into.project = (await api.post('/projects', { customer_id: into.customer, name: 'HQ' })).body.data.id;
  into.instanceProduct = (await api.get('/instance-products')).body.data[0].id;
  into.mandatoryProduct = (await api.get('/mandatory-products')).body.data[0].id;
  const catalogue = (await api.graphql('{ pricePlans { id isDefault } sources { id } }')).data;
  into.pricePlan = catalogue.pricePlans.find((plan: Json) => !plan.isDefault).id;
  into.source = catalogue.sources[0].id;
  if (gather) {
    const created = await api.post('/availability-requests', [
      {
        address: { country_code: 'NL', postal_code: '1016XA', house_number: '206' },
        project_id: into.project,
      },
    ]);
    into.availabilityRequest = created.body.data[0].id;
    const done = await waitFor(
      () => api.get(`/availability-requests/${into.availabilityRequest}`),
      (response) => response.body.data.status === 'completed' && response.body.data.products.length > 0,
    );
    into.availabilityRequestProduct = done.body.data.products[0].id;
  }
  const quote = await api.post('/quotes', {
    name: 'Offer',
    customer_id: into.customer,
    instance_product_ids: [into.instanceProduct],
    ...(gather ? { availability_request_product_ids: [into.availabilityRequestProduct] } : {}),
  });
  into.quote = quote.body.data.id;
  const order = (await api.post('/orders', { quote_id: into.quote })).body.data;
  into.order = order.id;
  into.orderLine = order.lines.find((line: Json) => line.fulfilment === 'manual').id;
}

beforeAll(async () => {
  server = await startTestServer();
  [a, b] = await Promise.all([server.tenant({ roles: [...roles] }), server.tenant({ roles: [...roles] })]);
  await Promise.all([populate(a, ofA, true), populate(b, ofB, false)]);
}, 60_000);
afterAll(() => server.close());

describe('GraphQL tenant isolation', () => {
  it('when the query and mutation roots are walked for ID arguments, then every id-taking field has a fixture', () => {
    expect(idSlots().sort()).toEqual(Object.keys(fixtures).sort());
  });

  const cases = Object.entries(fixtures).flatMap(([slot, checks]) =>
    checks.map((check) => ({ name: `${slot} with A’s ${check.kind}`, check })),
  );

  for (const { name, check } of cases) {
    it(`when B runs ${name}, then it gets exactly what an unknown id gets and A’s objects are unchanged`, async () => {
      const foreignId = ofA[check.kind];
      if (!foreignId) throw new Error(`the fixture world has no ${check.kind} of A`);
      const unknownId = newId(check.kind);
      const run = (id: string) => {
        const { query, variables } = check.operation(id, ofB);
        return b.api.graphql(query, variables);
      };
      const before = { rows: await rowCounts(server), objects: await snapshotOfA() };

      const unknown = await run(unknownId);
      const foreign = await run(foreignId);

      expect({ rows: await rowCounts(server), objects: await snapshotOfA() }).toEqual(before);
      if (check.expects === null) {
        expect(unknown.errors).toBeUndefined();
        expect(Object.values(unknown.data ?? {})).toEqual([null]);
      } else if (typeof check.expects === 'object') {
        expect(unknown.errors).toBeUndefined();
        expect(unknown.data).toEqual(check.expects.data);
      } else {
        expect(unknown.errors?.map((error: Json) => error.extensions?.code)).toEqual([check.expects]);
      }
      expect(withoutId(foreign, foreignId)).toEqual(withoutId(unknown, unknownId));
    });
  }
});
