import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoInstanceProductsPath } from '../../src/resolvers/instance-products.js';
import { type Json, startTestServer, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';
import { countStoredRows } from '../helpers/store.js';

const problemType = 'application/problem+json; charset=utf-8';
const unknownId = (prefix: string) => `${prefix}_01m81c3718e04ss8zkx0k227dm`;
const cents = (amount: number) => Math.round(amount * 100);

/** Gathers offers for Lijnbaansgracht 206 and answers the first product, as `GET /availability-requests/{id}` shows it. */
async function gatherProduct(tenant: TestTenant): Promise<Json> {
  const address = { country_code: 'NL', postal_code: '1016XA', house_number: '206' };
  const created = await tenant.api.post('/availability-requests', [{ address }]);
  const done = await waitFor(
    () => tenant.api.get(`/availability-requests/${created.body.data[0].id}`),
    (response) => response.body.data.status === 'completed',
  );
  return done.body.data.products[0];
}

async function customerId(tenant: TestTenant, body: Record<string, unknown> = { name: 'ACME Telecom' }) {
  return (await tenant.api.post('/customers', body)).body.data.id as string;
}

const catalogue = async (tenant: TestTenant, path: string): Promise<Json[]> =>
  (await tenant.api.get(path)).body.data;

/** A bandwidth in kbps as a line name shows it (`10000` → `10 Mbit/s`). */
const speed = (kbps: number) =>
  kbps >= 1_000_000 && kbps % 1_000_000 === 0 ? `${kbps / 1_000_000} Gbit/s` : `${kbps / 1000} Mbit/s`;

/** A quote line; catalogue items have no network, bandwidth or term, so those are null. */
function line(product: Json, kind: string, name: string, offer: Json = {}) {
  return {
    id: expect.stringMatching(/^qli_[0-9a-z]{26}$/),
    kind,
    product_id: product.id,
    name,
    network: offer.network ?? null,
    technology_type: offer.technology_type ?? null,
    connection_type: offer.connection_type ?? null,
    bandwidth: offer.bandwidth ?? null,
    contract_term: offer.contract_term ?? null,
    mrc: product.mrc,
    nrc: product.nrc,
    currency: product.currency,
    _document_type: 'quote_line',
  };
}

/** The line an instance or mandatory product becomes. */
const catalogueLine = (item: Json) => line(item, item._document_type, item.name);

/** The line a gathered product becomes, named after its offer: `Colt FIBER DIA 10 Mbit/s, 12 months`. */
function requestLine(product: Json) {
  const { download, upload } = product.bandwidth;
  const bandwidth = download === upload ? speed(download) : `${speed(download)} / ${speed(upload)}`;
  const name = `${product.network} ${product.technology_type} ${product.connection_type} ${bandwidth}, ${product.contract_term} months`;
  return line(product, 'availability_request_product', name, product);
}

/** The 422 problem document. */
const invalid = (detail: string, errors: { path: string; message: string }[]) => ({
  type: 'urn:connectivity-gateway:problem:validation',
  title: 'Invalid input',
  status: 422,
  detail,
  errors,
});
const notCreated = 'The quote is invalid; nothing was created.';

/** Today's UTC date plus `days`, as `YYYY-MM-DD`. */
function utcDatePlus(now: Date, days: number): string {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today + days * 86_400_000).toISOString().slice(0, 10);
}

/** Sums line prices in cents, as the quote must, and answers euros. */
const total = (lines: { mrc: number; nrc: number }[], key: 'mrc' | 'nrc') =>
  lines.reduce((sum, line) => sum + cents(line[key]), 0) / 100;

const rowCounts = async (server: TestServer, instanceId: string) => ({
  quotes: await countStoredRows(server.app.services.db, 'quotes', { instanceId }),
  lines: await countStoredRows(server.app.services.db, 'quoteLines', { instanceId }),
});

/** The contract's "Quote" fields, in the table's order. */
const quoteKeys =
  'id name instance products quote_number currency validity_days customer reference_number total_products total_mrc total_nrc expiration_date _document_type'.split(
    ' ',
  );
const lineKeys = Object.keys(catalogueLine({}));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('POST /quotes', () => {
  let tenant: TestTenant;
  let other: TestTenant;
  let gathered: Json;
  let foreignGathered: Json;
  let items: Json[];
  let mandatory: Json[];
  let customer: string;
  let foreignCustomer: string;
  let foreignItem: Json;
  let foreignQuote: string;

  beforeAll(async () => {
    tenant = await server.tenant({ code: 'QTA' });
    other = await server.tenant({ code: 'QTB' });
    [gathered, foreignGathered] = await Promise.all([gatherProduct(tenant), gatherProduct(other)]);
    items = await catalogue(tenant, '/instance-products');
    mandatory = await catalogue(tenant, '/mandatory-products');
    customer = await customerId(tenant);
    foreignCustomer = await customerId(other, { name: 'Foreign B.V.' });
    [foreignItem] = await catalogue(other, '/instance-products');
    foreignQuote = (await other.api.post('/quotes', { name: 'Theirs', customer_id: foreignCustomer })).body
      .data.id;
  });

  it('when a quote names 1 gathered and 3 instance products, then 201 with them, the 2 mandatory ones and exact totals', async () => {
    const chosen = [items[1], items[4], items[6]];
    const now = server.clock.now();

    const created = await tenant.api.post('/quotes', {
      name: 'Head office',
      customer_id: customer,
      availability_request_product_ids: [gathered.id],
      instance_product_ids: chosen.map((item) => item.id),
    });

    expect(created.status).toBe(201);
    const lines = [requestLine(gathered), ...chosen.map(catalogueLine), ...mandatory.map(catalogueLine)];
    const expected = {
      id: expect.stringMatching(/^quo_[0-9a-z]{26}$/),
      name: 'Head office',
      instance: { id: tenant.instanceId, name: 'Tenant QTA', _document_type: 'instance' },
      products: lines,
      quote_number: `${now.getUTCFullYear()}-0001-QTA`,
      currency: 'EUR',
      validity_days: 30,
      customer: { id: customer, name: 'ACME Telecom', _document_type: 'customer' },
      reference_number: null,
      total_products: 6,
      total_mrc: total(lines, 'mrc'),
      total_nrc: total(lines, 'nrc'),
      expiration_date: utcDatePlus(now, 30),
      _document_type: 'quote',
    };
    expect(created.body).toEqual({ data: expected });
    const quote = created.body.data;
    expect(Object.keys(quote)).toEqual(quoteKeys);
    expect(quote.products.map((line: Json) => Object.keys(line))).toEqual(Array(6).fill(lineKeys));
    expect(quote.quote_number).toMatch(/^\d{4}-0001-QTA$/);
    expect(quote.products.slice(4).map((l: Json) => [l.kind, l.name, l.mrc, l.nrc])).toEqual([
      ['mandatory_product', 'Administration fee', 0, 49.5],
      ['mandatory_product', 'Service desk access', 4.95, 0],
    ]);
    expect(await tenant.api.get(`/quotes/${quote.id}`)).toMatchObject({ status: 200, body: created.body });
  });

  it('when a reference number is given, then it is kept, and a quote with no products has just the mandatory ones', async () => {
    const body = { name: 'Branch', customer_id: customer, reference_number: 'PO-2026-17' };
    const created = await tenant.api.post('/quotes', body);

    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      reference_number: 'PO-2026-17',
      products: mandatory.map(catalogueLine),
      total_products: 2,
      total_mrc: 4.95,
      total_nrc: 49.5,
    });
  });

  it('when the customer prefers USD, then the quote is in USD, every EUR product named is refused and EUR mandatory products are not added', async () => {
    const dollars = await customerId(tenant, { name: 'Yankee Inc.', preferred_currency: 'USD' });
    const plain = await server.tenant({ code: 'QTUSD', demoCatalog: false });
    const plainDollars = await customerId(plain, { name: 'Yankee Inc.', preferred_currency: 'USD' });
    const before = await rowCounts(server, tenant.instanceId);

    const refused = await tenant.api.post('/quotes', {
      name: 'Dollars',
      customer_id: dollars,
      availability_request_product_ids: [gathered.id],
      instance_product_ids: [items[0].id],
    });
    const accepted = await plain.api.post('/quotes', { name: 'Dollars', customer_id: plainDollars });

    const mismatch = 'is priced in EUR, but the quote is in USD';
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toBe(problemType);
    expect(refused.body).toEqual(
      invalid(notCreated, [
        { path: '/availability_request_product_ids/0', message: mismatch },
        { path: '/instance_product_ids/0', message: mismatch },
      ]),
    );
    expect(await rowCounts(server, tenant.instanceId)).toEqual(before);
    const withoutProducts = await tenant.api.post('/quotes', { name: 'Dollars only', customer_id: dollars });
    expect(withoutProducts.status).toBe(201);
    expect(withoutProducts.body.data).toMatchObject({ currency: 'USD', products: [], total_products: 0 });
    expect(accepted.status).toBe(201);
    const empty = { currency: 'USD', products: [], total_products: 0, total_mrc: 0, total_nrc: 0 };
    expect(accepted.body.data).toMatchObject(empty);
  });

  it('when 20 quotes are created at once, then they get exactly the numbers 0001 to 0020', async () => {
    const busy = await server.tenant({ code: 'QTBUSY' });
    const id = await customerId(busy);
    const year = server.clock.now().getUTCFullYear();

    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        busy.api.post('/quotes', { name: `Q${index}`, customer_id: id }),
      ),
    );

    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(201));
    const numbers = responses.map((response) => response.body.data.quote_number as string).sort();
    expect(numbers).toEqual(
      Array.from({ length: 20 }, (_, index) => `${year}-${String(index + 1).padStart(4, '0')}-QTBUSY`),
    );
    expect(new Set(responses.map((response) => response.body.data.id)).size).toBe(20);
  });

  it('when products are added later, then totals change exactly; adding them again changes nothing', async () => {
    const created = (await tenant.api.post('/quotes', { name: 'Later', customer_id: customer })).body.data;
    const added = [items[2], items[5]];

    const first = await tenant.api.post(`/quotes/${created.id}/products`, {
      instance_product_ids: added.map((item) => item.id),
      availability_request_product_ids: [gathered.id],
    });
    const countsAfterFirst = await rowCounts(server, tenant.instanceId);
    const again = await tenant.api.post(`/quotes/${created.id}/products`, {
      instance_product_ids: [added[1].id, added[1].id, added[0].id],
      mandatory_product_ids: [mandatory[0].id],
    });

    expect(first.status).toBe(200);
    const lines = [...mandatory.map(catalogueLine), requestLine(gathered), ...added.map(catalogueLine)];
    expect(first.body).toEqual({
      data: {
        ...created,
        products: lines,
        total_products: 5,
        total_mrc: total(lines, 'mrc'),
        total_nrc: total(lines, 'nrc'),
      },
    });
    const growth = (key: 'mrc' | 'nrc') =>
      cents(first.body.data[`total_${key}`]) - cents(created[`total_${key}`]);
    const addedCents = (key: 'mrc' | 'nrc') =>
      [gathered, ...added].reduce((sum, p) => sum + cents(p[key]), 0);
    expect([growth('mrc'), growth('nrc')]).toEqual([addedCents('mrc'), addedCents('nrc')]);
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect(await rowCounts(server, tenant.instanceId)).toEqual(countsAfterFirst);
  });

  it('when the catalogue is re-priced, then existing quotes keep their totals and a new quote uses the new price', async () => {
    const admin = await server.tenant({ code: 'QTADM', roles: ['instance_admin', 'connectivity_check'] });
    const id = await customerId(admin);
    const [subnet] = await catalogue(admin, '/instance-products');
    const body = { name: 'Catalogue', customer_id: id, instance_product_ids: [subnet.id] };
    const old = await admin.api.post('/quotes', body);

    const repriced = await admin.api.graphql(
      'mutation ($id: ID!) { updateInstanceProduct(id: $id, input: { mrc: 999.99 }) { product { mrc } } }',
      { id: subnet.id },
    );
    const reread = await admin.api.get(`/quotes/${old.body.data.id}`);
    const fresh = await admin.api.post('/quotes', body);
    const readded = await admin.api.post(`/quotes/${old.body.data.id}/products`, {
      instance_product_ids: [subnet.id],
    });

    expect(repriced).toEqual({ data: { updateInstanceProduct: { product: { mrc: 999.99 } } } });
    expect(subnet).toMatchObject({ name: 'Fixed IPv4 subnet /29', mrc: 10, nrc: 0 });
    expect(old.body.data).toMatchObject({ total_products: 3, total_mrc: 14.95, total_nrc: 49.5 });
    expect(reread).toMatchObject({ status: 200, body: old.body });
    expect(readded).toMatchObject({ status: 200, body: old.body });
    expect(fresh.body.data.products[0]).toEqual(catalogueLine({ ...subnet, mrc: 999.99 }));
    expect(fresh.body.data).toMatchObject({ total_products: 3, total_mrc: 1004.94, total_nrc: 49.5 });
  });

  const missing = 'Invalid input: expected string, received undefined';
  const gone = (what: string) => `${what} was not found`;
  it.each<[string, () => Record<string, unknown>, string, string]>([
    ['an unknown customer', () => ({ customer_id: unknownId('cus') }), '/customer_id', gone('customer')],
    [
      'another instance’s customer',
      () => ({ customer_id: foreignCustomer }),
      '/customer_id',
      gone('customer'),
    ],
    [
      'an unknown instance product',
      () => ({ instance_product_ids: [items[0].id, unknownId('ipr')] }),
      '/instance_product_ids/1',
      gone('instance product'),
    ],
    [
      'another instance’s instance product',
      () => ({ instance_product_ids: [foreignItem.id] }),
      '/instance_product_ids/0',
      gone('instance product'),
    ],
    [
      'another instance’s gathered product',
      () => ({ availability_request_product_ids: [gathered.id, foreignGathered.id] }),
      '/availability_request_product_ids/1',
      gone('availability-request product'),
    ],
    [
      'a mandatory product as an instance product',
      () => ({ instance_product_ids: [mandatory[0].id] }),
      '/instance_product_ids/0',
      gone('instance product'),
    ],
    [
      'an instance product as a mandatory product',
      () => ({ mandatory_product_ids: [items[0].id] }),
      '/mandatory_product_ids/0',
      gone('mandatory product'),
    ],
    ['no name', () => ({ name: undefined }), '/name', missing],
    ['no customer_id', () => ({ customer_id: undefined }), '/customer_id', missing],
    ['an unknown field', () => ({ foo: 'bar' }), '/foo', 'is not a known field'],
  ])(
    'when the body has %s, then 422 naming it and nothing is written',
    async (_name, change, path, message) => {
      const before = await rowCounts(server, tenant.instanceId);

      const response = await tenant.api.post('/quotes', { name: 'Bad', customer_id: customer, ...change() });

      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toBe(problemType);
      expect(response.body).toEqual(invalid(notCreated, [{ path, message }]));
      expect(await rowCounts(server, tenant.instanceId)).toEqual(before);
    },
  );

  it('when products from another instance are added later, then 422 and the quote is unchanged', async () => {
    const created = (await tenant.api.post('/quotes', { name: 'Guarded', customer_id: customer })).body.data;

    const response = await tenant.api.post(`/quotes/${created.id}/products`, {
      instance_product_ids: [items[2].id],
      availability_request_product_ids: [foreignGathered.id],
    });

    expect(response.status).toBe(422);
    expect(response.body).toEqual(
      invalid('The products are invalid; none was added.', [
        {
          path: '/availability_request_product_ids/0',
          message: 'availability-request product was not found',
        },
      ]),
    );
    expect((await tenant.api.get(`/quotes/${created.id}`)).body.data).toEqual(created);
  });

  it.each([
    ['reading another instance’s quote', 'GET', () => foreignQuote],
    ['reading an unknown quote', 'GET', () => unknownId('quo')],
    ['adding to another instance’s quote', 'POST', () => foreignQuote],
    ['adding to an unknown quote', 'POST', () => unknownId('quo')],
  ])('when %s, then 404 problem+json and nothing changes', async (_name, method, quoteId) => {
    const id = quoteId();
    const theirs = await rowCounts(server, other.instanceId);

    const response =
      method === 'GET'
        ? await tenant.api.get(`/quotes/${id}`)
        : await tenant.api.post(`/quotes/${id}/products`, { instance_product_ids: [items[0].id] });

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe(problemType);
    expect(response.body).toEqual({
      type: 'urn:connectivity-gateway:problem:not-found',
      title: 'Not found',
      status: 404,
      detail: `Quote "${id}" was not found.`,
    });
    expect(await rowCounts(server, other.instanceId)).toEqual(theirs);
  });
});

describe('GET /instance-products and GET /mandatory-products', () => {
  /** The demo file's items of one kind, as the list must show them: prices in euros, sorted by name. */
  function demoItems(mandatory: boolean) {
    const file = JSON.parse(readFileSync(demoInstanceProductsPath, 'utf8'));
    return file.products
      .filter((item: Json) => item.mandatory === mandatory)
      .sort((a: Json, b: Json) => (a.name < b.name ? -1 : 1))
      .map((item: Json) => ({
        id: expect.stringMatching(mandatory ? /^mpr_[0-9a-z]{26}$/ : /^ipr_[0-9a-z]{26}$/),
        name: item.name,
        description: item.description,
        mrc: item.mrc / 100,
        nrc: item.nrc / 100,
        currency: 'EUR',
        _document_type: mandatory ? 'mandatory_product' : 'instance_product',
      }));
  }

  it('when the instance has the demo items, then both lists show them exactly, sorted by name', async () => {
    const tenant = await server.tenant();

    const products = await tenant.api.get('/instance-products');
    const required = await tenant.api.get('/mandatory-products');

    expect(products.status).toBe(200);
    expect(products.body).toEqual({ data: demoItems(false) });
    expect(products.body.data.map((item: Json) => item.name).slice(0, 2)).toEqual([
      'Fixed IPv4 subnet /29',
      'Managed Wi-Fi access point',
    ]);
    expect(required.status).toBe(200);
    expect(required.body).toEqual({ data: demoItems(true) });
  });
});
