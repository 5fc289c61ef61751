import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import {
  catalogue,
  customerId,
  invalid,
  notCreated,
  problemType,
  quoteSetting,
  rowCounts,
} from './quotes-fixtures.js';

/* Creating quotes and adding products to them: their lines, numbers, currency and exact totals. */

const cents = (amount: number) => Math.round(amount * 100);

/** A bandwidth in kbps as a line name shows it (`10000` → `10 Mbit/s`). */
const speed = (kbps: number) =>
  kbps >= 1_000_000 && kbps % 1_000_000 === 0 ? `${kbps / 1_000_000} Gbit/s` : `${kbps / 1000} Mbit/s`;

/**
 * A quote line; catalogue items have no source, network, bandwidth or term, so those are null. A gathered
 * product's line names the source the product did (issue 49).
 */
function line(product: Json, kind: string, name: string, offer: Json = {}) {
  return {
    id: expect.stringMatching(/^qli_[0-9a-z]{26}$/),
    kind,
    product_id: product.id,
    name,
    source: offer.source ?? null,
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

/** Today's UTC date plus `days`, as `YYYY-MM-DD`. */
function utcDatePlus(now: Date, days: number): string {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today + days * 86_400_000).toISOString().slice(0, 10);
}

/** Sums line prices in cents, as the quote must, and answers euros. */
const total = (lines: { mrc: number; nrc: number }[], key: 'mrc' | 'nrc') =>
  lines.reduce((sum, line) => sum + cents(line[key]), 0) / 100;

/** The contract's "Quote" fields, in the table's order. */
const quoteKeys =
  'id name instance products quote_number currency validity_days customer reference_number total_products total_mrc total_nrc expiration_date orders _document_type'.split(
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
  let gathered: Json;
  let items: Json[];
  let mandatory: Json[];
  let customer: string;

  beforeAll(async () => {
    ({ tenant, gathered, items, mandatory, customer } = await quoteSetting(server));
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
      // Issue 49: a quote's orders, none yet.
      orders: [],
      _document_type: 'quote',
    };
    expect(created.body).toEqual({ data: expected });
    const quote = created.body.data;
    expect(Object.keys(quote)).toEqual(quoteKeys);
    expect(quote.products.map((line: Json) => Object.keys(line))).toEqual(Array(6).fill(lineKeys));
    expect(quote.quote_number).toMatch(/^\d{4}-0001-QTA$/);
    expect(quote.products[0].source).toEqual({
      id: expect.stringMatching(/^src_[0-9a-z]{26}$/),
      name: 'Colt',
      type: 'catalog',
      _document_type: 'source',
    });
    expect(quote.products.slice(1).map((l: Json) => l.source)).toEqual([null, null, null, null, null]);
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
});
