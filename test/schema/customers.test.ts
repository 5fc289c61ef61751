import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { address, admin, createCustomer, createProject, createRequests } from './customers-fixtures.js';

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
