import { expect } from 'vitest';
import type { SonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import {
  contractExampleBatch,
  type Json,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';
import type { SonataValidator } from '../helpers/sonata-openapi.js';
import { sonataApiOf } from '../helpers/sonata-openapi.js';

/*
 * What the gateway-level ordering tests share: a tenant's quote with one product of each of its Sonata
 * sources and one instance product, waiting for an order's lines, and checking every order exchange a
 * seller saw against the MEF documents.
 */

const CREATE_PRODUCT = `mutation ($input: InstanceProductInput!) {
  createInstanceProduct(input: $input) { product { id } }
}`;

/** A quote for a new customer: the first product of each network in `networks` (in that order), then a router. */
export async function sonataQuote(tenant: TestTenant, networks: readonly string[]): Promise<Json> {
  const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
  const id = created.body.data[0].id;
  const done = await waitFor(
    () => tenant.api.get(`/availability-requests/${id}`),
    (response) => response.body.data.status === 'completed',
    30_000,
  );
  const productIds = networks.map((network) => {
    const product = done.body.data.products.find((each: Json) => each.network === network);
    expect(product, `a product of ${network}`).toBeDefined();
    return product.id;
  });
  const router = await tenant.api.graphql(CREATE_PRODUCT, {
    input: { name: 'Router rental', mrc: 9.5, nrc: 0, currency: 'EUR' },
  });
  const customer = (await tenant.api.post('/customers', { name: 'Acme Logistics B.V.' })).body.data.id;
  const quote = await tenant.api.post('/quotes', {
    name: 'Head office',
    customer_id: customer,
    availability_request_product_ids: productIds,
    instance_product_ids: [router.data.createInstanceProduct.product.id],
  });
  expect(quote.status).toBe(201);
  return quote.body.data;
}

/** Reads the order until `done` holds for it (within 30 s). */
export async function orderWhen(
  tenant: TestTenant,
  orderId: string,
  done: (order: Json) => boolean,
): Promise<Json> {
  const read = await waitFor(
    () => tenant.api.get(`/orders/${orderId}`),
    (response) => response.status === 200 && done(response.body.data),
    30_000,
  );
  return read.body.data;
}

/** Whether every supplier line of an order has ended. */
export const supplierLinesEnded = (order: Json) =>
  order.lines
    .filter((line: Json) => line.fulfilment === 'supplier')
    .every((line: Json) => ['completed', 'failed', 'cancelled'].includes(line.status));

/** The order and inventory exchanges of one seller (`/sonata/<key>/…`), as `METHOD path-below-the-API status`. */
export function orderCalls(seller: SonataSeller, sourceKey: string): string[] {
  return seller.exchanges
    .filter((exchange) => exchange.path.startsWith(`/sonata/${sourceKey}/`))
    .filter((exchange) => /productOrderingManagement|productInventory/.test(exchange.path))
    .map((exchange) => {
      const below = exchange.path.replace(/^.*\/mefApi\/sonata\/[A-Za-z]+\/v\d+/, '');
      return `${exchange.method} ${below.replace(/\/[^/]+$/, (last) => (last === '/productOrder' || last === '/charge' || last === '/hub' ? last : '/{id}'))} ${exchange.status}`;
    });
}

/** Every order and inventory exchange (and notification) of the seller, checked against the documents. */
export function expectValidOrderExchanges(seller: SonataSeller, validator: SonataValidator): void {
  for (const exchange of seller.exchanges) {
    const api = sonataApiOf(exchange.path);
    if (api !== 'order' && api !== 'inventory') continue;
    const request = {
      method: exchange.method,
      path: exchange.path,
      body: exchange.requestBody,
      query: exchange.query,
    };
    expect(validator.request(api, request), `${exchange.method} ${exchange.path}`).toEqual([]);
    const response = {
      method: exchange.method,
      path: exchange.path,
      status: exchange.status,
      body: exchange.responseBody,
    };
    expect(
      validator.response(api, response),
      `${exchange.method} ${exchange.path} ${exchange.status}`,
    ).toEqual([]);
  }
  for (const notification of seller.notifications) {
    if (sonataApiOf(notification.url) !== 'order') continue;
    expect(
      validator.notification('order', { path: new URL(notification.url).pathname, body: notification.body }),
    ).toEqual([]);
  }
}

/** The supplier orders of an order, as stored. */
export const supplierOrdersOf = (server: TestServer, orderId: string) =>
  server.app.services.db.listSupplierOrders(orderId);
