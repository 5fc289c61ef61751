import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApiClient,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
} from '../helpers/app.js';

const LINE = `id kind productId name source { id name type } network technologyType connectionType
  bandwidth { download upload } contractTerm mrc nrc currency`;
const QUOTE = `id name quoteNumber referenceNumber currency validityDays expirationDate customer { id name }
  products { ${LINE} } totalProducts totalMrc totalNrc`;
const CREATE_QUOTE = `mutation ($input: CreateQuoteInput!) { createQuote(input: $input) { quote { ${QUOTE} } } }`;
const ADD_PRODUCTS = `mutation ($input: AddQuoteProductsInput!) {
  addQuoteProducts(input: $input) { quote { ${QUOTE} } }
}`;
const READ_QUOTE = `query ($id: ID!) {
  quote(id: $id) { ${QUOTE} }
  node(id: $id) { __typename id ... on Quote { quoteNumber } }
}`;
const PAGE = `query ($first: Int, $after: String) {
  quotes(first: $first, after: $after) {
    edges { node { id quoteNumber } } pageInfo { hasNextPage endCursor } totalCount
  }
}`;
const PRODUCT = 'id name description mandatory fulfilment mrc nrc currency';
const CATALOGUE = `{ instanceProducts { ${PRODUCT} } mandatoryProducts { ${PRODUCT} } }`;
const CREATE_PRODUCT = `mutation ($input: InstanceProductInput!) {
  createInstanceProduct(input: $input) { product { ${PRODUCT} } }
}`;
const UPDATE_PRODUCT = `mutation ($id: ID!, $input: InstanceProductChanges!) {
  updateInstanceProduct(id: $id, input: $input) { product { ${PRODUCT} } }
}`;
const CREATE_CUSTOMER = `mutation ($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } } }`;

const admin = ['instance_admin', 'connectivity_check'] as const;
const unknownId = (prefix: string) => `${prefix}_01m81c3718e04ss8zkx0k227dm`;

const createCustomer = async (api: ApiClient, name: string): Promise<string> =>
  (await api.graphql(CREATE_CUSTOMER, { input: { name } })).data.createCustomer.customer.id;
const readCatalogue = async (api: ApiClient) => (await api.graphql(CATALOGUE)).data;
const totalCount = async (api: ApiClient) => (await api.graphql(PAGE, { first: 1 })).data.quotes.totalCount;

/** The line a catalogue product becomes: its name and prices, no source and no offer fields. */
const line = (product: Json, kind: 'INSTANCE_PRODUCT' | 'MANDATORY_PRODUCT') => ({
  id: expect.stringMatching(/^qli_/),
  kind,
  productId: product.id,
  name: product.name,
  source: null,
  network: null,
  technologyType: null,
  connectionType: null,
  bandwidth: null,
  contractTerm: null,
  mrc: product.mrc,
  nrc: product.nrc,
  currency: 'EUR',
});

describe('quotes over GraphQL', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let other: TestTenant;
  let customerId: string;
  let items: Json[];
  let mandatoryLines: Json[];

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ code: 'GQA' });
    other = await server.tenant({ code: 'GQB' });
    customerId = await createCustomer(tenant.api, 'ACME Telecom');
    const catalogue = await readCatalogue(tenant.api);
    items = catalogue.instanceProducts;
    mandatoryLines = catalogue.mandatoryProducts.map((p: Json) => line(p, 'MANDATORY_PRODUCT'));
  });
  afterAll(() => server.close());

  it('when createQuote names an instance product, then the quote is exact and quote, node and REST read it back', async () => {
    const now = server.clock.now();
    const input = {
      name: 'Head office',
      customerId,
      referenceNumber: 'PO-7',
      instanceProductIds: [items[1].id],
    };

    const created = await tenant.api.graphql(CREATE_QUOTE, { input });

    const expiry = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 30));
    const quote = {
      id: expect.stringMatching(/^quo_[0-9a-z]{26}$/),
      name: 'Head office',
      quoteNumber: `${now.getUTCFullYear()}-0001-GQA`,
      referenceNumber: 'PO-7',
      currency: 'EUR',
      validityDays: 30,
      expirationDate: expiry.toISOString().slice(0, 10),
      customer: { id: customerId, name: 'ACME Telecom' },
      products: [line(items[1], 'INSTANCE_PRODUCT'), ...mandatoryLines],
      totalProducts: 3,
      totalMrc: 17.45,
      totalNrc: 148.5,
    };
    expect(items[1]).toMatchObject({ name: 'Managed Wi-Fi access point', mrc: 12.5, nrc: 99 });
    expect(created).toEqual({ data: { createQuote: { quote } } });
    const { id, quoteNumber } = created.data.createQuote.quote;
    const read = await tenant.api.graphql(READ_QUOTE, { id });
    expect(read).toEqual({
      data: { quote: created.data.createQuote.quote, node: { __typename: 'Quote', id, quoteNumber } },
    });
    expect((await tenant.api.get(`/quotes/${id}`)).body.data).toMatchObject({ id, total_mrc: 17.45 });
  });

  it('when addQuoteProducts adds two products, then totals grow by them; adding them again changes nothing', async () => {
    const created = (await tenant.api.graphql(CREATE_QUOTE, { input: { name: 'Later', customerId } })).data
      .createQuote.quote;
    const ids = [items[4].id, items[6].id];

    const added = await tenant.api.graphql(ADD_PRODUCTS, {
      input: { quoteId: created.id, instanceProductIds: ids },
    });
    const again = await tenant.api.graphql(ADD_PRODUCTS, {
      input: { quoteId: created.id, instanceProductIds: [ids[1], ids[0], ids[1]] },
    });

    expect([items[4].name, items[6].name]).toEqual([
      'Router rental — Fortinet FortiGate 40F',
      'SLA upgrade — Premium (4 h repair, 24/7)',
    ]);
    const quote = {
      ...created,
      products: [...mandatoryLines, line(items[4], 'INSTANCE_PRODUCT'), line(items[6], 'INSTANCE_PRODUCT')],
      totalProducts: 4,
      totalMrc: 118.95,
      totalNrc: 98.5,
    };
    expect(created).toMatchObject({ totalProducts: 2, totalMrc: 4.95, totalNrc: 49.5 });
    expect(added).toEqual({ data: { addQuoteProducts: { quote } } });
    expect(again).toEqual(added);
  });

  it('when ids are unknown or another instance’s, then BAD_USER_INPUT or NOT_FOUND, in camelCase, and nothing is written', async () => {
    const foreignCustomer = await createCustomer(other.api, 'Foreign');
    const foreignItem = (await readCatalogue(other.api)).instanceProducts[0];
    const quoteId = (await tenant.api.graphql(CREATE_QUOTE, { input: { name: 'Kept', customerId } })).data
      .createQuote.quote.id;
    const before = await totalCount(tenant.api);

    const wrongCustomer = await tenant.api.graphql(CREATE_QUOTE, {
      input: { name: 'Bad', customerId: foreignCustomer },
    });
    const wrongProduct = await tenant.api.graphql(CREATE_QUOTE, {
      input: { name: 'Bad', customerId, instanceProductIds: [items[0].id, foreignItem.id] },
    });
    const wrongQuote = await tenant.api.graphql(ADD_PRODUCTS, {
      input: { quoteId: unknownId('quo'), instanceProductIds: [items[0].id] },
    });
    const addWrong = await tenant.api.graphql(ADD_PRODUCTS, {
      input: { quoteId, instanceProductIds: [foreignItem.id], mandatoryProductIds: [items[0].id] },
    });

    expect(wrongCustomer.data).toBeNull();
    expect(wrongCustomer.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      problems: [{ path: '/customerId', message: 'customer was not found' }],
    });
    expect(wrongProduct.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      problems: [{ path: '/instanceProductIds/1', message: 'instance product was not found' }],
    });
    expect(wrongQuote.errors?.[0]?.extensions).toEqual({ code: 'NOT_FOUND' });
    expect(wrongQuote.errors?.[0]?.message).toBe(`Quote "${unknownId('quo')}" was not found.`);
    expect(addWrong.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      problems: [
        { path: '/instanceProductIds/0', message: 'instance product was not found' },
        { path: '/mandatoryProductIds/0', message: 'mandatory product was not found' },
      ],
    });
    expect(await totalCount(tenant.api)).toBe(before);
    expect((await tenant.api.graphql(READ_QUOTE, { id: quoteId })).data.quote.totalProducts).toBe(2);
  });

  it('when another instance’s quote is asked for, then quote and node are null', async () => {
    const foreignCustomer = await createCustomer(other.api, 'Stranger');
    const foreign = await other.api.graphql(CREATE_QUOTE, {
      input: { name: 'Theirs', customerId: foreignCustomer },
    });
    const id = foreign.data.createQuote.quote.id;

    const read = await tenant.api.graphql(READ_QUOTE, { id });

    expect(read).toEqual({ data: { quote: null, node: null } });
    expect((await other.api.graphql(READ_QUOTE, { id })).data.quote.id).toBe(id);
  });

  it('when 5 quotes are paged 2 at a time, then newest first, every quote once, with the total count', async () => {
    const paged = await server.tenant({ code: 'GQPAGE' });
    const pagedCustomer = await createCustomer(paged.api, 'Pager');
    const created: string[] = [];
    for (let index = 1; index <= 5; index += 1) {
      server.clock.advance(1000);
      const result = await paged.api.graphql(CREATE_QUOTE, {
        input: { name: `Q${index}`, customerId: pagedCustomer },
      });
      created.push(result.data.createQuote.quote.id);
    }

    const pages: Json[] = [];
    let after: string | null = null;
    do {
      const result: Json = await paged.api.graphql(PAGE, { first: 2, after });
      pages.push(result.data.quotes);
      after = result.data.quotes.pageInfo.hasNextPage ? result.data.quotes.pageInfo.endCursor : null;
    } while (after !== null && pages.length < 5);

    const year = server.clock.now().getUTCFullYear();
    expect(pages.map((page) => [page.edges.length, page.pageInfo.hasNextPage, page.totalCount])).toEqual([
      [2, true, 5],
      [2, true, 5],
      [1, false, 5],
    ]);
    const nodes = pages.flatMap((page) => page.edges.map((edge: Json) => edge.node));
    expect(nodes.map((node: Json) => node.id)).toEqual([...created].reverse());
    expect(nodes.map((node: Json) => node.quoteNumber)).toEqual(
      [5, 4, 3, 2, 1].map((sequence) => `${year}-000${sequence}-GQPAGE`),
    );
  });

  // Last in this block: it moves the shared clock a year on, past every earlier token's expiry.
  it('when a new year starts, then the sequence starts again at 0001 and the expiry counts from the new date', async () => {
    const yearly = await server.tenant({ code: 'GQYEAR' });
    const input = { name: 'Annual', customerId: await createCustomer(yearly.api, 'Annual') };
    const old = (await yearly.api.graphql(CREATE_QUOTE, { input })).data.createQuote.quote;
    const now = server.clock.now();
    const year = now.getUTCFullYear();
    server.clock.advance(Date.UTC(year + 1, 0, 1, 0, 1) - now.getTime());
    const credentials = { client_id: yearly.clientId, client_secret: yearly.clientSecret };
    const signIn = await server.anonymous.post('/authentication', credentials);
    const api = server.anonymous.withToken(signIn.body.data.auth_token);

    const fresh = (await api.graphql(CREATE_QUOTE, { input })).data.createQuote.quote;

    expect(old.quoteNumber).toBe(`${year}-0001-GQYEAR`);
    expect(fresh).toMatchObject({
      quoteNumber: `${year + 1}-0001-GQYEAR`,
      expirationDate: `${year + 1}-01-31`,
    });
    expect(await totalCount(api)).toBe(2);
  });
});

describe('the instance catalogue over GraphQL', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('when the catalogue is read, then it is the demo items as REST lists them, by name', async () => {
    const tenant = await server.tenant();

    const catalogue = await readCatalogue(tenant.api);

    const rest = async (path: string, mandatory: boolean) =>
      (await tenant.api.get(path)).body.data.map(({ _document_type, ...item }: Json) => ({
        ...item,
        fulfilment: item.fulfilment.toUpperCase(),
        mandatory,
      }));
    expect(catalogue.instanceProducts).toEqual(await rest('/instance-products', false));
    expect(catalogue.mandatoryProducts).toEqual(await rest('/mandatory-products', true));
    expect(catalogue.instanceProducts).toHaveLength(7);
    expect(new Set(catalogue.instanceProducts.map((item: Json) => item.fulfilment))).toEqual(
      new Set(['MANUAL']),
    );
    expect(catalogue.mandatoryProducts).toEqual([
      {
        id: expect.stringMatching(/^mpr_/),
        name: 'Administration fee',
        description: 'One-off handling of the order and contract.',
        mandatory: true,
        fulfilment: 'NONE',
        mrc: 0,
        nrc: 49.5,
        currency: 'EUR',
      },
      {
        id: expect.stringMatching(/^mpr_/),
        name: 'Service desk access',
        description: "Access to the reseller's service desk for this connection.",
        mandatory: true,
        fulfilment: 'NONE',
        mrc: 4.95,
        nrc: 0,
        currency: 'EUR',
      },
    ]);
  });

  it('when an admin creates products, then they are exact, listed by name, and a new mandatory one joins new quotes', async () => {
    const tenant = await server.tenant({ roles: [...admin], demoCatalog: false });
    const customerId = await createCustomer(tenant.api, 'ACME Telecom');
    const router = { name: 'Router', description: 'A router.', mrc: 19.99, nrc: 0, currency: 'EUR' };
    const fee = { name: 'Fee', mandatory: true, mrc: 0, nrc: 12.3, currency: 'EUR' };

    const created = await tenant.api.graphql(CREATE_PRODUCT, { input: router });
    const mandatory = await tenant.api.graphql(CREATE_PRODUCT, { input: fee });

    // Without a fulfilment, a product's lines are moved by hand (MANUAL), mandatory or not.
    const routerProduct = {
      id: expect.stringMatching(/^ipr_[0-9a-z]{26}$/),
      ...router,
      mandatory: false,
      fulfilment: 'MANUAL',
    };
    const feeProduct = {
      id: expect.stringMatching(/^mpr_[0-9a-z]{26}$/),
      ...fee,
      description: '',
      fulfilment: 'MANUAL',
    };
    expect(created).toEqual({ data: { createInstanceProduct: { product: routerProduct } } });
    expect(mandatory).toEqual({ data: { createInstanceProduct: { product: feeProduct } } });
    expect(await readCatalogue(tenant.api)).toEqual({
      instanceProducts: [created.data.createInstanceProduct.product],
      mandatoryProducts: [mandatory.data.createInstanceProduct.product],
    });
    const quote = await tenant.api.graphql(CREATE_QUOTE, { input: { name: 'Q', customerId } });
    expect(quote.data.createQuote.quote.products).toEqual([
      line(mandatory.data.createInstanceProduct.product, 'MANDATORY_PRODUCT'),
    ]);
  });

  it('when a connectivity_check-only user creates a product, then FORBIDDEN and nothing is created', async () => {
    const tenant = await server.tenant({ demoCatalog: false });

    const result = await tenant.api.graphql(CREATE_PRODUCT, {
      input: { name: 'Router', mrc: 1, nrc: 0, currency: 'EUR' },
    });

    expect(result.data).toBeNull();
    expect(result.errors?.[0]?.extensions).toEqual({ code: 'FORBIDDEN' });
    expect(await readCatalogue(tenant.api)).toEqual({ instanceProducts: [], mandatoryProducts: [] });
  });

  it('when a price has three decimals or the id is unknown or foreign, then BAD_USER_INPUT or NOT_FOUND and nothing changes', async () => {
    const tenant = await server.tenant({ roles: [...admin] });
    const stranger = await server.tenant({ roles: [...admin] });
    const before = await readCatalogue(tenant.api);
    const [first] = before.instanceProducts;
    const foreign = (await readCatalogue(stranger.api)).instanceProducts[0];

    const precise = await tenant.api.graphql(UPDATE_PRODUCT, { id: first.id, input: { mrc: 10.005 } });
    const unknown = await tenant.api.graphql(UPDATE_PRODUCT, { id: unknownId('ipr'), input: { mrc: 1 } });
    const theirs = await tenant.api.graphql(UPDATE_PRODUCT, { id: foreign.id, input: { mrc: 1 } });
    const changed = await tenant.api.graphql(UPDATE_PRODUCT, { id: first.id, input: { nrc: 0.5 } });

    expect(precise.data).toBeNull();
    expect(precise.errors?.[0]?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      problems: [{ path: '/mrc', message: 'has more decimals than EUR allows' }],
    });
    expect(unknown.errors?.[0]).toMatchObject({
      message: `Product "${unknownId('ipr')}" was not found.`,
      extensions: { code: 'NOT_FOUND' },
    });
    expect(theirs.errors?.[0]).toMatchObject({
      message: `Product "${foreign.id}" was not found.`,
      extensions: { code: 'NOT_FOUND' },
    });
    expect(changed).toEqual({ data: { updateInstanceProduct: { product: { ...first, nrc: 0.5 } } } });
    expect((await readCatalogue(stranger.api)).instanceProducts[0]).toEqual(foreign);
  });

  it('when a product is created with fulfilment NONE, then it shows it, and ordered its line is NONE and COMPLETED at once while a MANUAL one waits', async () => {
    const ORDER_LINES =
      'id status lines { quoteLineId name fulfilment status completionDate statusChangedAt statusChangedByUserId }';
    const PLACE = `mutation ($input: PlaceOrderInput!) { placeOrder(input: $input) { order { ${ORDER_LINES} } } }`;
    const MOVE = `mutation ($input: UpdateManualOrderLineInput!) {
      updateManualOrderLine(input: $input) { order { ${ORDER_LINES} } }
    }`;
    const tenant = await server.tenant({ roles: [...admin], demoCatalog: false });
    const customerId = await createCustomer(tenant.api, 'Licensee B.V.');
    const licence = { name: 'Licence', description: 'A yearly licence.', mrc: 2.5, nrc: 10, currency: 'EUR' };
    const router = { name: 'Router', description: 'A router.', mrc: 19.99, nrc: 0, currency: 'EUR' };

    const created = await tenant.api.graphql(CREATE_PRODUCT, { input: { ...licence, fulfilment: 'NONE' } });
    const manual = await tenant.api.graphql(CREATE_PRODUCT, { input: router });

    const licenceProduct = {
      id: expect.stringMatching(/^ipr_[0-9a-z]{26}$/),
      ...licence,
      mandatory: false,
      fulfilment: 'NONE',
    };
    expect(created).toEqual({ data: { createInstanceProduct: { product: licenceProduct } } });
    expect(manual.data.createInstanceProduct.product.fulfilment).toBe('MANUAL');
    const licenceId = created.data.createInstanceProduct.product.id;
    const routerId = manual.data.createInstanceProduct.product.id;
    expect(await readCatalogue(tenant.api)).toEqual({
      instanceProducts: [
        created.data.createInstanceProduct.product,
        manual.data.createInstanceProduct.product,
      ],
      mandatoryProducts: [],
    });
    expect(
      (await tenant.api.get('/instance-products')).body.data.map((p: Json) => [p.name, p.fulfilment]),
    ).toEqual([
      ['Licence', 'none'],
      ['Router', 'manual'],
    ]);

    const quote = (
      await tenant.api.graphql(CREATE_QUOTE, {
        input: { name: 'Licensed router', customerId, instanceProductIds: [licenceId, routerId] },
      })
    ).data.createQuote.quote;
    server.clock.freeze();
    const placedAt = server.clock.now();
    const placed = await tenant.api.graphql(PLACE, { input: { quoteId: quote.id } });
    server.clock.thaw();

    expect(placed.errors).toBeUndefined();
    const order = placed.data.placeOrder.order;
    expect(order).toEqual({
      id: expect.stringMatching(/^ord_[0-9a-z]{26}$/),
      status: 'PENDING',
      lines: [
        {
          quoteLineId: quote.products[0].id,
          name: 'Licence',
          fulfilment: 'NONE',
          status: 'COMPLETED',
          completionDate: placedAt.toISOString(),
          statusChangedAt: placedAt.toISOString(),
          statusChangedByUserId: null,
        },
        {
          quoteLineId: quote.products[1].id,
          name: 'Router',
          fulfilment: 'MANUAL',
          status: 'PENDING',
          completionDate: null,
          statusChangedAt: null,
          statusChangedByUserId: null,
        },
      ],
    });
    const rest = (await tenant.api.get(`/orders/${order.id}`)).body.data;
    expect(rest.lines.map((line: Json) => [line.fulfilment, line.status])).toEqual([
      ['none', 'completed'],
      ['manual', 'pending'],
    ]);

    // The router delivered, the order is: its NONE line neither held it back nor started it.
    const [, routerLine] = rest.lines;
    const done = await tenant.api.graphql(MOVE, {
      input: { orderId: order.id, lineId: routerLine.id, status: 'COMPLETED' },
    });
    expect(done.errors).toBeUndefined();
    expect(done.data.updateManualOrderLine.order.status).toBe('COMPLETED');
    expect(done.data.updateManualOrderLine.order.lines.map((line: Json) => line.status)).toEqual([
      'COMPLETED',
      'COMPLETED',
    ]);

    // A product made NONE later: orders placed keep their MANUAL line; an order of NONE lines only is
    // COMPLETED as it is placed.
    const changed = await tenant.api.graphql(UPDATE_PRODUCT, { id: routerId, input: { fulfilment: 'NONE' } });
    expect(changed.data.updateInstanceProduct.product.fulfilment).toBe('NONE');
    const kept = (await tenant.api.get(`/orders/${order.id}`)).body.data;
    expect(kept.lines.map((line: Json) => line.fulfilment)).toEqual(['none', 'manual']);
    const routerOnly = (
      await tenant.api.graphql(CREATE_QUOTE, {
        input: { name: 'Router only', customerId, instanceProductIds: [routerId] },
      })
    ).data.createQuote.quote;
    const instant = await tenant.api.graphql(PLACE, { input: { quoteId: routerOnly.id } });
    expect(instant.data.placeOrder.order).toMatchObject({
      status: 'COMPLETED',
      lines: [{ name: 'Router', fulfilment: 'NONE', status: 'COMPLETED', statusChangedByUserId: null }],
    });
  });
});
