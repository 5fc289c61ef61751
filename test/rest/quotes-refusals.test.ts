import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { invalid, notCreated, problemType, quoteSetting, rowCounts } from './quotes-fixtures.js';

/* What POST /quotes and POST /quotes/{id}/products refuse (422), and quotes that are not the caller's (404). */

const unknownId = (prefix: string) => `${prefix}_01m81c3718e04ss8zkx0k227dm`;

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
    ({
      tenant,
      other,
      gathered,
      foreignGathered,
      items,
      mandatory,
      customer,
      foreignCustomer,
      foreignItem,
      foreignQuote,
    } = await quoteSetting(server));
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
