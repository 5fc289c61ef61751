import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATED_DECLINE } from '../../src/gathering/simulator/orders.js';
import { type Json, startTestServer, type TestServer } from '../helpers/app.js';
import {
  deskCalls,
  httpOrderSetup,
  type MovableSimulator,
  movableSimulator,
  offerIdOf,
  supplierView,
} from './http-orders-fixtures.js';
import { orderWhen, supplierLinesEnded, supplierOrdersOf } from './sonata-orders-fixtures.js';

/*
 * Issue 36 item 3 end to end: a quote with an `http` offer that has an id (ordered from its supplier), one that
 * has none and a router (both ordered by hand), ordered through REST and followed to completed; a placement
 * whose answer was lost, found again by its external_id; a refused placement; a cancellation the supplier
 * accepts and one it declines. The supplier is the simulator; its clock is moved where the test waits for it.
 */

const HOUR = 3_600_000;

describe('orders of http suppliers', () => {
  let server: TestServer;
  const simulators: MovableSimulator[] = [];

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
    await Promise.all(simulators.map(({ sim }) => sim.stop()));
  });

  const simulator = async () => {
    const started = await movableSimulator();
    simulators.push(started);
    return started;
  };

  it('when a quote with an offer with an id, one without and a router is ordered, then the supplier gets one order and its line is followed to completed', async () => {
    const { sim } = await simulator();
    const { tenant, kpnId, quote } = await httpOrderSetup(server, sim);

    const placed = await tenant.api.post('/orders', { quote_id: quote.id });

    expect(placed.status).toBe(201);
    expect(placed.body.data.lines.map((line: Json) => [line.name, line.fulfilment, line.status])).toEqual(
      quote.products.map((line: Json, index: number) => [
        line.name,
        index === 0 ? 'supplier' : 'manual',
        'pending',
      ]),
    );
    const orderId = placed.body.data.id;
    const lineId = placed.body.data.lines[0].id;
    const followed = await orderWhen(tenant, orderId, supplierLinesEnded);
    const [held] = sim.orders('kpn-wba');
    const [supplierOrder] = await supplierOrdersOf(server, orderId);
    const stored = await server.app.services.db.findOrder(tenant.instanceId, orderId);
    expect(sim.orders('kpn-wba')).toHaveLength(1);
    expect(held?.request).toEqual({
      external_id: supplierOrder?.id,
      customer_name: 'Acme Logistics B.V.',
      requested_completion_date: stored?.order.requestedCompletionDate.toISOString(),
      contact: null,
      items: [
        {
          id: lineId,
          offer_id: offerIdOf('kpn-wba', quote.products[0]),
          contract_term_months: quote.products[0].contract_term,
        },
      ],
    });
    // Two 20 ms steps after the supplier took it; REST shows whole seconds.
    const endsAt = Math.floor(((held?.createdAtMs ?? 0) + 2 * 20) / 1000) * 1000;
    expect(supplierView(followed.lines[0])).toEqual({
      status: 'completed',
      supplier_status: 'completed',
      supplier_order_id: held?.id,
      supplier_item_id: lineId,
      expected_completion_date: endsAt,
      completion_date: endsAt,
      inventory_product_id: `${held?.id}-p1`,
      inventory_product_status: null,
      cancellation: null,
      error: null,
    });
    expect([
      supplierOrder?.sourceId,
      supplierOrder?.status,
      supplierOrder?.sellerOrderId,
      supplierOrder?.sellerState,
    ]).toEqual([kpnId, 'ended', held?.id, 'completed']);
    const calls = deskCalls(sim, 'kpn-wba');
    expect(calls[0]).toBe('POST /orders 201');
    expect(new Set(calls.slice(1))).toEqual(new Set([`GET /orders/${held?.id} 200`]));
    expect(deskCalls(sim, 'eurofiber')).toEqual([]);

    for (const manual of followed.lines.slice(1)) {
      const moved = await tenant.api.request('PATCH', `/orders/${orderId}/lines/${manual.id}`, {
        body: { status: 'completed' },
      });
      expect(moved.status).toBe(200);
    }
    expect((await tenant.api.get(`/orders/${orderId}`)).body.data.status).toBe('completed');
  });

  it.each<{ answer: string; knobs: Record<string, string>; timeoutMs: number | undefined; first: string }>([
    {
      answer: 'a 500 after the supplier kept it',
      knobs: { place: '500' },
      timeoutMs: undefined,
      first: 'POST /orders 500',
    },
    {
      answer: 'too late',
      knobs: { place: 'late', late_answer_ms: '2000' },
      timeoutMs: 300,
      first: 'POST /orders 201',
    },
    {
      answer: 'with a body that is not an order',
      knobs: { place: 'garbled' },
      timeoutMs: undefined,
      first: 'POST /orders 201',
    },
  ])(
    'when the placement is answered $answer, then the order is found by its external_id and followed: one order at the supplier',
    async ({ knobs, timeoutMs, first }) => {
      const { sim } = await simulator();
      const { tenant, quote } = await httpOrderSetup(server, sim, knobs, timeoutMs);

      const orderId = (await tenant.api.post('/orders', { quote_id: quote.id })).body.data.id;
      const followed = await orderWhen(tenant, orderId, supplierLinesEnded);

      const [held] = sim.orders('kpn-wba');
      const [supplierOrder] = await supplierOrdersOf(server, orderId);
      expect(sim.orders('kpn-wba')).toHaveLength(1);
      expect(held?.request.external_id).toBe(supplierOrder?.id);
      expect([followed.lines[0].status, followed.lines[0].supplier_order_id]).toEqual([
        'completed',
        held?.id,
      ]);
      const calls = deskCalls(sim, 'kpn-wba');
      expect(calls.slice(0, 2)).toEqual([first, 'GET /orders?external_id 200']);
      expect(calls.filter((call) => call.startsWith('POST'))).toEqual([first]);
    },
  );

  it('when the supplier refuses the order, then its line fails with the supplier’s words and nothing is sent again', async () => {
    const { sim } = await simulator();
    const { tenant, quote } = await httpOrderSetup(server, sim, { order: 'refuse' });

    const orderId = (await tenant.api.post('/orders', { quote_id: quote.id })).body.data.id;
    const ended = await orderWhen(tenant, orderId, supplierLinesEnded);

    expect(supplierView(ended.lines[0])).toEqual({
      status: 'failed',
      supplier_status: null,
      supplier_order_id: null,
      supplier_item_id: null,
      expected_completion_date: null,
      completion_date: null,
      inventory_product_id: null,
      inventory_product_status: null,
      cancellation: null,
      error: {
        code: 'UPSTREAM_4XX',
        message:
          'The supplier answered 422 to the order placement: The supplier cannot deliver at this address.',
      },
    });
    const [supplierOrder] = await supplierOrdersOf(server, orderId);
    expect([supplierOrder?.status, supplierOrder?.errorCode]).toEqual(['ended', 'UPSTREAM_4XX']);
    expect(sim.orders('kpn-wba')).toEqual([]);
    expect(deskCalls(sim, 'kpn-wba')).toEqual(['POST /orders 422']);
  });

  it('when the order is cancelled and the supplier accepts, then its line shows the cancellation acknowledged, then done with the line cancelled', async () => {
    const { sim, clock } = await simulator();
    const { tenant, quote } = await httpOrderSetup(server, sim, {
      step_ms: String(HOUR),
      cancel_step_ms: String(HOUR / 2),
    });
    const orderId = (await tenant.api.post('/orders', { quote_id: quote.id })).body.data.id;
    await orderWhen(tenant, orderId, (order) => order.lines[0].status === 'submitted');

    const cancelled = await tenant.api.post(`/orders/${orderId}/cancel`, { reason: 'The customer moved.' });

    expect(cancelled.status).toBe(202);
    const acknowledged = await orderWhen(
      tenant,
      orderId,
      (order) => order.lines[0].cancellation?.state === 'acknowledged',
    );
    const [held] = sim.orders('kpn-wba');
    expect([
      acknowledged.lines[0].status,
      acknowledged.lines.slice(1).map((line: Json) => line.status),
    ]).toEqual(['submitted', ['cancelled', 'cancelled']]);
    const [asked] = await supplierOrdersOf(server, orderId);
    expect([asked?.sellerCancelId, asked?.sellerCancelState, asked?.cancelPostedAt === null]).toEqual([
      held?.id,
      'requested',
      false,
    ]);

    clock.shiftMs += HOUR;
    const done = await orderWhen(tenant, orderId, supplierLinesEnded);

    expect(supplierView(done.lines[0])).toEqual({
      status: 'cancelled',
      supplier_status: 'cancelled',
      supplier_order_id: held?.id,
      supplier_item_id: done.lines[0].id,
      expected_completion_date: null,
      completion_date: null,
      inventory_product_id: null,
      inventory_product_status: null,
      cancellation: { state: 'done', message: null },
      error: null,
    });
    expect(done.status).toBe('cancelled');
    const [ended] = await supplierOrdersOf(server, orderId);
    expect([ended?.status, ended?.sellerState, ended?.sellerCancelState]).toEqual([
      'ended',
      'cancelled',
      'done',
    ]);
    expect(deskCalls(sim, 'kpn-wba').filter((call) => call.startsWith('POST'))).toEqual([
      'POST /orders 201',
      `POST /orders/${held?.id}/cancel 202`,
    ]);
    expect(sim.exchanges.find((exchange) => exchange.path.endsWith('/cancel'))?.requestBody).toEqual({
      reason: 'The customer moved.',
    });
  });

  it('when the supplier declines the cancellation, then its line shows the refusal and goes on to completed', async () => {
    const { sim, clock } = await simulator();
    const { tenant, quote } = await httpOrderSetup(server, sim, { step_ms: String(HOUR), cancel: 'decline' });
    const orderId = (await tenant.api.post('/orders', { quote_id: quote.id })).body.data.id;
    await orderWhen(tenant, orderId, (order) => order.lines[0].status === 'submitted');

    expect((await tenant.api.post(`/orders/${orderId}/cancel`, { reason: 'Too expensive.' })).status).toBe(
      202,
    );
    const declined = await orderWhen(
      tenant,
      orderId,
      (order) => order.lines[0].cancellation?.state === 'declined',
    );

    expect([declined.lines[0].status, declined.lines[0].cancellation]).toEqual([
      'submitted',
      { state: 'declined', message: SIMULATED_DECLINE },
    ]);
    const [asked] = await supplierOrdersOf(server, orderId);
    expect([asked?.status, asked?.sellerCancelState]).toEqual(['following', 'declined']);

    clock.shiftMs += 2 * HOUR;
    const completed = await orderWhen(tenant, orderId, supplierLinesEnded);

    expect([
      completed.lines[0].status,
      completed.lines[0].supplier_status,
      completed.lines[0].cancellation,
    ]).toEqual(['completed', 'completed', { state: 'declined', message: SIMULATED_DECLINE }]);
    expect(completed.status).toBe('partially_completed');
    expect(deskCalls(sim, 'kpn-wba').filter((call) => call.includes('/cancel'))).toEqual([
      `POST /orders/${sim.orders('kpn-wba')[0]?.id}/cancel 202`,
    ]);
  });
});
