import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { updateStoredRows } from '../helpers/store.js';
import {
  isoSecond,
  manualLines,
  manualQuote,
  orderRowCounts,
  otherApplication,
  pendingManualLine,
  placedLines,
  signIn,
} from './orders-fixtures.js';
import { invalid, problemType } from './quotes-fixtures.js';

/*
 * Orders of quotes of catalogue and instance products: placing, reading, moving. Their lines are manual, but
 * for the demo's mandatory products, which need no delivery (`none`, issue 49): completed when placed.
 */

const notPlaced = 'The order was not placed; nothing was written.';

describe('orders over REST', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let other: TestTenant;
  let quote: Json;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ code: 'ORA', roles: ['connectivity_check', 'ordering'] });
    other = await server.tenant({ code: 'ORB', roles: ['connectivity_check', 'ordering'] });
    quote = await manualQuote(tenant);
  });
  afterAll(() => server.close());

  it('when a quote is ordered, then its manual lines are pending, its none lines completed, and the order is pending, once', async () => {
    server.clock.freeze();
    const now = server.clock.now();
    const placed = await tenant.api.post('/orders', { quote_id: quote.id });
    server.clock.thaw();
    expect(placed.status).toBe(201);
    expect(placed.body.data).toEqual({
      id: expect.stringMatching(/^ord_[0-9a-z]{26}$/),
      quote_id: quote.id,
      customer: { id: quote.customer.id, name: 'ACME Telecom', _document_type: 'customer' },
      status: 'pending',
      lines: placedLines(quote, now),
      requested_completion_date: isoSecond(new Date(now.getTime() + 30 * 86_400_000)),
      cancellation: null,
      cancellation_charges: [],
      created_at: isoSecond(now),
      updated_at: isoSecond(now),
      _document_type: 'order',
    });
    expect(quote.products).toHaveLength(4);
    expect(quote.products.map((line: Json) => [line.kind, line.source])).toEqual([
      [
        'availability_request_product',
        {
          id: expect.stringMatching(/^src_[0-9a-z]{26}$/),
          name: 'Colt',
          type: 'catalog',
          _document_type: 'source',
        },
      ],
      ['instance_product', null],
      ['mandatory_product', null],
      ['mandatory_product', null],
    ]);
    expect(placed.body.data.lines.map((line: Json) => [line.fulfilment, line.status, line.source])).toEqual([
      ['manual', 'pending', quote.products[0].source],
      ['manual', 'pending', null],
      ['none', 'completed', null],
      ['none', 'completed', null],
    ]);
    const read = await tenant.api.get(`/orders/${placed.body.data.id}`);
    expect(read.body.data).toEqual(placed.body.data);

    const before = await orderRowCounts(server, tenant.instanceId);
    const again = await tenant.api.post('/orders', { quote_id: quote.id });
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe(`Quote ${quote.id} has an order that is open or completed. ${notPlaced}`);
    expect(await orderRowCounts(server, tenant.instanceId)).toEqual(before);
    expect(before).toEqual({ orders: 1, lines: 4, supplierOrders: 0 });
  });

  it('when manual lines are moved, then the order follows them to completed, with who, when and the note', async () => {
    const { userId } = await signIn(server, tenant);
    const quoteB = await manualQuote(tenant, 'Beta B.V.');
    server.clock.freeze();
    const placedAt = server.clock.now();
    const order = (await tenant.api.post('/orders', { quote_id: quoteB.id })).body.data;
    server.clock.thaw();
    // Only the manual lines are moved: the mandatory products' lines (`none`) were completed when placed.
    const [first, last, ...ended] = order.lines;
    expect(manualLines(order)).toEqual([first, last]);
    expect(ended.map((line: Json) => [line.fulfilment, line.status])).toEqual([
      ['none', 'completed'],
      ['none', 'completed'],
    ]);
    const move = (line: Json, body: Json) =>
      tenant.api.request('PATCH', `/orders/${order.id}/lines/${line.id}`, { body });

    server.clock.freeze();
    const movedAt = server.clock.now();
    const started = await move(first, { status: 'in_progress', note: 'Line ordered at the carrier portal' });
    server.clock.thaw();
    expect(started.status).toBe(200);
    expect(started.body.data.status).toBe('in_progress');
    expect(started.body.data.lines[0]).toEqual({
      ...pendingManualLine(quoteB.products[0]),
      id: first.id,
      status: 'in_progress',
      note: 'Line ordered at the carrier portal',
      status_changed_at: isoSecond(movedAt),
      status_changed_by_user_id: userId,
    });
    expect(userId).toMatch(/^usr_[0-9a-z]{26}$/);
    // The lines nobody moved show no one; the `none` ones were completed as the order was placed.
    expect(started.body.data.lines.slice(1)).toEqual(
      placedLines(quoteB, placedAt)
        .slice(1)
        .map((line: Json, index: number) => ({ ...line, id: order.lines[index + 1].id })),
    );
    expect((await tenant.api.get(`/orders/${order.id}`)).body.data).toEqual(started.body.data);
    expect(started.body.data.updated_at).toBe(isoSecond(movedAt));

    expect((await move(first, { status: 'completed' })).body.data.status).toBe('in_progress');
    const done = await move(last, { status: 'completed' });
    expect(done.body.data.status).toBe('completed');
    expect(done.body.data.lines.map((line: Json) => [line.status, line.completion_date !== null])).toEqual(
      order.lines.map(() => ['completed', true]),
    );

    const again = await move(first, { status: 'failed' });
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe(`Line ${first.id} has ended; it is not moved again.`);
    // A `none` line has ended from the start: it is never moved by hand, even while the order is open.
    for (const line of ended) {
      const refused = await move(line, { status: 'failed' });
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toBe(`Line ${line.id} has ended; it is not moved again.`);
    }
    const unknown = await move({ id: 'orl_01jzzzzzzzzzzzzzzzzzzzzzzz' }, { status: 'completed' });
    expect(unknown.status).toBe(404);
    const pending = await move(first, { status: 'pending' });
    expect(pending.status).toBe(422);
  });

  it('when every manual line failed, then the order failed, its none lines still completed, and the quote may be ordered again', async () => {
    const quoteC = await manualQuote(tenant, 'Gamma B.V.');
    const order = (await tenant.api.post('/orders', { quote_id: quoteC.id })).body.data;
    const statuses: string[] = [];
    for (const line of manualLines(order)) {
      const moved = await tenant.api.request('PATCH', `/orders/${order.id}/lines/${line.id}`, {
        body: { status: 'failed' },
      });
      expect(moved.status).toBe(200);
      statuses.push(moved.body.data.status);
    }
    // The `none` lines neither start the order nor save it: failed once every delivered line failed.
    expect(statuses).toEqual(['in_progress', 'failed']);
    const failed = (await tenant.api.get(`/orders/${order.id}`)).body.data;
    expect(failed.status).toBe('failed');
    expect(failed.lines.map((line: Json) => [line.fulfilment, line.status])).toEqual([
      ['manual', 'failed'],
      ['manual', 'failed'],
      ['none', 'completed'],
      ['none', 'completed'],
    ]);
    const again = await tenant.api.post('/orders', { quote_id: quoteC.id });
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(order.id);
  });

  it('when orders are listed, then filters by customer and status narrow the page', async () => {
    const all = await tenant.api.get('/orders?page_size=2');
    expect(all.status).toBe(200);
    expect(all.body.pagination).toEqual({ page_size: 2, current_page: 1, total_items: 4, total_pages: 2 });
    const byCustomer = await tenant.api.get(`/orders?filter[customer_id]=${quote.customer.id}`);
    expect(byCustomer.body.data.map((order: Json) => order.quote_id)).toEqual([quote.id]);
    const completed = await tenant.api.get('/orders?filter[status]=completed');
    expect(completed.body.data.map((order: Json) => order.status)).toEqual(['completed']);
    const bad = await tenant.api.get('/orders?filter[status]=done');
    expect(bad.status).toBe(422);
    expect((await other.api.get('/orders')).body.pagination.total_items).toBe(0);
  });

  it('when the quote is not orderable, then a clear 422 and nothing is written', async () => {
    const before = await orderRowCounts(server, tenant.instanceId);
    const foreign = await manualQuote(other, 'Foreign B.V.');
    const foreignRefused = await tenant.api.post('/orders', { quote_id: foreign.id });
    expect(foreignRefused.status).toBe(422);
    expect(foreignRefused.headers.get('content-type')).toBe(problemType);
    expect(foreignRefused.body).toEqual(
      invalid(notPlaced, [{ path: '/quote_id', message: 'quote was not found' }]),
    );

    const expiring = await manualQuote(tenant, 'Delta B.V.');
    await updateStoredRows(
      server.app.services.db,
      'quotes',
      { expirationDate: '2026-01-01' },
      { id: expiring.id },
    );
    const expired = await tenant.api.post('/orders', { quote_id: expiring.id });
    expect(expired.body).toEqual(
      invalid(notPlaced, [{ path: '/quote_id', message: 'quote expired on 2026-01-01' }]),
    );

    const bare = await server.tenant({
      code: 'ORC',
      demoCatalog: false,
      roles: ['connectivity_check', 'ordering'],
    });
    const customer = (await bare.api.post('/customers', { name: 'Empty B.V.' })).body.data.id;
    const empty = (await bare.api.post('/quotes', { name: 'Nothing', customer_id: customer })).body.data;
    expect(empty.products).toEqual([]);
    const noLines = await bare.api.post('/orders', { quote_id: empty.id });
    expect(noLines.body).toEqual(invalid(notPlaced, [{ path: '/quote_id', message: 'quote has no lines' }]));

    const past = await tenant.api.post('/orders', {
      quote_id: quote.id,
      requested_completion_date: '2020-01-01T00:00:00+00:00',
    });
    expect(past.status).toBe(422);
    const badContact = await tenant.api.post('/orders', {
      quote_id: quote.id,
      contact: { name: 'NOC', email_address: 'not an address' },
    });
    expect(badContact.status).toBe(422);
    expect(badContact.body.errors.map((error: Json) => error.path)).toEqual(['/contact/email_address']);

    const checker = await server.tenant({ code: 'ORD', roles: ['connectivity_check'] });
    const checkersQuote = await manualQuote(checker, 'Epsilon B.V.');
    const forbidden = await checker.api.post('/orders', { quote_id: checkersQuote.id });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.detail).toBe('This operation needs one of the roles: ordering.');
    expect((await checker.api.get('/orders')).status).toBe(200);

    expect(await orderRowCounts(server, tenant.instanceId)).toEqual(before);
    expect(await orderRowCounts(server, checker.instanceId)).toEqual({
      orders: 0,
      lines: 0,
      supplierOrders: 0,
    });
  });

  // Below the list test: the orders placed here would change its counts.

  it('when a connectivity_check-only caller moves a manual line, then 403 and the line is unchanged', async () => {
    const quoteE = await manualQuote(tenant, 'Zeta B.V.');
    const order = (await tenant.api.post('/orders', { quote_id: quoteE.id })).body.data;
    const checker = await otherApplication(server, tenant, ['connectivity_check']);

    const refused = await checker.api.request('PATCH', `/orders/${order.id}/lines/${order.lines[0].id}`, {
      body: { status: 'completed', note: 'Done at the portal' },
    });

    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('This operation needs one of the roles: ordering.');
    const after = await checker.api.get(`/orders/${order.id}`);
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual(order);
    expect(after.body.data.lines[0]).toEqual({
      ...pendingManualLine(quoteE.products[0]),
      id: order.lines[0].id,
    });
    expect(after.body.data.lines[0].source).toEqual({
      id: expect.stringMatching(/^src_[0-9a-z]{26}$/),
      name: 'Colt',
      type: 'catalog',
      _document_type: 'source',
    });
  });

  it('when POST /orders is sent again with its Idempotency-Key, then its 201 is replayed and one order exists; another body with the key is refused', async () => {
    const quoteF = await manualQuote(tenant, 'Eta B.V.');
    const before = await orderRowCounts(server, tenant.instanceId);
    const post = (body: Json) =>
      tenant.api.request('POST', '/orders', { body, headers: { 'idempotency-key': 'order-eta-1' } });

    const first = await post({ quote_id: quoteF.id });
    const replayed = await post({ quote_id: quoteF.id });

    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(first.body);
    const ofQuote = await tenant.api.get(`/orders?filter[customer_id]=${quoteF.customer.id}`);
    expect(ofQuote.body.data).toEqual([first.body.data]);
    const placed = { orders: before.orders + 1, lines: before.lines + 4, supplierOrders: 0 };
    expect(await orderRowCounts(server, tenant.instanceId)).toEqual(placed);

    const other = await post({ quote_id: quoteF.id, requested_completion_date: '2031-01-15T09:00:00+00:00' });
    expect(other.status).toBe(422);
    expect(other.body).toEqual(
      invalid('This Idempotency-Key was used for a different request.', [
        { path: '/headers/idempotency-key', message: 'was used for a different request' },
      ]),
    );
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(await orderRowCounts(server, tenant.instanceId)).toEqual(placed);
  });
});
