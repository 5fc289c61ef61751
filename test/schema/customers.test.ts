import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiClient,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';
import { countStoredRows, recordStatements, testStore } from '../helpers/store.js';

const CREATE_CUSTOMER = `mutation ($input: CreateCustomerInput!) {
  createCustomer(input: $input) {
    customer {
      id autoNumber name externalId legalName businessRegistrationNumber website interconnected applyVat
      preferredCurrency monthlyAvailabilityRequestLimit internalNotes agentId networkNameOverride customerRegion
      financialDetails {
        name email street houseNumber houseNumberAddition postalCode city region countryCode vatNumber
        bankAccountNumber applyVat paymentTermDays
      }
      accountManager { firstName lastName }
      pricePlan { name }
    }
  }
}`;

const PAGE = `query ($first: Int, $after: String, $name: String) {
  customers(first: $first, after: $after, filter: { name: $name }) {
    edges { cursor node { id name } }
    pageInfo { hasNextPage hasPreviousPage endCursor }
    totalCount
  }
}`;

const PLAN_FIELDS = `id name isDefault mrcMarkupPercent nrcMarkupPercent
  rules { network technologyType connectionType mrcMarkupPercent nrcMarkupPercent }`;
const PRICE_PLANS = `{ pricePlans { ${PLAN_FIELDS} } }`;
const CREATE_PLAN = `mutation ($input: CreatePricePlanInput!) { createPricePlan(input: $input) { pricePlan { ${PLAN_FIELDS} } } }`;
const ASSIGN = `mutation ($c: ID!, $p: ID!) { assignPricePlan(customerId: $c, pricePlanId: $p) { customer { id pricePlan { name } } } }`;

const address = { countryCode: 'NL', postalCode: '1016XA', houseNumber: '206' };
const admin = ['instance_admin', 'connectivity_check'] as const;

const MUTATIONS = {
  customer: `mutation ($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } } }`,
  project: `mutation ($input: CreateProjectInput!) { createProject(input: $input) { project { id } } }`,
  requests: `mutation ($input: [AvailabilityRequestInput!]!) {
    createAvailabilityRequests(input: $input) { availabilityRequests { id } }
  }`,
};

/** Runs one of the fixture mutations and answers its payload's data. */
async function mutate(api: ApiClient, mutation: keyof typeof MUTATIONS, input: unknown): Promise<Json> {
  const result = await api.graphql(MUTATIONS[mutation], { input });
  if (!result.data) throw new Error(`${mutation} not created: ${JSON.stringify(result.errors)}`);
  return Object.values(result.data)[0];
}
const createCustomer = async (api: ApiClient, input: Record<string, unknown>): Promise<string> =>
  (await mutate(api, 'customer', input)).customer.id;
const createProject = async (api: ApiClient, customerId: string, name: string): Promise<string> =>
  (await mutate(api, 'project', { customerId, name })).project.id;
const createRequests = async (api: ApiClient, input: Record<string, unknown>[]): Promise<string[]> =>
  (await mutate(api, 'requests', input)).availabilityRequests.map((request: Json) => request.id);

/** A price plan as GraphQL answers it. */
const plan = (fields: Record<string, unknown>, rules: unknown[]) => ({
  id: expect.stringMatching(/^ppl_/),
  ...fields,
  rules,
});

/** A price-plan rule as GraphQL answers it. */
const rule = (criteria: Record<string, string>, mrcMarkupPercent: number, nrcMarkupPercent: number) => {
  const any = { network: null, technologyType: null, connectionType: null };
  return { ...any, ...criteria, mrcMarkupPercent, nrcMarkupPercent };
};

describe('customers over GraphQL', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ roles: [...admin] });
  });
  afterAll(() => server.close());

  it('when a customer is created with every field, then it is returned exactly, numbered 00001 on the default plan', async () => {
    const financialDetails = {
      name: 'Acme Finance',
      email: 'billing@acme.example',
      street: 'Lijnbaansgracht',
      houseNumber: '206',
      houseNumberAddition: 'H',
      postalCode: '1016XA',
      city: 'Amsterdam',
      region: 'Noord-Holland',
      countryCode: 'NL',
      vatNumber: 'NL123456789B01',
      bankAccountNumber: 'NL91ABNA0417164300',
      applyVat: true,
      paymentTermDays: 30,
    };
    const input = {
      name: 'Acme B.V.',
      externalId: 'EXT-1',
      legalName: 'Acme Holding B.V.',
      businessRegistrationNumber: '12345678',
      website: 'https://acme.example',
      interconnected: true,
      preferredCurrency: 'EUR',
      monthlyAvailabilityRequestLimit: 50,
      internalNotes: 'Prefers fibre.',
      agentId: 'agent-7',
      networkNameOverride: 'AcmeNet',
      customerRegion: 'Randstad',
    };

    const spacedIban = { ...financialDetails, bankAccountNumber: 'NL91 ABNA 0417 1643 00' };

    const result = await tenant.api.graphql(CREATE_CUSTOMER, {
      input: { ...input, financialDetails: spacedIban },
    });

    expect(result.errors).toBeUndefined();
    expect(result.data.createCustomer.customer).toEqual({
      id: expect.stringMatching(/^cus_/),
      autoNumber: '00001',
      ...input,
      applyVat: true,
      financialDetails,
      accountManager: { firstName: 'API client', lastName: '' },
      pricePlan: { name: 'Standard' },
    });
  });

  it('when the input is invalid, then BAD_USER_INPUT names every field in camelCase and nothing is created', async () => {
    const before = (await tenant.api.graphql(PAGE, { first: 1 })).data.customers.totalCount;

    const details = { email: 'nope', bankAccountNumber: 'NL00 XXXX', countryCode: 'NL', postalCode: '99' };
    const input = { name: ' ', preferredCurrency: 'eur', financialDetails: details };

    const result = await tenant.api.graphql(CREATE_CUSTOMER, { input });

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      problems: [
        { path: '/name', message: 'is required' },
        { path: '/preferredCurrency', message: 'must be an ISO 4217 currency code, e.g. EUR' },
        { path: '/financialDetails/email', message: 'must be an e-mail address' },
        { path: '/financialDetails/bankAccountNumber', message: 'must be a valid IBAN' },
        { path: '/financialDetails/postalCode', message: 'is not a postal code of NL' },
      ],
    });
    expect((await tenant.api.graphql(PAGE, { first: 1 })).data.customers.totalCount).toBe(before);
  });

  it('when 7 matching customers are paged by 3 with a name filter, then 3 pages give each once, by name, case-insensitively', async () => {
    const names =
      'delta Pager,Alpha pager,echo PAGER,Charlie pager,bravo pager,Golf pager,foxtrot pager'.split(',');
    const ids = new Map<string, string>();
    for (const name of names) ids.set(name, await createCustomer(tenant.api, { name }));
    await createCustomer(tenant.api, { name: 'Unrelated B.V.' });

    const pages: Json[] = [];
    let after: string | null = null;
    do {
      const result: Json = await tenant.api.graphql(PAGE, { first: 3, after, name: 'PaGeR' });
      pages.push(result.data.customers);
      after = result.data.customers.pageInfo.hasNextPage ? result.data.customers.pageInfo.endCursor : null;
    } while (after !== null && pages.length < 5);

    const shape = ({ edges, totalCount, pageInfo }: Json) => [edges.length, totalCount, pageInfo.hasNextPage];
    expect(pages.map((page) => [...shape(page), page.pageInfo.hasPreviousPage])).toEqual([
      [3, 7, true, false],
      [3, 7, true, true],
      [1, 7, false, true],
    ]);
    const sorted = [...names].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
    expect(pages.flatMap((page) => page.edges.map((edge: Json) => edge.node))).toEqual(
      sorted.map((name) => ({ id: ids.get(name), name })),
    );
  });

  it('when customers is asked for the last 2, then BAD_USER_INPUT (forward paging only)', async () => {
    const result = await tenant.api.graphql('{ customers(last: 2) { totalCount } }');

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      problems: [{ path: '/last', message: 'customers page forward only: use first and after' }],
    });
  });

  it('when node and customer are asked for a customer’s and a project’s ids, then the owner gets Customer and Project, another instance null', async () => {
    const customer = await createCustomer(tenant.api, { name: 'Node B.V.' });
    const project = await createProject(tenant.api, customer, 'Node project');
    const other = await server.tenant({ roles: [...admin] });
    const query = `query ($c: ID!, $p: ID!) {
      customer(id: $c) { id }
      c: node(id: $c) { __typename id ... on Customer { name } }
      p: node(id: $p) { __typename id ... on Project { name customer { id } } }
    }`;

    const own = await tenant.api.graphql(query, { c: customer, p: project });
    const foreign = await other.api.graphql(query, { c: customer, p: project });

    expect(own).toEqual({
      data: {
        customer: { id: customer },
        c: { __typename: 'Customer', id: customer, name: 'Node B.V.' },
        p: { __typename: 'Project', id: project, name: 'Node project', customer: { id: customer } },
      },
    });
    expect(foreign).toEqual({ data: { customer: null, c: null, p: null } });
  });

  it('when a customer has projects and requests, then its projects and newest-first requests are listed exactly', async () => {
    const customer = await createCustomer(tenant.api, { name: 'Busy B.V.' });
    const other = await createCustomer(tenant.api, { name: 'Quiet B.V.' });
    const first = await createProject(tenant.api, customer, 'Head office');
    server.clock.advance(1_000);
    const second = await createProject(tenant.api, customer, 'Branch');
    const mixed = [
      { address, customerId: customer },
      { address, customerId: other },
    ];
    const [older] = await createRequests(tenant.api, mixed);
    server.clock.advance(1_000);
    const [newer] = await createRequests(tenant.api, [{ address, projectId: second }]);

    const result = await tenant.api.graphql(
      `query ($id: ID!) { customer(id: $id) {
        projects { edges { node { id name } } }
        availabilityRequests(first: 5) { totalCount edges { node { id } } }
      } }`,
      { id: customer },
    );

    expect(result).toEqual({
      data: {
        customer: {
          projects: {
            edges: [{ node: { id: first, name: 'Head office' } }, { node: { id: second, name: 'Branch' } }],
          },
          availabilityRequests: { totalCount: 2, edges: [{ node: { id: newer } }, { node: { id: older } }] },
        },
      },
    });
  });
});

describe('price plans over GraphQL', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('when a connectivity_check-only user asks for price plans, then FORBIDDEN', async () => {
    const user = await server.tenant({ roles: ['connectivity_check'] });

    const result = await user.api.graphql(PRICE_PLANS);

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions).toEqual({ code: 'FORBIDDEN' });
  });

  it('when an instance admin asks for price plans, then the two demo plans come with exact markups and rules', async () => {
    const tenant = await server.tenant({ roles: [...admin] });

    const result = await tenant.api.graphql(PRICE_PLANS);

    expect(result).toEqual({
      data: {
        pricePlans: [
          plan({ name: 'Standard', isDefault: true, mrcMarkupPercent: 25, nrcMarkupPercent: 15 }, [
            rule({ connectionType: 'DIA' }, 30, 20),
            rule({ network: 'KPN' }, 22, 12),
            rule({ network: 'KPN', connectionType: 'DIA' }, 28, 18),
            rule({ technologyType: 'FTTH' }, 18, 10),
            rule({ network: 'Ziggo', technologyType: 'FIBER', connectionType: 'SHARED' }, 20, 0),
          ]),
          plan({ name: 'Partner', isDefault: false, mrcMarkupPercent: 12.5, nrcMarkupPercent: 5 }, [
            rule({ connectionType: 'DIA' }, 15, 7.5),
            rule({ network: 'KPN', connectionType: 'DIA' }, 14, 6),
          ]),
        ],
      },
    });
  });

  it('when a plan with rules is created, then it is returned and listed exactly; its name again is a CONFLICT', async () => {
    const tenant = await server.tenant({ roles: [...admin] });
    const input = {
      name: 'Enterprise',
      mrcMarkupPercent: 33.33,
      nrcMarkupPercent: 0,
      rules: [
        { network: 'Colt', mrcMarkupPercent: 40, nrcMarkupPercent: 10.05 },
        { technologyType: 'FIBER', connectionType: 'DIA', mrcMarkupPercent: -12.5, nrcMarkupPercent: -100 },
      ],
    };

    const created = await tenant.api.graphql(CREATE_PLAN, { input });
    const again = await tenant.api.graphql(CREATE_PLAN, { input: { ...input, rules: [] } });

    const enterprise = plan(
      { name: 'Enterprise', isDefault: false, mrcMarkupPercent: 33.33, nrcMarkupPercent: 0 },
      [
        rule({ network: 'Colt' }, 40, 10.05),
        rule({ technologyType: 'FIBER', connectionType: 'DIA' }, -12.5, -100),
      ],
    );
    expect(created).toEqual({ data: { createPricePlan: { pricePlan: enterprise } } });
    const listed = (await tenant.api.graphql(PRICE_PLANS)).data.pricePlans;
    expect(listed.map((p: Json) => p.name)).toEqual(['Standard', 'Enterprise', 'Partner']);
    expect(listed[1]).toEqual({ ...enterprise, id: created.data.createPricePlan.pricePlan.id });
    expect(again.data).toBeNull();
    expect(again.errors?.[0]?.extensions).toEqual({ code: 'CONFLICT' });
  });

  it('when a markup has three decimals, then BAD_USER_INPUT names it', async () => {
    const tenant = await server.tenant({ roles: [...admin] });

    const odd = { network: 'KPN', mrcMarkupPercent: 1.234, nrcMarkupPercent: 0 };
    const input = { name: 'Odd', mrcMarkupPercent: 10, nrcMarkupPercent: 0, rules: [odd] };

    const result = await tenant.api.graphql(CREATE_PLAN, { input });

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      problems: [{ path: '/rules/0/mrcMarkupPercent', message: 'at most two decimals' }],
    });
  });

  it('when a plan is created as default, then it takes the default over and new customers get it', async () => {
    const tenant = await server.tenant({ roles: [...admin] });
    const before = await createCustomer(tenant.api, { name: 'Early B.V.' });

    const wholesale = { name: 'Wholesale', isDefault: true, mrcMarkupPercent: 5, nrcMarkupPercent: 0 };
    await tenant.api.graphql(CREATE_PLAN, { input: wholesale });
    const after = await createCustomer(tenant.api, { name: 'Late B.V.' });

    const plans = (await tenant.api.graphql(PRICE_PLANS)).data.pricePlans;
    expect(plans.map((p: Json) => [p.name, p.isDefault])).toEqual([
      ['Wholesale', true],
      ['Partner', false],
      ['Standard', false],
    ]);
    const customers = await tenant.api.graphql(
      'query ($a: ID!, $b: ID!) { a: customer(id: $a) { pricePlan { name } } b: customer(id: $b) { pricePlan { name } } }',
      { a: before, b: after },
    );
    expect(customers).toEqual({
      data: { a: { pricePlan: { name: 'Standard' } }, b: { pricePlan: { name: 'Wholesale' } } },
    });
  });

  it('when assignPricePlan names another instance’s plan or customer, then NOT_FOUND and nothing changes', async () => {
    const tenant = await server.tenant({ roles: [...admin] });
    const other = await server.tenant({ roles: [...admin] });
    const customer = await createCustomer(tenant.api, { name: 'Mine B.V.' });
    const foreignCustomer = await createCustomer(other.api, { name: 'Theirs B.V.' });
    const ownPartner = (await tenant.api.graphql(PRICE_PLANS)).data.pricePlans[1].id;
    const foreignPartner = (await other.api.graphql(PRICE_PLANS)).data.pricePlans[1].id;

    const foreignPlan = await tenant.api.graphql(ASSIGN, { c: customer, p: foreignPartner });
    const foreignCustomerResult = await tenant.api.graphql(ASSIGN, { c: foreignCustomer, p: ownPartner });

    const error = (result: Json) => [
      result.data,
      result.errors?.[0]?.extensions.code,
      result.errors?.[0]?.message,
    ];
    expect(error(foreignPlan)).toEqual([null, 'NOT_FOUND', `Price plan "${foreignPartner}" was not found.`]);
    expect(error(foreignCustomerResult)).toEqual([
      null,
      'NOT_FOUND',
      `Customer "${foreignCustomer}" was not found.`,
    ]);
    const planOf = (api: ApiClient, id: string) =>
      api.graphql(`{ customer(id: "${id}") { pricePlan { name } } }`);
    const plans = await Promise.all([planOf(tenant.api, customer), planOf(other.api, foreignCustomer)]);
    expect(plans.map((r) => r.data.customer.pricePlan.name)).toEqual(['Standard', 'Standard']);
  });
});

describe('customers query without N+1', () => {
  let server: TestServer;
  const tenants = new Map<number, TestTenant>();

  const NESTED = `{ customers(first: 10) { edges { node {
    pricePlan { name }
    projects { edges { node { id customer { id } } } }
    availabilityRequests(first: 3) { totalCount edges { node { id products { id } sources { name } } } }
  } } } }`;

  beforeAll(async () => {
    server = await startTestServer();
    for (const size of [5, 10]) {
      const tenant = await server.tenant({ roles: [...admin] });
      for (let index = 0; index < size; index += 1) {
        const customer = await createCustomer(tenant.api, { name: `Customer ${index}` });
        const project = await createProject(tenant.api, customer, 'First');
        await createProject(tenant.api, customer, 'Second');
        await createRequests(tenant.api, [
          { address, customerId: customer },
          { address, projectId: project },
        ]);
      }
      tenants.set(size, tenant);
    }
    const { db } = server.app.services;
    const pending = async () =>
      (await countStoredRows(db, 'availabilityRequests')) -
      (await countStoredRows(db, 'availabilityRequests', { status: 'completed' }));
    await waitFor(pending, (count) => count === 0);
    // The idle worker polls the queue; stopped, it cannot add statements to the count.
    await server.app.worker.stop();
  });
  afterAll(() => server.close());

  /** Runs the nested query for a tenant and counts the SQL statements executed meanwhile. */
  async function countStatements(size: number): Promise<{ result: Json; statements: number }> {
    const { result, sql } = await recordStatements(server.app.services.db, async () =>
      tenants.get(size)?.api.graphql(NESTED),
    );
    return { result, statements: sql.length };
  }

  it('when 5 and 10 customers with 2 projects and 2 requests each are listed with nested fields, then the SQL count is small and the same', async () => {
    const five = await countStatements(5);
    const ten = await countStatements(10);

    const id = { id: expect.any(String) };
    const request = {
      node: {
        ...id,
        products: expect.arrayContaining([id]),
        sources: expect.arrayContaining([{ name: 'KPN WBA' }]),
      },
    };
    const project = { node: { ...id, customer: id } };
    const node = {
      pricePlan: { name: 'Standard' },
      projects: { edges: [project, project] },
      availabilityRequests: { totalCount: 2, edges: [request, request] },
    };
    expect(five.result).toEqual({ data: { customers: { edges: Array(5).fill({ node }) } } });
    expect(ten.result).toEqual({ data: { customers: { edges: Array(10).fill({ node }) } } });
    // An N+1 would cost at least one statement per customer (10 or 20 more for the larger tenant). On SQLite
    // every load of a tick answers at once, so the counts are equal; on PostgreSQL two parents answered in
    // different round trips may split one child batch in two, whatever the number of customers.
    if (testStore === 'sqlite') expect(ten.statements).toBe(five.statements);
    expect(five.statements).toBeLessThanOrEqual(14);
    expect(ten.statements).toBeLessThanOrEqual(14);
  });
});
