import { beforeAll, describe, expect, it } from 'vitest';
import { registerSonata } from '../gathering/sonata-gateway.js';
import { sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import type { Json } from '../helpers/app.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import {
  expectValidOrderExchanges,
  orderCalls,
  orderWhen,
  sonataQuote,
  supplierLinesEnded,
  supplierOrdersOf,
} from './sonata-orders-fixtures.js';
import { sonataWorld } from './sonata-world.js';

/*
 * Issue 35 end to end: a quote with products of two Sonata sellers and an instance product, ordered through
 * REST, placed at each seller once (one productOrder per source), followed by polling to completed with the
 * delivered products read from the inventory; a seller that rejects. Every order exchange is checked
 * against the MEF documents.
 */

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

describe('orders placed at Sonata sellers, followed by polling', () => {
  const world = sonataWorld([
    { key: 'kpn-wba', network: 'KPN', mode: 'instant', interaction: 'instant' },
    { key: 'eurofiber', network: 'Eurofiber', mode: 'deferred', interaction: 'deferred' },
  ]);
  const kpnId = () => world.sourceIds['kpn-wba'];
  const eurofiberId = () => world.sourceIds.eurofiber;

  it('when a quote of two sellers and a router is ordered, then each seller gets one order and every supplier line completes with its inventory product', async () => {
    const quote = await sonataQuote(world.admin, ['KPN', 'Eurofiber']);
    const placed = await world.admin.api.post('/orders', { quote_id: quote.id });
    expect(placed.status).toBe(201);
    expect(placed.body.data.lines.map((line: Json) => [line.name, line.fulfilment, line.status])).toEqual(
      quote.products.map((line: Json) => [
        line.name,
        line.kind === 'availability_request_product' ? 'supplier' : 'manual',
        'pending',
      ]),
    );
    const orderId = placed.body.data.id;

    const followed = await orderWhen(world.admin, orderId, supplierLinesEnded);
    expect(followed.status).toBe('in_progress');
    const supplierOrders = await supplierOrdersOf(world.server, orderId);
    expect(supplierOrders.map((each) => [each.sourceId, each.status, each.sellerState]).sort()).toEqual(
      [
        [kpnId(), 'ended', 'completed'],
        [eurofiberId(), 'ended', 'completed'],
      ].sort(),
    );
    for (const [index, sourceKey] of ['kpn-wba', 'eurofiber'].entries()) {
      const line = followed.lines[index];
      const supplierOrder = supplierOrders.find((each) => each.sourceId === [kpnId(), eurofiberId()][index]);
      const posted = world.seller.exchanges.filter(
        (exchange) =>
          exchange.path.startsWith(`/sonata/${sourceKey}/`) &&
          exchange.method === 'POST' &&
          exchange.path.endsWith('/productOrder'),
      );
      expect(posted).toHaveLength(1);
      const sellerOrder = posted[0]?.responseBody as Json;
      expect(sellerOrder.externalId).toBe(supplierOrder?.id);
      const read = world.seller.exchanges.filter(
        (exchange) =>
          exchange.path.startsWith(`/sonata/${sourceKey}/`) &&
          exchange.method === 'GET' &&
          exchange.path.includes('/product/'),
      );
      const product = read.at(-1)?.responseBody as Json;
      expect(line).toEqual({
        id: placed.body.data.lines[index].id,
        quote_line_id: quote.products[index].id,
        name: quote.products[index].name,
        source: {
          id: [kpnId(), eurofiberId()][index],
          name: ['KPN via Sonata', 'Eurofiber via Sonata'][index],
          type: 'mef-sonata',
          _document_type: 'source',
        },
        fulfilment: 'supplier',
        status: 'completed',
        supplier_status: 'completed',
        supplier_order_id: sellerOrder.id,
        supplier_item_id: placed.body.data.lines[index].id,
        expected_completion_date: expect.stringMatching(/\+00:00$/),
        completion_date: expect.stringMatching(/\+00:00$/),
        inventory_product_id: product.id,
        inventory_product_status: 'active',
        milestones: [
          { name: 'siteSurveyCompleted', date: expect.any(String), description: expect.anything() },
        ],
        charges: [],
        price_change: null,
        cancellation: null,
        error: null,
        notice: null,
        note: null,
        status_changed_at: null,
        status_changed_by_user_id: null,
        _document_type: 'order_line',
      });
      expect(orderCalls(world.seller, sourceKey)[0]).toBe('POST /productOrder 201');
    }
    expectValidOrderExchanges(world.seller, validator);

    // Every supplier line has ended: nothing changes the order now but a manual move.
    const before = await world.admin.api.get(`/orders/${orderId}`);
    const bySupplier = await world.admin.api.request(
      'PATCH',
      `/orders/${orderId}/lines/${followed.lines[0].id}`,
      {
        body: { status: 'cancelled', note: 'Not by hand' },
      },
    );
    expect(bySupplier.status).toBe(409);
    expect(bySupplier.body.detail).toBe(
      `Line ${followed.lines[0].id} is fulfilled by its supplier; only manual lines are moved by hand.`,
    );
    // Refused and nothing written: the order (its `updated_at` too) and the supplier line are as they were.
    const after = await world.admin.api.get(`/orders/${orderId}`);
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual(before.body.data);
    const manual = followed.lines[2];
    const done = await world.admin.api.request('PATCH', `/orders/${orderId}/lines/${manual.id}`, {
      body: { status: 'completed', note: 'Router shipped' },
    });
    expect(done.body.data.status).toBe('completed');
  });

  it('when the seller rejects the order, then its lines fail with the seller’s reason and nothing is placed again', async () => {
    await registerSonata(
      world.admin,
      'tele2',
      'Tele2',
      sellerSettings(world.seller, 'tele2', 'instant', 'instant', { query: { order: 'reject' } }),
    );
    const quote = await sonataQuote(world.admin, ['Tele2']);
    const orderId = (await world.admin.api.post('/orders', { quote_id: quote.id })).body.data.id;
    const ended = await orderWhen(world.admin, orderId, supplierLinesEnded);
    const [line] = ended.lines;
    expect([line.status, line.supplier_status, line.error?.code]).toEqual([
      'failed',
      'rejected',
      'SUPPLIER_REJECTED',
    ]);
    expect(line.error.message.length).toBeGreaterThan(0);
    expect(orderCalls(world.seller, 'tele2').filter((call) => call.startsWith('POST'))).toEqual([
      'POST /productOrder 201',
    ]);
    expectValidOrderExchanges(world.seller, validator);
  });
});
