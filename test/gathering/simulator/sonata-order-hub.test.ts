import { describe, expect, test, vi } from 'vitest';
import { type Json, LISTENER_PATH, orderBody, orderSellerPerTest } from './sonata-order-fixtures.js';

const { call, quote, orderIn, listenerUrl, received, seller } = orderSellerPerTest();

const HOLD = { order: 'hold-charge', charge_due_ms: '60000' };
const NOTIFICATION_BASE = '/mefApi/sonata/productOrderingNotification/v10/listener';

describe('a Sonata seller notifying order listeners', () => {
  test('when a buyer listens to every event, then each order, item, milestone, expected-date and charge change is POSTed to its listener path, in order', async () => {
    const hub = await call('order', 'POST', '/hub', { callback: listenerUrl() }, HOLD);
    expect([hub.status, hub.body]).toEqual([201, { id: hub.body.id, callback: listenerUrl() }]);
    expect((await call('order', 'GET', `/hub/${hub.body.id}`, undefined, HOLD)).body).toEqual(hub.body);
    const quoteId = await quote();
    const created = await call('order', 'POST', '/productOrder', orderBody(quoteId), HOLD);
    const { id, href } = created.body;
    const held = await orderIn(id, ['held.assessingCharge'], HOLD);
    const charge = held.productOrderItem[0].charge[0];
    await vi.waitFor(() =>
      expect(received.map((event) => event.body.eventType)).toContain('chargeCreateEvent'),
    );

    await call(
      'order',
      'PATCH',
      `/charge/${charge.id}`,
      { chargeItem: [{ id: '1', acceptanceIndicator: 'accepted' }] },
      HOLD,
    );
    await orderIn(id, ['completed'], HOLD);
    await seller().settled();

    const orderEvent = { id, href };
    const itemEvent = { id, href, orderItemId: '1' };
    const chargeEvent = { id: charge.id, href: charge.href };
    const expected: [string, Json][] = [
      ['productOrderItemStateChangeEvent', itemEvent],
      ['productOrderItemExpectedCompletionDateSet', itemEvent],
      ['productOrderStateChangeEvent', orderEvent],
      [
        'productSpecificProductOrderItemMilestoneEvent',
        { ...itemEvent, milestoneName: 'siteSurveyCompleted' },
      ],
      ['productOrderItemStateChangeEvent', itemEvent],
      ['productOrderStateChangeEvent', orderEvent],
      ['chargeCreateEvent', chargeEvent],
      ['chargeStateChangeEvent', chargeEvent],
      ['productOrderItemStateChangeEvent', itemEvent],
      ['productOrderStateChangeEvent', orderEvent],
      ['productOrderItemStateChangeEvent', itemEvent],
      ['productOrderStateChangeEvent', orderEvent],
    ];
    expect(received.map((event) => [event.body.eventType, event.body.event])).toEqual(expected);
    expect(received.map((event) => event.path)).toEqual(
      expected.map(([type]) => `${LISTENER_PATH}${NOTIFICATION_BASE}/${type}`),
    );
    expect(new Set(received.map((event) => event.body.eventId)).size).toBe(expected.length);
    expect(seller().notifications.map((sent) => sent.status)).toEqual(expected.map(() => 204));
  });

  test('when a buyer asks for some event types (both TMF 630 query forms, and the guide’s name for the expected-date event), then only those arrive', async () => {
    const query =
      'eventType=productOrderStateChangeEvent,productOrderItemExpectedCompletionDateSetEvent&eventType=chargeTimeoutEvent';
    const hub = await call('order', 'POST', '/hub', { callback: listenerUrl(), query });
    expect([hub.status, hub.body.query]).toEqual([201, query]);
    const knobs = { order: 'hold-charge', charge_due_ms: '40' };
    const quoteId = await quote();
    const created = await call('order', 'POST', '/productOrder', orderBody(quoteId), knobs);

    await orderIn(created.body.id, ['failed'], knobs);
    await seller().settled();

    expect(received.map((event) => event.body.eventType)).toEqual([
      'productOrderItemExpectedCompletionDateSet',
      'productOrderStateChangeEvent',
      'productOrderStateChangeEvent',
      'chargeTimeoutEvent',
      'productOrderStateChangeEvent',
      'productOrderStateChangeEvent',
    ]);
  });

  test('when the listener is deleted, then no more events arrive and it is gone', async () => {
    const hub = await call('order', 'POST', '/hub', { callback: listenerUrl() });
    const removed = await call('order', 'DELETE', `/hub/${hub.body.id}`);
    expect(removed.status).toBe(204);
    expect((await call('order', 'GET', `/hub/${hub.body.id}`)).status).toBe(404);
    expect((await call('order', 'DELETE', `/hub/${hub.body.id}`)).status).toBe(404);

    const quoteId = await quote();
    const created = await call('order', 'POST', '/productOrder', orderBody(quoteId));
    await orderIn(created.body.id, ['completed']);
    await seller().settled();

    expect(received).toEqual([]);
  });

  test('when a registration names an unknown event type, then 400 invalidBody', async () => {
    const unknown = await call('order', 'POST', '/hub', {
      callback: listenerUrl(),
      query: 'eventType=orderDone',
    });
    expect([unknown.status, unknown.body]).toEqual([
      400,
      { code: 'invalidBody', reason: 'query: unknown eventType orderDone' },
    ]);
  });
});
