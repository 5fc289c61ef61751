import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SupplierSimulator, startSupplierSimulator } from '../../src/gathering/simulator/server.js';
import { type Json, startTestServer, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';
import { registerHttpSource } from '../ordering/http-orders-fixtures.js';

/*
 * Issue 49: each product names its source, so twin products — one offer of one network from two sources —
 * can be told apart. The demo catalogue's `KPN WBA` (a `catalog` source) and the simulator's `kpn-wba`
 * supplier registered as the `http` source `KPN WBA direct` (the same catalogue's offers; without offer
 * ids, so its lines are ordered by hand) both offer KPN FTTH 1 Gbit/s for 36 months at Lijnbaansgracht 206:
 * the request lists both, a quote of both shows each line's source, and so does its order, over REST and
 * GraphQL.
 */

const PRODUCT = `id source { id name type } network technologyType connectionType bandwidth { download upload }
  contractTerm mrc nrc currency`;
const READ_REQUEST = `query ($id: ID!) { availabilityRequest(id: $id) { id products { ${PRODUCT} } } }`;
const READ_QUOTE = `query ($id: ID!) { quote(id: $id) { products { id productId source { id name type } } } }`;
const READ_ORDER = `query ($id: ID!) {
  order(id: $id) { lines { id quoteLineId fulfilment status source { id name type } } }
}`;

/** A product or line without its id and source: what twins share. */
const twinPart = ({ id: _id, source: _source, ...rest }: Json) => rest;

describe('twin products of one network from two sources', () => {
  let sim: SupplierSimulator;
  let server: TestServer;
  let tenant: TestTenant;
  let directId: string;

  beforeAll(async () => {
    sim = await startSupplierSimulator();
    server = await startTestServer();
    tenant = await server.tenant({
      code: 'TWN',
      roles: ['instance_admin', 'connectivity_check', 'ordering'],
    });
    directId = await registerHttpSource(tenant, {
      key: 'kpn-wba-direct',
      name: 'KPN WBA direct',
      network: 'KPN',
      endpointUrl: sim.endpoint('kpn-wba', { offer_ids: 'none' }),
    });
  });
  afterAll(async () => {
    await server?.close();
    await sim?.stop();
  });

  it('when both sources offer the same product at one address, then the request, a quote of both and its order name each one’s source', async () => {
    const created = await tenant.api.post('/availability-requests', [
      {
        address: { country_code: 'NL', postal_code: '1016XA', house_number: '206' },
        networks: ['KPN'],
        technology_types: ['FTTH'],
        bandwidths: [{ download: 1_000_000, upload: 1_000_000 }],
        contract_terms: [36],
      },
    ]);
    expect(created.status).toBe(201);
    const requestId = created.body.data[0].id;
    const done = await waitFor(
      () => tenant.api.get(`/availability-requests/${requestId}`),
      (response) => response.body.data.status === 'completed',
    );
    const { products, sources } = done.body.data;

    // The two sources of KPN that offer it, each with one product (KPN WEAS has no FTTH).
    const byName = (name: string) => sources.find((source: Json) => source.name === name);
    const wba = byName('KPN WBA');
    expect(byName('KPN WBA direct')).toMatchObject({ source_id: directId, product_count: 1 });
    expect(wba).toMatchObject({ network: 'KPN', status: 'succeeded', product_count: 1 });
    expect(wba.source_id).toMatch(/^src_[0-9a-z]{26}$/);
    expect(wba.source_id).not.toBe(directId);
    const catalogSource = { id: wba.source_id, name: 'KPN WBA', type: 'catalog', _document_type: 'source' };
    const httpSource = { id: directId, name: 'KPN WBA direct', type: 'http', _document_type: 'source' };
    expect(products).toHaveLength(2);
    const fromCatalog = products.find((product: Json) => product.source?.id === wba.source_id);
    const fromHttp = products.find((product: Json) => product.source?.id === directId);
    expect(fromCatalog).toEqual({
      id: expect.stringMatching(/^prd_/),
      source: catalogSource,
      network: 'KPN',
      technology_type: 'FTTH',
      connection_type: 'SHARED',
      bandwidth: { download: 1_000_000, upload: 1_000_000 },
      contract_term: 36,
      // The catalogue's 88.95 / 105.00 under the demo's default plan.
      mrc: 108.52,
      nrc: 117.6,
      currency: 'EUR',
      _document_type: 'availability_request_product',
    });
    // Twins: everything but the id and the source alike, prices too.
    expect(fromHttp).toEqual({ ...fromCatalog, id: expect.stringMatching(/^prd_/), source: httpSource });
    expect(fromHttp.id).not.toBe(fromCatalog.id);
    expect(twinPart(fromHttp)).toEqual(twinPart(fromCatalog));

    const graphqlSource = ({ _document_type: _type, ...source }: Json) => source;
    const overGraphql = await tenant.api.graphql(READ_REQUEST, { id: requestId });
    expect(overGraphql.errors).toBeUndefined();
    const graphqlProducts = overGraphql.data.availabilityRequest.products;
    expect(
      [...graphqlProducts]
        .map((product: Json) => [product.id, product.source, product.network, product.technologyType])
        .sort(([a]: Json[], [b]: Json[]) => (a < b ? -1 : 1)),
    ).toEqual(
      [
        [fromCatalog.id, graphqlSource(catalogSource), 'KPN', 'FTTH'],
        [fromHttp.id, graphqlSource(httpSource), 'KPN', 'FTTH'],
      ].sort(([a], [b]) => (a < b ? -1 : 1)),
    );

    // A quote of both: each line keeps the source of its product.
    const customer = (await tenant.api.post('/customers', { name: 'Twin B.V.' })).body.data.id;
    const quote = await tenant.api.post('/quotes', {
      name: 'Both',
      customer_id: customer,
      availability_request_product_ids: [fromCatalog.id, fromHttp.id],
    });
    expect(quote.status).toBe(201);
    const lines = quote.body.data.products;
    expect(lines.map((line: Json) => [line.kind, line.product_id, line.source])).toEqual([
      ['availability_request_product', fromCatalog.id, catalogSource],
      ['availability_request_product', fromHttp.id, httpSource],
      ['mandatory_product', expect.stringMatching(/^mpr_/), null],
      ['mandatory_product', expect.stringMatching(/^mpr_/), null],
    ]);
    expect(lines[0].name).toBe('KPN FTTH SHARED 1 Gbit/s, 36 months');
    expect(lines[1].name).toBe(lines[0].name);
    expect(twinPart(lines[1])).toEqual({ ...twinPart(lines[0]), product_id: fromHttp.id });
    expect((await tenant.api.get(`/quotes/${quote.body.data.id}`)).body.data.products).toEqual(lines);
    const quoteOverGraphql = await tenant.api.graphql(READ_QUOTE, { id: quote.body.data.id });
    expect(quoteOverGraphql.data.quote.products).toEqual(
      lines.map((line: Json) => ({
        id: line.id,
        productId: line.product_id,
        source: line.source && graphqlSource(line.source),
      })),
    );

    // Its order: each line names the source it is ordered from, as the quote line did.
    const placed = await tenant.api.post('/orders', { quote_id: quote.body.data.id });
    expect(placed.status).toBe(201);
    const order = placed.body.data;
    expect(order.status).toBe('pending');
    expect(
      order.lines.map((line: Json) => [line.quote_line_id, line.fulfilment, line.status, line.source]),
    ).toEqual([
      [lines[0].id, 'manual', 'pending', catalogSource],
      [lines[1].id, 'manual', 'pending', httpSource],
      [lines[2].id, 'none', 'completed', null],
      [lines[3].id, 'none', 'completed', null],
    ]);
    expect((await tenant.api.get(`/orders/${order.id}`)).body.data.lines).toEqual(order.lines);
    const orderOverGraphql = await tenant.api.graphql(READ_ORDER, { id: order.id });
    expect(orderOverGraphql.errors).toBeUndefined();
    expect(orderOverGraphql.data.order.lines).toEqual(
      order.lines.map((line: Json) => ({
        id: line.id,
        quoteLineId: line.quote_line_id,
        fulfilment: line.fulfilment.toUpperCase(),
        status: line.status.toUpperCase(),
        source: line.source && graphqlSource(line.source),
      })),
    );
  });
});
