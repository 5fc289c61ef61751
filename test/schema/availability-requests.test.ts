import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiClient,
  contractExampleBatch,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';

type Product = { network: string; technologyType: string; connectionType: string; contractTerm: number };
type Money = { mrc: number; nrc: number };
type Source = { name: string; network: string; status: string; attempts: number; productCount: number };

interface RequestNode {
  id: string;
  status: string;
  networksProgressPercentage: number;
  address: Record<string, unknown>;
  filters: { networks: string[]; contractTerms: number[] };
  products: (Product & Money)[];
  sources: Source[];
}

interface Connection {
  edges: { cursor: string; node: { id: string } }[];
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  totalCount: number;
}

type Paged = { data?: { availabilityRequests: Connection } };

const NL_NETWORKS = ['Colt', 'Eurofiber', 'KPN', 'Tele2', 'Zayo', 'Ziggo'];
const NL_TECHNOLOGY_TYPES = ['ADSL', 'BVDSL', 'COPPER', 'FIBER', 'FTTH', 'VDSL', 'VPLUS'];
const NL_CONTRACT_TERMS = [12, 24, 36, 48, 60];

const OPTIONS = `query ($countryCode: String!) {
  availabilityOptions(countryCode: $countryCode) {
    countryCode
    fields { countryCode key name required regex }
    filters { networks technologyTypes connectionTypes contractTerms }
  }
}`;

const CREATE = `mutation ($input: [AvailabilityRequestInput!]!) {
  createAvailabilityRequests(input: $input) {
    message
    availabilityRequests { id status address { postalCode coordinates { latitude longitude } } }
  }
}`;

const REQUEST = `query ($id: ID!) {
  availabilityRequest(id: $id) {
    id status networksProgressPercentage
    address {
      id street city continentCode countryCode postalCode houseNumber houseNumberAddition
      coordinates { latitude longitude }
    }
    filters { networks contractTerms }
    products {
      id network technologyType connectionType bandwidth { download upload } contractTerm mrc nrc currency
    }
    sources { name network status attempts productCount errorCode errorMessage }
  }
}`;

const PAGE = `query ($first: Int, $after: String, $last: Int, $before: String) {
  availabilityRequests(first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { id } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount
  }
}`;

const TOTAL = '{ availabilityRequests(first: 1) { totalCount } }';

/** Renames snake_case keys to the camelCase of the GraphQL input, deeply. */
function camelCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCase);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
      camelCase(inner),
    ]),
  );
}

/** The contract's example batch (an address as fields, one as coordinates) as GraphQL input. */
const exampleBatch = camelCase(contractExampleBatch);

const amsterdamAddress = (houseNumber: string) => ({
  address: {
    countryCode: 'NL',
    street: 'Lijnbaansgracht',
    city: 'Amsterdam',
    houseNumber,
    postalCode: '1016XA',
  },
});

async function create(api: ApiClient, input: unknown[]): Promise<string[]> {
  const result = await api.graphql<{
    createAvailabilityRequests: { availabilityRequests: { id: string }[] };
  }>(CREATE, { input });
  if (!result.data) throw new Error(`create failed: ${JSON.stringify(result.errors)}`);
  return result.data.createAvailabilityRequests.availabilityRequests.map((request) => request.id);
}

async function completed(api: ApiClient, id: string): Promise<RequestNode> {
  const result = await waitFor(
    () => api.graphql<{ availabilityRequest: RequestNode | null }>(REQUEST, { id }),
    (response) =>
      response.data?.availabilityRequest?.status === 'COMPLETED' &&
      response.data.availabilityRequest.networksProgressPercentage === 100,
  );
  const request = result.data?.availabilityRequest;
  if (!request) throw new Error(`request ${id} not found`);
  return request;
}

async function totalCount(api: ApiClient): Promise<number> {
  const result = await api.graphql<{ availabilityRequests: { totalCount: number } }>(TOTAL);
  return result.data?.availabilityRequests.totalCount ?? -1;
}

let server: TestServer;
let tenant: TestTenant;

beforeAll(async () => {
  server = await startTestServer();
  tenant = await server.tenant();
});

afterAll(async () => {
  await server.close();
});

describe('availabilityOptions', () => {
  it('when asked for NL, then lists the demo catalogue values and the NL postal-code field', async () => {
    const result = await tenant.api.graphql(OPTIONS, { countryCode: 'NL' });

    expect(result.errors).toBeUndefined();
    const options = result.data.availabilityOptions;
    expect(options.countryCode).toBe('NL');
    expect(options.filters).toEqual({
      networks: NL_NETWORKS,
      technologyTypes: NL_TECHNOLOGY_TYPES,
      connectionTypes: ['DIA', 'SHARED'],
      contractTerms: NL_CONTRACT_TERMS,
    });
    expect(options.fields).toContainEqual({
      countryCode: 'NL',
      key: 'postal_code',
      name: 'Postal code',
      required: true,
      regex: '^\\d{4}[ ]?[A-Z]{2}$',
    });
  });

  it('when the country code is not a country, then answers BAD_USER_INPUT', async () => {
    const result = await tenant.api.graphql(OPTIONS, { countryCode: 'XX' });

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('createAvailabilityRequests', () => {
  it('when the contract example batch is created, then answers both requests in input order and gathers them', async () => {
    const created = await tenant.api.graphql(CREATE, { input: exampleBatch });

    expect(created.errors).toBeUndefined();
    expect(created.data.createAvailabilityRequests).toEqual({
      message: '2 availability requests created; gathering started.',
      availabilityRequests: [
        {
          id: expect.stringMatching(/^avr_/),
          status: 'PENDING',
          address: {
            postalCode: '1016XA',
            coordinates: { latitude: expect.any(Number), longitude: expect.any(Number) },
          },
        },
        {
          id: expect.stringMatching(/^avr_/),
          status: 'PENDING',
          address: { postalCode: '', coordinates: { latitude: 52.36801, longitude: 4.879151 } },
        },
      ],
    });
    const [fieldsId = '', coordinatesId = ''] =
      created.data.createAvailabilityRequests.availabilityRequests.map(
        (request: { id: string }) => request.id,
      );

    const byFields = await completed(tenant.api, fieldsId);
    expect(byFields.id).toBe(fieldsId);
    expect(byFields.address).toEqual({
      id: expect.stringMatching(/^adr_/),
      street: 'Lijnbaansgracht',
      city: 'Amsterdam',
      continentCode: 'EU',
      countryCode: 'NL',
      postalCode: '1016XA',
      houseNumber: '206',
      houseNumberAddition: 'H',
      coordinates: { latitude: expect.closeTo(52.37, 1), longitude: expect.closeTo(4.89, 1) },
    });
    expect(byFields.products.length).toBeGreaterThan(0);
    for (const product of byFields.products) {
      expect(product).toEqual({
        id: expect.stringMatching(/^prd_/),
        network: expect.any(String),
        technologyType: expect.any(String),
        connectionType: expect.any(String),
        bandwidth: { download: expect.any(Number), upload: expect.any(Number) },
        contractTerm: expect.any(Number),
        mrc: expect.any(Number),
        nrc: expect.any(Number),
        currency: 'EUR',
      });
      expect(NL_NETWORKS).toContain(product.network);
      expect(NL_TECHNOLOGY_TYPES).toContain(product.technologyType);
      expect(['DIA', 'SHARED']).toContain(product.connectionType);
      expect(NL_CONTRACT_TERMS).toContain(product.contractTerm);
      expect(Number(product.mrc.toFixed(2))).toBe(product.mrc);
      expect(Number(product.nrc.toFixed(2))).toBe(product.nrc);
    }
    expect(byFields.sources.map(({ productCount: _, ...outcome }) => outcome)).toEqual(
      ['Colt', 'Eurofiber', 'KPN WBA', 'KPN WEAS', 'Tele2', 'Zayo', 'Ziggo'].map((name) => ({
        name,
        network: name.split(' ')[0],
        status: 'SUCCEEDED',
        attempts: 1,
        errorCode: null,
        errorMessage: null,
      })),
    );
    expect(byFields.sources.reduce((sum, source) => sum + source.productCount, 0)).toBe(
      byFields.products.length,
    );

    const byCoordinates = await completed(tenant.api, coordinatesId);
    expect(byCoordinates.address).toEqual({
      id: expect.stringMatching(/^adr_/),
      street: '',
      city: 'Amsterdam',
      continentCode: 'EU',
      countryCode: 'NL',
      postalCode: '',
      houseNumber: '',
      houseNumberAddition: '',
      coordinates: { latitude: 52.36801, longitude: 4.879151 },
    });
    expect(byCoordinates.sources.every((source) => source.status === 'SUCCEEDED')).toBe(true);
  });

  it('when a request is read through node(id), then it is the same AvailabilityRequest', async () => {
    const [id] = await create(tenant.api, [amsterdamAddress('1')]);

    const result = await tenant.api.graphql(
      'query ($id: ID!) { node(id: $id) { __typename id ... on AvailabilityRequest { address { houseNumber } } } }',
      { id },
    );

    expect(result).toEqual({
      data: { node: { __typename: 'AvailabilityRequest', id, address: { houseNumber: '1' } } },
    });
  });

  it('when filtered to KPN and 36 months, then every product is a KPN offer for 36 months', async () => {
    const [id = ''] = await create(tenant.api, [
      { ...amsterdamAddress('2'), networks: ['KPN'], contractTerms: [36] },
    ]);

    const request = await completed(tenant.api, id);

    expect(request.filters).toEqual({ networks: ['KPN'], contractTerms: [36] });
    expect(request.sources.map((source) => [source.name, source.status])).toEqual([
      ['KPN WBA', 'SUCCEEDED'],
      ['KPN WEAS', 'SUCCEEDED'],
    ]);
    expect(request.products.length).toBeGreaterThan(0);
    for (const product of request.products) {
      expect([product.network, product.contractTerm]).toEqual(['KPN', 36]);
    }
  });

  it('when one element has an invalid postal code, then answers BAD_USER_INPUT with its path and creates nothing', async () => {
    const before = await totalCount(tenant.api);
    const invalid = { address: { ...amsterdamAddress('3').address, postalCode: '1016 xa' } };

    const result = await tenant.api.graphql(CREATE, { input: [invalid, amsterdamAddress('4')] });

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      problems: [{ path: '/0/address/postalCode', message: 'Postal code must match ^\\d{4}[ ]?[A-Z]{2}$' }],
    });
    expect(await totalCount(tenant.api)).toBe(before);
  });

  it('when no auth token is sent, then answers UNAUTHENTICATED', async () => {
    const created = await server.anonymous.graphql(CREATE, { input: [amsterdamAddress('5')] });
    const listed = await server.anonymous.graphql(TOTAL);

    expect(created.data).toBeNull();
    expect(created.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    expect(listed.data).toBeNull();
    expect(listed.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
  });

  it('when another instance asks for a request, then availabilityRequest and node answer null', async () => {
    const [id] = await create(tenant.api, [amsterdamAddress('6')]);
    const other = await server.tenant();

    const result = await other.api.graphql(
      'query ($id: ID!) { availabilityRequest(id: $id) { id } node(id: $id) { id } }',
      { id },
    );

    expect(result).toEqual({ data: { availabilityRequest: null, node: null } });
  });
});

describe('availabilityRequests connection', () => {
  let pager: TestTenant;

  // Three batches a second apart, so the order rests on creation time as well as on the id tie-break.
  beforeAll(async () => {
    pager = await server.tenant();
    for (const batch of [0, 1, 2]) {
      await create(
        pager.api,
        [0, 1, 2, 3].map((index) => amsterdamAddress(String(batch * 4 + index + 1))),
      );
      server.clock.advance(1_000);
    }
  });

  it('when paged forward by 5, then every request appears once, newest first as in REST, over 3 pages', async () => {
    const pages: Connection[] = [];
    let after: string | null = null;
    do {
      const result: Paged = await pager.api.graphql(PAGE, { first: 5, after });
      const page = result.data?.availabilityRequests;
      if (!page) throw new Error(`paging failed: ${JSON.stringify(result)}`);
      pages.push(page);
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after !== null && pages.length < 10);
    const forward = pages.flatMap((page) => page.edges.map((edge) => edge.node.id));
    const rest = await pager.api.get('/availability-requests?page_size=100');

    expect(pages.map((page) => [page.edges.length, page.totalCount, page.pageInfo.hasNextPage])).toEqual([
      [5, 12, true],
      [5, 12, true],
      [2, 12, false],
    ]);
    for (const page of pages) {
      expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor);
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor);
    }
    expect(new Set(forward).size).toBe(12);
    expect(rest.status).toBe(200);
    expect(forward).toEqual(rest.body.data.map((request: { id: string }) => request.id));
    expect(rest.body.data[0].address.house_number).toMatch(/^(9|10|11|12)$/);
    expect(rest.body.data[11].address.house_number).toMatch(/^[1-4]$/);
  });

  it('when asked for the last 5, then answers the 5 oldest in the same order, with a previous page', async () => {
    const all: Paged = await pager.api.graphql(PAGE, { first: 100 });
    const forward = all.data?.availabilityRequests.edges.map((edge) => edge.node.id) ?? [];

    const result: Paged = await pager.api.graphql(PAGE, { last: 5 });

    const page = result.data?.availabilityRequests;
    expect(page?.edges.map((edge) => edge.node.id)).toEqual(forward.slice(-5));
    expect(page?.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: page?.edges[0]?.cursor,
      endCursor: page?.edges[4]?.cursor,
    });
    expect(page?.totalCount).toBe(12);
  });

  it('when asked for more than 100, then answers BAD_USER_INPUT', async () => {
    const result = await pager.api.graphql(PAGE, { first: 101 });

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions.code).toBe('BAD_USER_INPUT');
  });
});
