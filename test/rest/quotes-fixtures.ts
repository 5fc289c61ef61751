import { type Json, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';
import { countStoredRows } from '../helpers/store.js';

/*
 * What the POST /quotes tests share (quotes, quotes-refusals): the instances, products and customers they
 * start from, the 422 document and the stored rows they count.
 */

export const problemType = 'application/problem+json; charset=utf-8';

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

export async function customerId(
  tenant: TestTenant,
  body: Record<string, unknown> = { name: 'ACME Telecom' },
) {
  return (await tenant.api.post('/customers', body)).body.data.id as string;
}

export const catalogue = async (tenant: TestTenant, path: string): Promise<Json[]> =>
  (await tenant.api.get(path)).body.data;

/** The 422 problem document. */
export const invalid = (detail: string, errors: { path: string; message: string }[]) => ({
  type: 'urn:connectivity-gateway:problem:validation',
  title: 'Invalid input',
  status: 422,
  detail,
  errors,
});
export const notCreated = 'The quote is invalid; nothing was created.';

export const rowCounts = async (server: TestServer, instanceId: string) => ({
  quotes: await countStoredRows(server.app.services.db, 'quotes', { instanceId }),
  lines: await countStoredRows(server.app.services.db, 'quoteLines', { instanceId }),
});

/**
 * What the POST /quotes tests start from: two instances with the demo catalogue, QTA (the one under test) and
 * QTB (`other`, the foreign one), each with a gathered product and a customer; QTB has a quote.
 */
export interface QuoteSetting {
  tenant: TestTenant;
  other: TestTenant;
  gathered: Json;
  foreignGathered: Json;
  /** QTA's instance products and mandatory products. */
  items: Json[];
  mandatory: Json[];
  customer: string;
  foreignCustomer: string;
  foreignItem: Json;
  foreignQuote: string;
}

export async function quoteSetting(server: TestServer): Promise<QuoteSetting> {
  const tenant = await server.tenant({ code: 'QTA' });
  const other = await server.tenant({ code: 'QTB' });
  const [gathered, foreignGathered] = await Promise.all([gatherProduct(tenant), gatherProduct(other)]);
  const items = await catalogue(tenant, '/instance-products');
  const mandatory = await catalogue(tenant, '/mandatory-products');
  const customer = await customerId(tenant);
  const foreignCustomer = await customerId(other, { name: 'Foreign B.V.' });
  const [foreignItem] = await catalogue(other, '/instance-products');
  const foreignQuote = (await other.api.post('/quotes', { name: 'Theirs', customer_id: foreignCustomer }))
    .body.data.id;
  return {
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
  };
}
