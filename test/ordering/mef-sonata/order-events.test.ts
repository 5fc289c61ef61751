import { beforeAll, describe, expect, it } from 'vitest';
import {
  ORDER_HUB_QUERY,
  ORDER_NOTIFICATION_BASE_PATH,
  type OrderEventType,
  orderEventTypes,
  orderListenerEventType,
  parseOrderEvent,
} from '../../../src/ordering/mef-sonata/order-events.js';
import { type SonataValidator, sonataValidator } from '../../helpers/sonata-openapi.js';

/*
 * Incoming MEF 123 order notifications: every event type the buyer registers for, each body first checked
 * against productOrderNotification.api.yaml, then read.
 */

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

const callback = 'https://gateway.example/sonata-callbacks/src_1/token';
const listener = (type: string) => `${callback}${ORDER_NOTIFICATION_BASE_PATH}/listener/${type}`;

function sent(eventType: OrderEventType, event: Record<string, unknown>) {
  const body = { eventId: `ev-${eventType}`, eventTime: '2026-11-03T08:00:00Z', eventType, event };
  expect(validator.notification('order', { path: new URL(listener(eventType)).pathname, body })).toEqual([]);
  return body;
}

const none = {
  orderId: null,
  itemId: null,
  chargeId: null,
  cancellationId: null,
  milestoneName: null,
  buyerId: null,
  sellerId: null,
};

describe('parseOrderEvent', () => {
  it('when each registered event type arrives, then its order, item, charge or cancellation id', () => {
    const events: [OrderEventType, Record<string, unknown>, Record<string, unknown>][] = [
      ['productOrderStateChangeEvent', { id: 'po-1001' }, { orderId: 'po-1001' }],
      [
        'productOrderItemStateChangeEvent',
        { id: 'po-1001', orderItemId: '1' },
        { orderId: 'po-1001', itemId: '1' },
      ],
      [
        'productOrderItemExpectedCompletionDateSet',
        { id: 'po-1001', orderItemId: '2' },
        { orderId: 'po-1001', itemId: '2' },
      ],
      [
        'productSpecificProductOrderItemMilestoneEvent',
        { id: 'po-1001', orderItemId: '1', milestoneName: 'lineActivated' },
        { orderId: 'po-1001', itemId: '1', milestoneName: 'lineActivated' },
      ],
      [
        'chargeCreateEvent',
        { id: 'charge-7', buyerId: 'buyer-9' },
        { chargeId: 'charge-7', buyerId: 'buyer-9' },
      ],
      [
        'chargeStateChangeEvent',
        { id: 'charge-7', sellerId: 'carrier-nl' },
        { chargeId: 'charge-7', sellerId: 'carrier-nl' },
      ],
      [
        'chargeTimeoutEvent',
        { id: 'charge-7', href: 'https://seller.example/charge/charge-7' },
        { chargeId: 'charge-7' },
      ],
      [
        'cancelProductOrderStateChangeEvent',
        { id: 'cancel-3', buyerId: 'buyer-9' },
        { cancellationId: 'cancel-3', buyerId: 'buyer-9' },
      ],
    ];
    expect(events.map(([type]) => type)).toEqual([...orderEventTypes]);
    for (const [eventType, event, expected] of events) {
      expect(parseOrderEvent(sent(eventType, event), eventType)).toEqual({
        ok: true,
        event: {
          eventId: `ev-${eventType}`,
          eventTime: '2026-11-03T08:00:00Z',
          eventType,
          ...none,
          ...expected,
        },
      });
    }
  });

  it('when an item event names no item (R106), then it is refused', () => {
    const body = {
      eventId: 'e',
      eventTime: '2026-11-03T08:00:00Z',
      eventType: 'productOrderItemStateChangeEvent',
      event: { id: 'po-1' },
    };
    expect(parseOrderEvent(body)).toEqual({
      ok: false,
      message: 'A productOrderItemStateChangeEvent must name its orderItemId (MEF 123 R106).',
    });
  });

  it('when the event goes to another type’s listener, then it is refused', () => {
    const body = sent('productOrderStateChangeEvent', { id: 'po-1' });
    expect(parseOrderEvent(body, 'chargeCreateEvent')).toEqual({
      ok: false,
      message: 'A productOrderStateChangeEvent was sent to the chargeCreateEvent listener.',
    });
  });

  it('when the body is no Event of a registered type, then the message names the place', () => {
    const modify = {
      eventId: 'e',
      eventTime: '2026-11-03T08:00:00Z',
      eventType: 'modifyProductOrderItemRequestedDeliveryDateStateChangeEvent',
      event: { id: 'm' },
    };
    expect(parseOrderEvent(modify)).toEqual({
      ok: false,
      message: 'The event does not match the Product Order notification Event at /eventType.',
    });
    expect(parseOrderEvent({ eventId: 'e', eventType: 'chargeCreateEvent', event: { id: 'c' } })).toEqual({
      ok: false,
      message: 'The event does not match the Product Order notification Event at /eventTime.',
    });
    expect(parseOrderEvent('not json')).toMatchObject({ ok: false });
  });
});

describe('orderListenerEventType and the hub query', () => {
  it('when a path is a registered listener, then its type; otherwise null', () => {
    expect(orderListenerEventType(new URL(listener('chargeCreateEvent')).pathname)).toBe('chargeCreateEvent');
    expect(
      orderListenerEventType(`${ORDER_NOTIFICATION_BASE_PATH}/listener/productOrderStateChangeEvent/`),
    ).toBe('productOrderStateChangeEvent');
    expect(
      orderListenerEventType(`${ORDER_NOTIFICATION_BASE_PATH}/listener/cancelProductOrderStateChangeEvent`),
    ).toBe('cancelProductOrderStateChangeEvent');
    expect(
      orderListenerEventType(
        `${ORDER_NOTIFICATION_BASE_PATH}/listener/modifyProductOrderItemRequestedDeliveryDateStateChangeEvent`,
      ),
    ).toBeNull();
    expect(
      orderListenerEventType('/mefApi/sonata/quoteNotification/v8/listener/quoteStateChangeEvent'),
    ).toBeNull();
  });

  it('when the buyer registers, then the query names every event type, chargeCreateEvent included (R103), and the cancellation’s', () => {
    expect(ORDER_HUB_QUERY).toBe(
      'eventType=productOrderStateChangeEvent,productOrderItemStateChangeEvent,' +
        'productOrderItemExpectedCompletionDateSet,productSpecificProductOrderItemMilestoneEvent,' +
        'chargeCreateEvent,chargeStateChangeEvent,chargeTimeoutEvent,cancelProductOrderStateChangeEvent',
    );
  });
});
