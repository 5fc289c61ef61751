import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { registerSonata } from '../gathering/sonata-gateway.js';
import { sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import { expectValidOrderExchanges, orderCalls, orderWhen, sonataQuote } from './sonata-orders-fixtures.js';

/*
 * Issue 36, item 1: an order cancelled before its seller started (supplier line `cancelled` through MEF 123
 * `CancelProductOrder`, the manual line at once), one the seller declines to cancel (the line goes on, the
 * refusal shown), and one whose cancellation the seller charges for (the charge on the order, accepted).
 * The seller's orders stay `acknowledged` for 4 s (its steps) while its cancellations move every 20 ms.
 */

let validator: SonataValidator;
let seller: SonataSeller;
let server: TestServer;
beforeAll(async () => {
  validator = await sonataValidator();
  seller = await startSonataSeller({ behaviour: { stepMs: 4000 } });
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await seller?.stop();
});

/** A tenant with one Sonata source whose seller cancels as `cancel` says, and an order placed. */
async function placedOrder(
  sourceKey: string,
  network: string,
  cancel: string,
): Promise<{ admin: TestTenant; order: Json }> {
  const admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
  await registerSonata(
    admin,
    sourceKey,
    network,
    sellerSettings(seller, sourceKey, 'instant', 'instant', { query: { cancel, cancel_step_ms: '20' } }),
  );
  const quote = await sonataQuote(admin, [network]);
  const placed = await admin.api.post('/orders', { quote_id: quote.id });
  expect(placed.status).toBe(201);
  // Acknowledged by the seller, which has not started on it.
  const order = await orderWhen(admin, placed.body.data.id, (each) => each.lines[0].status === 'submitted');
  expect(order.lines.map((line: Json) => [line.fulfilment, line.status])).toEqual([
    ['supplier', 'submitted'],
    ['manual', 'pending'],
  ]);
  return { admin, order };
}

/** The Cancel Product Order requests a seller received for one source key. */
const cancelRequests = (sourceKey: string) =>
  seller.exchanges.filter(
    (exchange) =>
      exchange.path.startsWith(`/sonata/${sourceKey}/`) &&
      exchange.method === 'POST' &&
      exchange.path.endsWith('/cancelProductOrder'),
  );

describe('cancelling orders at Sonata sellers', () => {
  it('when an order is cancelled before the seller started, then the manual line is cancelled at once and the supplier line once the seller cancelled it', async () => {
    const { admin, order } = await placedOrder('eurofiber', 'Eurofiber', 'accept');
    const asked = await admin.api.post(`/orders/${order.id}/cancel`, {
      reason: 'The customer moved offices.',
    });
    expect(asked.status).toBe(202);
    expect(asked.body.data.cancellation).toEqual({
      reason: 'The customer moved offices.',
      requested_at: expect.stringMatching(/\+00:00$/),
    });
    expect(asked.body.data.lines.map((line: Json) => [line.status, line.cancellation])).toEqual([
      ['submitted', { state: 'requested', message: null }],
      ['cancelled', { state: 'done', message: null }],
    ]);

    const done = await orderWhen(admin, order.id, (each) => each.status === 'cancelled');
    expect(done.lines.map((line: Json) => [line.status, line.cancellation, line.error])).toEqual([
      ['cancelled', { state: 'done', message: null }, null],
      ['cancelled', { state: 'done', message: null }, null],
    ]);
    expect(done.lines[0].supplier_status).toBe('cancelled');
    const [request] = cancelRequests('eurofiber');
    expect(cancelRequests('eurofiber')).toHaveLength(1);
    expect(request?.requestBody).toMatchObject({
      productOrder: { productOrderId: done.lines[0].supplier_order_id },
      cancellationReason: 'The customer moved offices.',
      cancellationReasonType: 'commercial',
      relatedContactInformation: [expect.objectContaining({ role: 'cancelProductOrderContact' })],
    });
    expect(request?.status).toBe(201);
    expectValidOrderExchanges(seller, validator);

    const again = await admin.api.post(`/orders/${order.id}/cancel`, { reason: 'Twice.' });
    expect(again.status).toBe(409);
  });

  it('when the seller declines to cancel, then the supplier line goes on and shows the refusal', async () => {
    const { admin, order } = await placedOrder('kpn-wba', 'KPN', 'decline');
    expect((await admin.api.post(`/orders/${order.id}/cancel`, { reason: 'Budget cut.' })).status).toBe(202);

    const declined = await orderWhen(
      admin,
      order.id,
      (each) => each.lines[0].cancellation?.state === 'declined',
    );
    expect(declined.lines[0]).toMatchObject({
      status: 'submitted',
      cancellation: { state: 'declined', message: expect.stringMatching(/\S/) },
      error: null,
    });
    expect(declined.lines[1].status).toBe('cancelled');
    expect(declined.status).not.toBe('cancelled');
    expect(cancelRequests('kpn-wba')).toHaveLength(1);
    // The order goes on at the seller and is followed to its end.
    const completed = await orderWhen(admin, order.id, (each) => each.lines[0].status === 'completed');
    expect(completed.lines[0].cancellation.state).toBe('declined');
    expect(completed.status).toBe('partially_completed');
    expectValidOrderExchanges(seller, validator);
  }, 40_000);

  it('when the seller charges for cancelling, then the charge shows on the order and, accepted, the line is cancelled', async () => {
    const { admin, order } = await placedOrder('ziggo', 'Ziggo', 'charge');
    expect((await admin.api.post(`/orders/${order.id}/cancel`, { reason: 'Wrong site.' })).status).toBe(202);

    const charged = await orderWhen(admin, order.id, (each) => each.cancellation_charges.length > 0);
    expect(charged.lines[0].cancellation.state).toBe('assessing_charge');
    const [charge] = charged.cancellation_charges;
    expect(charge).toMatchObject({
      state: 'awaitingResponse',
      source_id: expect.any(String),
      items: [expect.objectContaining({ amount: 500, currency: 'EUR', blocking: true })],
    });

    const accepted = await admin.api.post(
      `/orders/${order.id}/cancellation-charges/${charge.id}/accept`,
      undefined,
    );
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.cancellation_charges[0].state).not.toBe('awaitingResponse');
    const again = await admin.api.post(
      `/orders/${order.id}/cancellation-charges/${charge.id}/decline`,
      undefined,
    );
    expect(again.status).toBe(409);

    const done = await orderWhen(admin, order.id, (each) => each.status === 'cancelled');
    expect(done.lines[0].cancellation).toEqual({ state: 'done', message: null });
    expect(orderCalls(seller, 'ziggo').filter((call) => call.startsWith('PATCH /charge'))).toEqual([
      'PATCH /charge/{id} 200',
    ]);
    expectValidOrderExchanges(seller, validator);
  });
});
