import { beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/app.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import { isoSecond } from '../rest/orders-fixtures.js';
import { answersTo, sellerCharge } from './sonata-charges-fixtures.js';
import {
  expectValidOrderExchanges,
  orderCalls,
  orderWhen,
  sonataQuote,
  supplierLinesEnded,
} from './sonata-orders-fixtures.js';
import { sonataWorld } from './sonata-world.js';

/*
 * Issue 35, item 4: a seller holds an item for a blocking construction charge (the simulator's
 * `order=hold-charge`); the reseller accepts it (the item completes), declines it (the item ends `failed`,
 * MEF 123 §6.12), or lets it pass its due date (answers refused with 409, the charge shows `timeout`).
 */

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

/** The first supplier line's charges once the seller put one on it. */
const charged = (order: Json) => (order.lines[0]?.charges ?? []).length > 0;

describe('charges of held order items', () => {
  const world = sonataWorld([
    {
      key: 'kpn-wba',
      network: 'KPN',
      mode: 'instant',
      interaction: 'instant',
      fields: { query: { order: 'hold-charge', charge_due_ms: '600000' } },
    },
    {
      key: 'tele2',
      network: 'Tele2',
      mode: 'instant',
      interaction: 'instant',
      fields: { query: { order: 'hold-charge', charge_due_ms: '150' } },
    },
  ]);

  const place = async (network: string) => {
    const quote = await sonataQuote(world.admin, [network]);
    return (await world.admin.api.post('/orders', { quote_id: quote.id })).body.data.id as string;
  };
  const answer = (orderId: string, line: Json, chargeId: string, verb: 'accept' | 'decline') =>
    world.admin.api.post(`/orders/${orderId}/lines/${line.id}/charges/${chargeId}/${verb}`, undefined);

  it('when a blocking charge is accepted, then the seller gets every item accepted and the line completes', async () => {
    const orderId = await place('KPN');
    const held = await orderWhen(world.admin, orderId, charged);
    const [line] = held.lines;
    expect([line.status, line.supplier_status]).toEqual(['in_progress', 'held']);
    const [charge] = line.charges;
    // The seller's due date, in created_at's form (UTC, to the second).
    const due = sellerCharge(world.seller, charge.id).responseDueDate;
    expect(due).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(charge).toEqual({
      id: expect.any(String),
      state: 'awaitingResponse',
      response_due_date: isoSecond(new Date(due)),
      items: [
        {
          id: expect.any(String),
          price_type: 'nonRecurring',
          price_category: 'construction',
          amount: 750,
          currency: 'EUR',
          blocking: true,
          state: 'awaitingResponse',
        },
      ],
    });

    const accepted = await answer(orderId, line, charge.id, 'accept');
    expect(accepted.status).toBe(200);
    expect(accepted.body.data.lines[0].charges[0].items[0].state).toBe('acceptedByBuyer');
    const patch = world.seller.exchanges.find((exchange) => exchange.method === 'PATCH');
    expect(patch?.requestBody).toEqual({
      chargeItem: [{ id: charge.items[0].id, acceptanceIndicator: 'accepted' }],
    });

    const done = await orderWhen(world.admin, orderId, supplierLinesEnded);
    expect([done.lines[0].status, done.lines[0].supplier_status]).toEqual(['completed', 'completed']);
    expect(done.lines[0].inventory_product_id).not.toBeNull();
    expectValidOrderExchanges(world.seller, validator);
  });

  it('when a charge is answered a second time, then 409 says it was answered, and nothing changes', async () => {
    const orderId = await place('KPN');
    const [line] = (await orderWhen(world.admin, orderId, charged)).lines;
    const chargeId = line.charges[0].id;
    expect((await answer(orderId, line, chargeId, 'accept')).status).toBe(200);
    const done = await orderWhen(world.admin, orderId, supplierLinesEnded);
    expect(done.lines[0].charges[0]).toEqual({
      ...line.charges[0],
      state: 'completed',
      items: [{ ...line.charges[0].items[0], state: 'acceptedByBuyer' }],
    });

    for (const verb of ['decline', 'accept'] as const) {
      const again = await answer(orderId, line, chargeId, verb);
      expect(again.status).toBe(409);
      expect(again.body).toEqual({
        type: 'urn:connectivity-gateway:problem:conflict',
        title: 'Conflict',
        status: 409,
        detail: `Charge ${chargeId} was answered already; it is completed.`,
      });
    }
    expect(answersTo(world.seller, chargeId)).toEqual([
      [200, { chargeItem: [{ id: line.charges[0].items[0].id, acceptanceIndicator: 'accepted' }] }],
    ]);
    expect((await world.admin.api.get(`/orders/${orderId}`)).body.data).toEqual(done);
  });

  it('when a blocking charge is declined, then the item ends failed as MEF says and the order failed', async () => {
    const orderId = await place('KPN');
    const held = await orderWhen(world.admin, orderId, charged);
    const [line] = held.lines;
    const declined = await answer(orderId, line, line.charges[0].id, 'decline');
    expect(declined.status).toBe(200);
    expect(declined.body.data.lines[0].charges[0].items[0].state).toBe('declinedByBuyer');
    const ended = await orderWhen(world.admin, orderId, supplierLinesEnded);
    expect([ended.lines[0].status, ended.lines[0].supplier_status, ended.lines[0].error?.code]).toEqual([
      'failed',
      'failed',
      'SUPPLIER_FAILED',
    ]);
    expectValidOrderExchanges(world.seller, validator);
  });

  it('when the charge’s due date passes, then an answer is refused with 409 and the charge shows timeout', async () => {
    const orderId = await place('Tele2');
    const held = await orderWhen(world.admin, orderId, charged);
    const [line] = held.lines;
    const charge = line.charges[0];
    // The document shows the due date to the second; the seller's own, to the millisecond, is the limit.
    const due = sellerCharge(world.seller, charge.id).responseDueDate;
    expect(charge.response_due_date).toBe(isoSecond(new Date(due)));
    const dueAt = Date.parse(due);
    while (Date.now() <= dueAt) await new Promise((resolve) => setTimeout(resolve, 20));
    const late = await answer(orderId, line, charge.id, 'accept');
    expect(late.status).toBe(409);
    expect(late.body.detail).toBe(
      `Charge ${charge.id} was due by ${due}; the seller takes no answer after that (MEF 123 R96).`,
    );
    const after = await world.admin.api.get(`/orders/${orderId}`);
    expect(after.body.data.lines[0].charges[0].state).toBe('timeout');
    expect(orderCalls(world.seller, 'tele2').some((call) => call.startsWith('PATCH'))).toBe(false);
    const ended = await orderWhen(world.admin, orderId, supplierLinesEnded);
    expect([ended.lines[0].status, ended.lines[0].charges[0].state]).toEqual(['failed', 'timeout']);
  });

  it('when the charge is unknown, then 404; when the caller may not order, then 403', async () => {
    const orderId = await place('KPN');
    const order = (await world.admin.api.get(`/orders/${orderId}`)).body.data;
    const unknown = await answer(orderId, order.lines[0], 'no-such-charge', 'accept');
    expect(unknown.status).toBe(404);
    const checker = await world.server.tenant({ roles: ['connectivity_check'] });
    const forbidden = await checker.api.post(
      `/orders/${orderId}/lines/${order.lines[0].id}/charges/x/accept`,
      undefined,
    );
    expect(forbidden.status).toBe(403);
  });
});
