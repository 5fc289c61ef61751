import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import {
  isoSecond,
  manualLines,
  manualQuote,
  orderRowCounts,
  pendingManualLine,
  placedLines,
  placedNoneLine,
  signIn,
} from './orders-fixtures.js';
import { catalogue, problemType, rowCounts } from './quotes-fixtures.js';

/*
 * Issue 49: lines that need no delivery and frozen quotes. The demo's mandatory products are `none`: their
 * order lines are `completed` as the order is placed and never waited for. A quote with an order that is
 * neither `failed` nor `cancelled` keeps its products as ordered: adding one answers 409 (REST) or CONFLICT
 * (GraphQL) and changes nothing; the REST quote lists its orders.
 */

const frozenDetail = (quoteId: string) =>
  `Quote ${quoteId} has an order that is open or completed, so its products stay as ordered; none was added.`;

const ADD_PRODUCTS = `mutation ($input: AddQuoteProductsInput!) {
  addQuoteProducts(input: $input) { quote { id totalProducts } }
}`;

describe('ordered quotes over REST and GraphQL', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let items: Json[];

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ code: 'OQA', roles: ['connectivity_check', 'ordering'] });
    items = await catalogue(tenant, '/instance-products');
  });
  afterAll(() => server.close());

  /** Places an order of the quote with the clock stopped: the order and when it was placed. */
  async function placeAt(quoteId: string): Promise<{ order: Json; placedAt: Date }> {
    server.clock.freeze();
    const placedAt = server.clock.now();
    const placed = await tenant.api.post('/orders', { quote_id: quoteId });
    server.clock.thaw();
    expect(placed.status).toBe(201);
    return { order: placed.body.data, placedAt };
  }

  const move = (order: Json, line: Json, status: string) =>
    tenant.api.request('PATCH', `/orders/${order.id}/lines/${line.id}`, { body: { status } });

  it('when a quote with the mandatory products is ordered, then their none lines are completed as it is placed, the order waits on its manual lines and completes with them', async () => {
    const quote = await manualQuote(tenant, 'Alpha B.V.');
    const { userId } = await signIn(server, tenant);

    const { order, placedAt } = await placeAt(quote.id);

    expect(order.status).toBe('pending');
    expect(order.lines).toEqual(placedLines(quote, placedAt));
    expect(
      order.lines.map((line: Json) => [
        line.name,
        line.fulfilment,
        line.status,
        line.completion_date,
        line.status_changed_at,
        line.status_changed_by_user_id,
      ]),
    ).toEqual([
      [quote.products[0].name, 'manual', 'pending', null, null, null],
      [items[0].name, 'manual', 'pending', null, null, null],
      ['Administration fee', 'none', 'completed', isoSecond(placedAt), isoSecond(placedAt), null],
      ['Service desk access', 'none', 'completed', isoSecond(placedAt), isoSecond(placedAt), null],
    ]);
    expect(order.created_at).toBe(isoSecond(placedAt));

    server.clock.advance(60_000);
    server.clock.freeze();
    const movedAt = server.clock.now();
    const [first, second] = manualLines(order);
    const started = await move(order, first, 'completed');
    const done = await move(order, second, 'completed');
    server.clock.thaw();

    expect([started.status, started.body.data.status]).toEqual([200, 'in_progress']);
    expect([done.status, done.body.data.status]).toEqual([200, 'completed']);
    const completedByHand = (line: Json, quoteLine: Json) => ({
      ...pendingManualLine(quoteLine),
      id: line.id,
      status: 'completed',
      completion_date: isoSecond(movedAt),
      status_changed_at: isoSecond(movedAt),
      status_changed_by_user_id: userId,
    });
    // The none lines stay as they were placed: completed then, by no one.
    expect(done.body.data.lines).toEqual([
      completedByHand(first, quote.products[0]),
      completedByHand(second, quote.products[1]),
      { ...placedNoneLine(quote.products[2], placedAt), id: order.lines[2].id },
      { ...placedNoneLine(quote.products[3], placedAt), id: order.lines[3].id },
    ]);
    expect((await tenant.api.get(`/orders/${order.id}`)).body.data).toEqual(done.body.data);
  });

  it('when an ordered quote is given products, then 409 over REST and CONFLICT over GraphQL, and the quote is as ordered; once its order failed, products are added again', async () => {
    const quote = await manualQuote(tenant, 'Beta B.V.');
    expect(quote.orders).toEqual([]);
    const unordered = await tenant.api.get(`/quotes/${quote.id}`);
    expect(unordered.body.data).toEqual(quote);
    const extra = items.find((item) => !quote.products.some((line: Json) => line.product_id === item.id));
    expect(extra).toBeDefined();

    const { order } = await placeAt(quote.id);
    const ordered = await tenant.api.get(`/quotes/${quote.id}`);
    const counts = await rowCounts(server, tenant.instanceId);
    const orderCounts = await orderRowCounts(server, tenant.instanceId);

    const refused = await tenant.api.post(`/quotes/${quote.id}/products`, {
      instance_product_ids: [extra.id],
    });
    const refusedOverGraphql = await tenant.api.graphql(ADD_PRODUCTS, {
      input: { quoteId: quote.id, instanceProductIds: [extra.id] },
    });

    expect(ordered.status).toBe(200);
    expect(ordered.body.data).toEqual({
      ...quote,
      orders: [{ id: order.id, status: 'pending', _document_type: 'order' }],
    });
    expect(refused.status).toBe(409);
    expect(refused.headers.get('content-type')).toBe(problemType);
    expect(refused.body).toEqual({
      type: 'urn:connectivity-gateway:problem:conflict',
      title: 'Conflict',
      status: 409,
      detail: frozenDetail(quote.id),
    });
    expect(refusedOverGraphql.data).toBeNull();
    expect(refusedOverGraphql.errors).toEqual([
      expect.objectContaining({
        message: frozenDetail(quote.id),
        path: ['addQuoteProducts'],
        extensions: { code: 'CONFLICT' },
      }),
    ]);
    // Nothing was written: the same products and totals, the same rows.
    const after = await tenant.api.get(`/quotes/${quote.id}`);
    expect(after.body).toEqual(ordered.body);
    expect(after.body.data).toMatchObject({
      products: quote.products,
      total_products: 4,
      total_mrc: quote.total_mrc,
      total_nrc: quote.total_nrc,
    });
    expect(await rowCounts(server, tenant.instanceId)).toEqual(counts);
    expect(await orderRowCounts(server, tenant.instanceId)).toEqual(orderCounts);

    // Its delivered lines all failed: the order failed (its none lines are still completed) and the
    // quote takes products again.
    for (const line of manualLines(order)) expect((await move(order, line, 'failed')).status).toBe(200);
    const failed = await tenant.api.get(`/quotes/${quote.id}`);
    expect(failed.body.data.orders).toEqual([{ id: order.id, status: 'failed', _document_type: 'order' }]);
    const added = await tenant.api.post(`/quotes/${quote.id}/products`, {
      instance_product_ids: [extra.id],
    });
    expect(added.status).toBe(200);
    const cents = (amount: number) => Math.round(amount * 100);
    expect(added.body.data).toMatchObject({
      total_products: 5,
      total_mrc: (cents(quote.total_mrc) + cents(extra.mrc)) / 100,
      total_nrc: (cents(quote.total_nrc) + cents(extra.nrc)) / 100,
      orders: [{ id: order.id, status: 'failed', _document_type: 'order' }],
    });
    expect(added.body.data.products.slice(0, 4)).toEqual(quote.products);
    expect(added.body.data.products[4]).toMatchObject({
      kind: 'instance_product',
      product_id: extra.id,
      name: extra.name,
      source: null,
    });

    // Ordered again, it is frozen again; its orders newest first.
    server.clock.advance(1_000);
    const { order: again } = await placeAt(quote.id);
    expect(again.lines).toHaveLength(5);
    const listed = await tenant.api.get(`/quotes/${quote.id}`);
    expect(listed.body.data.orders).toEqual([
      { id: again.id, status: 'pending', _document_type: 'order' },
      { id: order.id, status: 'failed', _document_type: 'order' },
    ]);
    const stillFrozen = await tenant.api.post(`/quotes/${quote.id}/products`, {
      instance_product_ids: [items.find((item) => item.id !== extra.id && item.id !== items[0].id).id],
    });
    expect(stillFrozen.status).toBe(409);
    expect(stillFrozen.body.detail).toBe(frozenDetail(quote.id));
  });

  it('when a quote’s order is cancelled, then the quote takes products again; a completed order keeps it frozen', async () => {
    const quote = await manualQuote(tenant, 'Gamma B.V.');
    const { order } = await placeAt(quote.id);
    const extras = items.filter((item) => !quote.products.some((line: Json) => line.product_id === item.id));

    const cancelled = await tenant.api.post(`/orders/${order.id}/cancel`, { reason: 'Not needed.' });
    expect(cancelled.status).toBe(202);
    expect(cancelled.body.data.status).toBe('cancelled');
    const added = await tenant.api.post(`/quotes/${quote.id}/products`, {
      instance_product_ids: [extras[0].id],
    });
    expect(added.status).toBe(200);
    expect(added.body.data.total_products).toBe(5);
    expect(added.body.data.orders).toEqual([{ id: order.id, status: 'cancelled', _document_type: 'order' }]);

    server.clock.advance(1_000);
    const { order: completed } = await placeAt(quote.id);
    for (const line of manualLines(completed)) {
      expect((await move(completed, line, 'completed')).status).toBe(200);
    }
    const refused = await tenant.api.post(`/quotes/${quote.id}/products`, {
      instance_product_ids: [extras[1].id],
    });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toBe(frozenDetail(quote.id));
    const read = await tenant.api.get(`/quotes/${quote.id}`);
    expect(read.body.data.total_products).toBe(5);
    expect(read.body.data.orders.map((each: Json) => [each.id, each.status])).toEqual([
      [completed.id, 'completed'],
      [order.id, 'cancelled'],
    ]);
  });
});
