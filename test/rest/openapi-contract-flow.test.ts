import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/rest/routes.js';
import {
  type ApiClient,
  contractExampleBatch,
  type Json,
  type JsonResponse,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';
import { validateRestResponse } from '../helpers/openapi.js';
import { updateStoredRows } from '../helpers/store.js';
import { PROBLEM } from './openapi-fixtures.js';

describe('REST responses of the contract flow', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let api: ApiClient;
  const seen: string[] = [];

  /** One request through the ApiClient, its response validated against the document. */
  async function call(
    client: ApiClient,
    method: string,
    path: string,
    init: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<JsonResponse> {
    const response = await client.request(method, path, init);
    validateRestResponse(method, path, response.status, response.headers.get('content-type'), response.body);
    seen.push(`${method} ${path.split('?')[0]} ${response.status}`);
    return response;
  }

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ code: 'OAS', roles: ['connectivity_check', 'ordering'] });
    api = tenant.api;
  });
  afterAll(() => server.close());

  it('when signing in with credentials, then a refresh token, then signing out, then every answer matches the document', async () => {
    const signIn = await call(server.anonymous, 'POST', '/authentication', {
      body: { client_id: tenant.clientId, client_secret: tenant.clientSecret },
    });
    const refreshed = await call(server.anonymous, 'POST', '/authentication', {
      body: { auth_refresh_token: signIn.body.data.auth_refresh_token },
    });
    const signOut = await call(server.anonymous, 'DELETE', '/authentication', {
      headers: { 'x-auth-token': refreshed.body.data.auth_token },
    });

    expect([signIn.status, refreshed.status, signOut.status]).toEqual([200, 200, 204]);
  });

  it('when running the availability flow, then options, create, list and the completed request match the document', async () => {
    expect((await call(api, 'GET', '/availability-requests/options?country_code=NL')).status).toBe(200);
    const created = await call(api, 'POST', '/availability-requests', { body: contractExampleBatch });
    expect(created.status).toBe(201);
    expect((await call(api, 'GET', '/availability-requests?page=1&page_size=10')).body.data).toHaveLength(2);

    const id = created.body.data[0].id;
    const done = await waitFor(
      () => call(api, 'GET', `/availability-requests/${id}`),
      (response) => response.body.data.status === 'completed',
    );
    expect(done.body.data.products.length).toBeGreaterThan(0);
  });

  it('when running the customer, project, product and quote flow, then every answer matches the document', async () => {
    const customer = await call(api, 'POST', '/customers', {
      body: { name: 'ACME Telecom', website: 'https://acme.example', financial_details: { apply_vat: true } },
    });
    expect(customer.status).toBe(201);
    await call(api, 'POST', '/customers', { body: { name: 'Bare B.V.' } });
    expect((await call(api, 'GET', '/customers?filter[name]=acme')).body.data).toHaveLength(1);
    const customerId = customer.body.data.id;

    expect(
      (await call(api, 'POST', '/projects', { body: { customer_id: customerId, name: 'HQ' } })).status,
    ).toBe(201);
    expect((await call(api, 'GET', `/projects?customer_id=${customerId}`)).body.data).toHaveLength(1);

    const items = (await call(api, 'GET', '/instance-products')).body.data;
    await call(api, 'GET', '/mandatory-products');
    const requests = (await call(api, 'GET', '/availability-requests')).body.data;
    const detail = await waitFor(
      () => call(api, 'GET', `/availability-requests/${requests[0].id}`),
      (response) => response.body.data.status === 'completed',
    );

    const quote = await call(api, 'POST', '/quotes', {
      body: {
        name: 'Head office',
        customer_id: customerId,
        reference_number: 'PO-1',
        availability_request_product_ids: detail.body.data.products.slice(0, 1).map((p: Json) => p.id),
      },
    });
    expect(quote.status).toBe(201);
    const quoteId = quote.body.data.id;
    expect((await call(api, 'GET', `/quotes/${quoteId}`)).status).toBe(200);
    const added = await call(api, 'POST', `/quotes/${quoteId}/products`, {
      body: { instance_product_ids: items.slice(0, 2).map((item: Json) => item.id) },
    });
    expect(added.status).toBe(200);

    const order = await call(api, 'POST', '/orders', {
      body: { quote_id: quoteId, contact: { name: 'ACME NOC', email_address: 'noc@acme.example' } },
    });
    expect(order.status).toBe(201);
    const orderId = order.body.data.id;
    expect((await call(api, 'GET', `/orders/${orderId}`)).status).toBe(200);
    // The gathered product and the two instance products are manual; the mandatory ones need no delivery.
    expect(order.body.data.lines.map((line: Json) => [line.fulfilment, line.status])).toEqual([
      ['manual', 'pending'],
      ['none', 'completed'],
      ['none', 'completed'],
      ['manual', 'pending'],
      ['manual', 'pending'],
    ]);
    // Ordered, the quote is frozen (issue 49): its 409 matches the document too.
    const frozen = await call(api, 'POST', `/quotes/${quoteId}/products`, {
      body: { instance_product_ids: items.slice(2, 3).map((item: Json) => item.id) },
    });
    expect(frozen.status).toBe(409);
    const ordered = await call(api, 'GET', `/quotes/${quoteId}`);
    expect(ordered.body.data.orders).toEqual([{ id: orderId, status: 'pending', _document_type: 'order' }]);
    expect(
      (await call(api, 'GET', `/orders?filter[customer_id]=${customerId}&filter[status]=pending`)).body.data,
    ).toHaveLength(1);
    const moved = await call(api, 'PATCH', `/orders/${orderId}/lines/${order.body.data.lines[0].id}`, {
      body: { status: 'completed', note: 'Delivered' },
    });
    expect(moved.body.data.lines[0].status).toBe('completed');
    for (const verb of ['accept', 'decline']) {
      const line = order.body.data.lines[0].id;
      const unknown = await call(
        api,
        'POST',
        `/orders/${orderId}/lines/${line}/charges/no-such-charge/${verb}`,
      );
      expect(unknown.status).toBe(404);
    }
    const cancelled = await call(api, 'POST', `/orders/${orderId}/cancel`, {
      body: { reason: 'The customer moved offices.' },
    });
    expect(cancelled.status).toBe(202);
    // The lines that ended stay as they ended: the one moved, and the `none` lines completed when placed.
    expect(cancelled.body.data.lines.map((line: Json) => line.status)).toEqual([
      'completed',
      'completed',
      'completed',
      'cancelled',
      'cancelled',
    ]);
    for (const verb of ['accept', 'decline']) {
      const unknown = await call(
        api,
        'POST',
        `/orders/${orderId}/cancellation-charges/no-such-charge/${verb}`,
      );
      expect(unknown.status).toBe(404);
    }
  });

  it('when a POST is repeated with its Idempotency-Key, then the replay matches the document too', async () => {
    const init = { body: { name: 'Once Only' }, headers: { 'idempotency-key': 'oas-once-only' } };
    const first = await call(api, 'POST', '/customers', init);
    const replay = await call(api, 'POST', '/customers', init);
    const mismatch = await call(api, 'POST', '/customers', { ...init, body: { name: 'Other' } });

    expect([first.status, replay.status, mismatch.status]).toEqual([201, 201, 422]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('when requests go wrong, then every problem+json answer matches the document', async () => {
    // No REST route is open to a signed-in user without a role; only the database can make one.
    const limited = await server.tenant({ code: 'OAT' });
    await updateStoredRows(
      server.app.services.db,
      'users',
      { roles: [] },
      { instanceId: limited.instanceId },
    );
    const cases: [
      ApiClient,
      string,
      string,
      { body?: unknown; raw?: string; headers?: Record<string, string> },
      number,
    ][] = [
      [
        api,
        'POST',
        '/availability-requests',
        { body: [{ address: { country_code: 'NL', postal_code: '1016' } }] },
        422,
      ],
      [api, 'POST', '/customers', { body: { name: 'X', preferredCurrency: 'EUR' } }, 422],
      [api, 'GET', '/availability-requests?page_size=101', {}, 422],
      [api, 'GET', '/availability-requests/options?country_code=XX', {}, 422],
      [api, 'GET', '/quotes/quo_01m81c3718e04ss8zkx0k227dm', {}, 404],
      [api, 'GET', '/availability-requests/avr_01m81c3718e04ss8zkx0k227dm', {}, 404],
      [api, 'POST', '/quotes/quo_01m81c3718e04ss8zkx0k227dm/products', { body: {} }, 404],
      [api, 'GET', '/projects?customer_id=cus_01m81c3718e04ss8zkx0k227dm', {}, 404],
      [api, 'GET', '/no-such-route', {}, 404],
      [api, 'DELETE', '/customers', {}, 405],
      [server.anonymous, 'GET', '/customers', {}, 401],
      [
        server.anonymous,
        'POST',
        '/authentication',
        { body: { client_id: 'nobody', client_secret: 'wrong' } },
        401,
      ],
      [limited.api, 'GET', '/customers', {}, 403],
      [api, 'POST', '/customers', { raw: '{"name":', headers: { 'content-type': 'application/json' } }, 400],
      [api, 'POST', '/customers', { raw: 'name=x', headers: { 'content-type': 'text/plain' } }, 415],
      [
        api,
        'POST',
        '/customers',
        {
          raw: JSON.stringify({ name: 'x'.repeat(1_100_000) }),
          headers: { 'content-type': 'application/json' },
        },
        413,
      ],
    ];

    for (const [client, method, path, init, status] of cases) {
      const response = await call(client, method, path, init);
      expect(response.status, `${method} ${path}`).toBe(status);
      expect(response.headers.get('content-type'), `${method} ${path}`).toBe(PROBLEM);
    }
  });

  it('when the flow is done, then every route was called and validated', () => {
    const called = new Set(seen.map((entry) => entry.split(' ').slice(0, 2).join(' ')));
    for (const route of routes) {
      const pattern = new RegExp(`^${route.method} ${route.path.replace(/:\w+/g, '[^/]+')}$`);
      expect(
        [...called].some((entry) => pattern.test(entry)),
        `${route.method} ${route.path}`,
      ).toBe(true);
    }
  });
});
