import { expect } from 'vitest';
import type { Role } from '../../src/context.js';
import { createApplication } from '../../src/resolvers/operator.js';
import { ApiClient, type Json, type TestServer, type TestTenant } from '../helpers/app.js';
import { countStoredRows } from '../helpers/store.js';
import { catalogue, customerId } from './quotes-fixtures.js';

/*
 * What the order tests share: a quote of catalogue products and the documents. Its gathered and instance
 * products become `manual` lines; the demo's two mandatory products need no delivery (`none`, issue 49).
 */

/**
 * A quote of a tenant: one gathered catalogue product, one instance product, and the mandatory ones — four
 * lines, the first two `manual`, the last two (the demo's mandatory products) `none` once ordered.
 */
export async function manualQuote(tenant: TestTenant, name = 'ACME Telecom'): Promise<Json> {
  const address = { country_code: 'NL', postal_code: '1016XA', house_number: '206' };
  const created = await tenant.api.post('/availability-requests', [{ address }]);
  const requestId = created.body.data[0].id;
  let product: Json = null;
  for (let tries = 0; tries < 200 && !product; tries += 1) {
    const read = await tenant.api.get(`/availability-requests/${requestId}`);
    if (read.body.data.status === 'completed') product = read.body.data.products[0];
    else await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const [item] = await catalogue(tenant, '/instance-products');
  const customer = await customerId(tenant, { name });
  const quote = await tenant.api.post('/quotes', {
    name: 'Office line',
    customer_id: customer,
    availability_request_product_ids: [product.id],
    instance_product_ids: [item.id],
  });
  expect(quote.status).toBe(201);
  return quote.body.data;
}

/** The order line a manual quote line becomes, before anyone moved it. */
export function pendingManualLine(quoteLine: Json) {
  return {
    id: expect.stringMatching(/^orl_[0-9a-z]{26}$/),
    quote_line_id: quoteLine.id,
    name: quoteLine.name,
    // The quote line's source, as the line named it (issue 49): a catalogue source, or null.
    source: quoteLine.source,
    fulfilment: 'manual',
    status: 'pending',
    supplier_status: null,
    supplier_order_id: null,
    supplier_item_id: null,
    expected_completion_date: null,
    completion_date: null,
    inventory_product_id: null,
    inventory_product_status: null,
    milestones: [],
    charges: [],
    price_change: null,
    cancellation: null,
    error: null,
    notice: null,
    note: null,
    status_changed_at: null,
    status_changed_by_user_id: null,
    _document_type: 'order_line',
  };
}

/**
 * The order line a quote line of a product that needs no delivery (`fulfilment` `none`, issue 49) becomes:
 * `completed` as the order is placed at `placedAt` — its completion and its status change both then, by no
 * one.
 */
export function placedNoneLine(quoteLine: Json, placedAt: Date) {
  return {
    ...pendingManualLine(quoteLine),
    fulfilment: 'none',
    status: 'completed',
    completion_date: isoSecond(placedAt),
    status_changed_at: isoSecond(placedAt),
    status_changed_by_user_id: null,
  };
}

/**
 * The lines of a just-placed order of a {@link manualQuote} (or any quote of the demo catalogue): the
 * mandatory products' lines `none` and completed at `placedAt`, every other one a pending manual line.
 */
export const placedLines = (quote: Json, placedAt: Date) =>
  quote.products.map((line: Json) =>
    line.kind === 'mandatory_product' ? placedNoneLine(line, placedAt) : pendingManualLine(line),
  );

/** The lines of an order someone moves by hand: its `manual` ones (issue 49: `none` lines have ended). */
export const manualLines = (order: Json): Json[] =>
  order.lines.filter((line: Json) => line.fulfilment === 'manual');

/** The rows of a tenant's orders, their lines and supplier orders. */
export const orderRowCounts = async (server: TestServer, instanceId: string) => ({
  orders: await countStoredRows(server.app.services.db, 'orders', { instanceId }),
  lines: await countStoredRows(server.app.services.db, 'orderLines', { instanceId }),
  supplierOrders: await countStoredRows(server.app.services.db, 'supplierOrders', { instanceId }),
});

/** ISO 8601 with UTC offset to the second, as the documents write times. */
export const isoSecond = (date: Date) => `${date.toISOString().slice(0, -5)}+00:00`;

/** Signs in with an application's credentials: a client acting as its user, and that user's id. */
export async function signIn(
  server: TestServer,
  credentials: { clientId: string; clientSecret: string },
): Promise<{ api: ApiClient; userId: string }> {
  const signedIn = await server.anonymous.post('/authentication', {
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
  });
  expect(signedIn.status).toBe(200);
  return {
    api: new ApiClient(server.app.url, signedIn.body.data.auth_token),
    userId: signedIn.body.data.user.id,
  };
}

/** Another application of the tenant's own instance, with only `roles`, signed in. */
export async function otherApplication(
  server: TestServer,
  tenant: TestTenant,
  roles: Role[],
): Promise<{ api: ApiClient; userId: string }> {
  return signIn(server, await createApplication(server.app.services, { instance: tenant.instanceId, roles }));
}
