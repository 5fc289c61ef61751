import { describe, expect, test, vi } from 'vitest';
import { type Json, LISTENER_PATH, orderBody, orderSellerPerTest } from './sonata-order-fixtures.js';

// Orders step once a minute, so an order stays `acknowledged` for the whole test; cancellations step every
// 20 ms (`cancel_step_ms`).
const { call, quote, orderIn, listenerUrl, received, seller } = orderSellerPerTest('instant', 60_000);

const FAST = { cancel_step_ms: '20' };
const NOTIFICATION_BASE = '/mefApi/sonata/productOrderingNotification/v10/listener';
const states = (changes: Json[]) => changes.map((change) => change.state);

const contact = {
  role: 'cancelProductOrderContact',
  name: 'Orders',
  emailAddress: 'orders@buyer.example',
  number: '+31 20 1',
};
const sellerContact = {
  role: 'cancelProductOrderSellerContact',
  name: 'Colt Sonata desk',
  organization: 'Colt',
  emailAddress: 'sonata@colt.example',
  number: '+31 20 000 0000',
};
/** A `CancelProductOrder_Create` for the order `productOrderId`. */
const cancelBody = (productOrderId: string, fields: Json = {}) => ({
  productOrder: { productOrderId },
  cancellationReasonType: 'commercial',
  cancellationReason: 'The customer moved offices.',
  relatedContactInformation: [contact],
  ...fields,
});

const base = () => `${seller().url}/sonata/colt/instant/mefApi/sonata/productOrderingManagement/v10`;

/** An acknowledged order of `items` quoted items. */
async function placed(items = ['1']): Promise<Json> {
  const quoteId = await quote(items.length);
  const created = await call('order', 'POST', '/productOrder', orderBody(quoteId, items));
  expect([created.status, created.body.state]).toEqual([201, 'acknowledged']);
  return created.body;
}

/** Polls `GET /cancelProductOrder/{id}` until the cancellation is in `state`; returns it. */
async function cancellationIn(id: string, state: string, knobs: Record<string, string> = FAST) {
  let found: Json;
  await vi.waitFor(
    async () => {
      found = (await call('order', 'GET', `/cancelProductOrder/${id}`, undefined, knobs)).body;
      expect(found.state).toBe(state);
    },
    { timeout: 5_000, interval: 10 },
  );
  return found;
}

describe('a Sonata seller cancelling product orders (cancel=accept, the default)', () => {
  test('when the buyer cancels an order, then the cancellation is acknowledged, then done, and the order goes assessingCancellation → pendingCancellation → cancelled with its items', async () => {
    const hub = await call('order', 'POST', '/hub', { callback: listenerUrl() });
    expect(hub.status).toBe(201);
    const order = await placed();
    const body = cancelBody(order.id);

    const created = await call('order', 'POST', '/cancelProductOrder', body, FAST);

    expect(created.status).toBe(201);
    const { id } = created.body;
    const href = `${base()}/cancelProductOrder/${id}`;
    expect(created.body).toEqual({
      ...body,
      id,
      href,
      state: 'acknowledged',
      productOrder: { productOrderId: order.id, productOrderHref: order.href },
      relatedContactInformation: [contact, sellerContact],
    });
    const done = await cancellationIn(id, 'done');
    expect(done).toEqual({ ...created.body, state: 'done' });
    const cancelled = await orderIn(order.id, ['cancelled'], FAST);
    const changes = cancelled.stateChange;
    expect(states(changes)).toEqual([
      'acknowledged',
      'assessingCancellation',
      'pendingCancellation',
      'cancelled',
    ]);
    const cancelledAt = changes[3].changeDate;
    expect([cancelled.cancellationDate, cancelled.completionDate, cancelled.cancellationReason]).toEqual([
      cancelledAt,
      cancelledAt,
      'The customer moved offices.',
    ]);
    const [item] = cancelled.productOrderItem;
    expect(item.stateChange).toEqual([
      { changeDate: order.orderDate, state: 'acknowledged' },
      { changeDate: changes[2].changeDate, state: 'cancelled' },
    ]);
    expect([item.state, item.expectedCompletionDate]).toEqual(['cancelled', undefined]);
    const [listed] = (await call('order', 'GET', `/productOrder?state=cancelled`)).body;
    expect([listed.id, listed.cancellationDate, listed.completionDate]).toEqual([
      order.id,
      cancelledAt,
      cancelledAt,
    ]);

    await seller().settled();
    const orderEvent = { id: order.id, href: order.href };
    const expected: [string, Json][] = [
      ['productOrderStateChangeEvent', orderEvent],
      ['cancelProductOrderStateChangeEvent', { id, href }],
      ['productOrderItemStateChangeEvent', { ...orderEvent, orderItemId: '1' }],
      ['productOrderStateChangeEvent', orderEvent],
      ['productOrderStateChangeEvent', orderEvent],
    ];
    expect(received.map((event) => [event.body.eventType, event.body.event])).toEqual(expected);
    expect(received.map((event) => event.path)).toEqual(
      expected.map(([type]) => `${LISTENER_PATH}${NOTIFICATION_BASE}/${type}`),
    );
  });

  test('when the buyer lists cancellations, then GET /cancelProductOrder filters by productOrderId, state and cancellationReasonType, pages, and counts', async () => {
    const [first, second] = [await placed(), await placed()];
    const reject = { ...FAST, cancel: 'reject' };
    const a = (await call('order', 'POST', '/cancelProductOrder', cancelBody(first.id), reject)).body;
    const technical = cancelBody(first.id, { cancellationReasonType: 'technical' });
    const b = (await call('order', 'POST', '/cancelProductOrder', technical, reject)).body;
    const c = (await call('order', 'POST', '/cancelProductOrder', cancelBody(second.id), reject)).body;
    const find = (cancel: Json, order: Json) => ({
      id: cancel.id,
      cancellationReasonType: cancel.cancellationReasonType,
      productOrder: { productOrderId: order.id, productOrderHref: order.href },
      state: 'rejected',
    });

    const ofFirst = await call('order', 'GET', `/cancelProductOrder?productOrderId=${first.id}`);
    const technicalOnes = await call('order', 'GET', '/cancelProductOrder?cancellationReasonType=technical');
    const page = await call('order', 'GET', '/cancelProductOrder?state=rejected&offset=1&limit=1');
    const none = await call('order', 'GET', '/cancelProductOrder?state=done');
    const otherBuyer = await call('order', 'GET', '/cancelProductOrder', undefined, { buyerId: 'other' });

    expect(ofFirst.body).toEqual([find(a, first), find(b, first)]);
    expect(technicalOnes.body).toEqual([find(b, first)]);
    expect([page.body, page.headers.get('x-total-count'), page.headers.get('x-result-count')]).toEqual([
      [find(b, first)],
      '3',
      '1',
    ]);
    expect([none.status, none.body, otherBuyer.body]).toEqual([200, [], []]);
    expect(c.productOrder.productOrderId).toBe(second.id);
  });
});

describe('a Sonata seller refusing to cancel (cancel=decline, cancel=reject)', () => {
  test('when the seller declines, then the cancellation ends done.declined with its reason and the order returns to its state', async () => {
    const order = await placed();
    const knobs = { ...FAST, cancel: 'decline' };

    const created = await call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), knobs);

    expect([created.status, created.body.state]).toEqual([201, 'acknowledged']);
    const declined = await cancellationIn(created.body.id, 'done.declined', knobs);
    expect(declined).toEqual({
      ...created.body,
      state: 'done.declined',
      cancellationDeniedReason: 'The installation is too far advanced to stop it.',
    });
    const after = (await call('order', 'GET', `/productOrder/${order.id}`)).body;
    expect(states(after.stateChange)).toEqual(['acknowledged', 'assessingCancellation', 'acknowledged']);
    expect([after.state, after.productOrderItem[0].state, after.cancellationDate]).toEqual([
      'acknowledged',
      'acknowledged',
      undefined,
    ]);
  });

  test('when the seller rejects, then the cancellation is rejected at once with its reason and the order is untouched', async () => {
    const order = await placed();
    const knobs = { ...FAST, cancel: 'reject' };

    const created = await call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), knobs);

    expect([created.status, created.body.state, created.body.cancellationDeniedReason]).toEqual([
      201,
      'rejected',
      'The seller does not cancel orders of this kind.',
    ]);
    const after = (await call('order', 'GET', `/productOrder/${order.id}`)).body;
    expect(states(after.stateChange)).toEqual(['acknowledged']);
    const again = await call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), FAST);
    expect([again.status, again.body.state]).toEqual([201, 'acknowledged']);
  });
});

describe('a Sonata seller charging for a cancellation (cancel=charge)', () => {
  const CHARGE = { ...FAST, cancel: 'charge', charge_due_ms: '60000' };

  test('when the buyer accepts the cancellation charge, then the cancellation is done and the order cancelled with its cancellationCharge', async () => {
    const hub = await call('order', 'POST', '/hub', { callback: listenerUrl() });
    expect(hub.status).toBe(201);
    const order = await placed();
    const created = await call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), CHARGE);
    const assessing = await cancellationIn(created.body.id, 'inProgress.assessingCharge', CHARGE);
    const chargeId = assessing.charge.id;
    const chargeHref = `${base()}/charge/${chargeId}`;
    expect(assessing.charge).toEqual({ id: chargeId, href: chargeHref });

    const charge = (await call('order', 'GET', `/charge/${chargeId}`, undefined, CHARGE)).body;
    expect(charge).toEqual({
      id: chargeId,
      href: chargeHref,
      creationDate: charge.creationDate,
      responseDueDate: new Date(Date.parse(charge.creationDate) + 60_000).toISOString(),
      state: 'awaitingResponse',
      productOrder: { productOrderId: order.id, productOrderHref: order.href },
      cancelProductOrder: { id: created.body.id, href: created.body.href },
      chargeItem: [
        {
          id: '1',
          activityType: 'new',
          priceType: 'nonRecurring',
          priceCategory: 'cancellation',
          description: 'Work on the order has started: cancelling it costs a one-off cancellation charge.',
          price: {
            dutyFreeAmount: { unit: 'EUR', value: 500 },
            taxRate: 21,
            taxIncludedAmount: { unit: 'EUR', value: 605 },
          },
          blocking: true,
          state: 'awaitingResponse',
        },
      ],
    });
    const listed = await call('order', 'GET', `/charge?productOrderId=${order.id}`, undefined, CHARGE);
    expect(listed.body).toEqual([
      {
        id: chargeId,
        productOrder: charge.productOrder,
        state: 'awaitingResponse',
        creationDate: charge.creationDate,
        responseDueDate: charge.responseDueDate,
      },
    ]);
    const waiting = (await call('order', 'GET', `/productOrder/${order.id}`)).body;
    expect([waiting.state, waiting.cancellationCharge]).toEqual(['assessingCancellation', undefined]);

    const answer = { chargeItem: [{ id: '1', acceptanceIndicator: 'accepted' }] };
    const accepted = await call('order', 'PATCH', `/charge/${chargeId}`, answer, CHARGE);

    expect([accepted.status, accepted.body.state, accepted.body.chargeItem[0].state]).toEqual([
      200,
      'completed',
      'acceptedByBuyer',
    ]);
    expect((await call('order', 'GET', `/cancelProductOrder/${created.body.id}`)).body.state).toBe('done');
    const cancelled = await orderIn(order.id, ['cancelled'], CHARGE);
    expect(cancelled.cancellationCharge).toEqual([{ id: chargeId, href: chargeHref }]);
    expect(states(cancelled.stateChange)).toEqual([
      'acknowledged',
      'assessingCancellation',
      'pendingCancellation',
      'cancelled',
    ]);
    await seller().settled();
    expect(received.map((event) => event.body.eventType)).toEqual([
      'productOrderStateChangeEvent',
      'cancelProductOrderStateChangeEvent',
      'chargeCreateEvent',
      'chargeStateChangeEvent',
      'cancelProductOrderStateChangeEvent',
      'productOrderItemStateChangeEvent',
      'productOrderStateChangeEvent',
      'productOrderStateChangeEvent',
    ]);
  });

  test('when the buyer rejects the cancellation charge, then the cancellation is declined and the order goes back', async () => {
    const order = await placed();
    const created = await call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), CHARGE);
    const chargeId = (await cancellationIn(created.body.id, 'inProgress.assessingCharge', CHARGE)).charge.id;

    const answer = { chargeItem: [{ id: '1', acceptanceIndicator: 'rejected' }] };
    const rejected = await call('order', 'PATCH', `/charge/${chargeId}`, answer, CHARGE);

    expect([rejected.status, rejected.body.chargeItem[0].state]).toEqual([200, 'declinedByBuyer']);
    const declined = (await call('order', 'GET', `/cancelProductOrder/${created.body.id}`)).body;
    expect([declined.state, declined.cancellationDeniedReason]).toEqual([
      'done.declined',
      'The buyer declined the cancellation charge.',
    ]);
    const after = (await call('order', 'GET', `/productOrder/${order.id}`)).body;
    expect(states(after.stateChange)).toEqual(['acknowledged', 'assessingCancellation', 'acknowledged']);
  });

  test('when the cancellation charge is left past its due date, then it times out and the cancellation is declined', async () => {
    const knobs = { ...CHARGE, charge_due_ms: '20' };
    const order = await placed();
    const created = await call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), knobs);

    const declined = await cancellationIn(created.body.id, 'done.declined', knobs);

    const charge = (await call('order', 'GET', `/charge/${declined.charge.id}`)).body;
    expect([charge.state, charge.chargeItem[0].state]).toEqual(['timeout', 'declinedByBuyer']);
    expect(declined.cancellationDeniedReason).toBe(
      `The cancellation charge was not answered by its responseDueDate ${charge.responseDueDate}.`,
    );
    expect((await call('order', 'GET', `/productOrder/${order.id}`)).body.state).toBe('acknowledged');
  });
});

describe('a Sonata seller refusing Cancel Product Order requests', () => {
  test('when the body breaks CancelProductOrder_Create, then 400 invalidBody names the first problem', async () => {
    const order = await placed();
    const { productOrder: _, ...noOrder } = cancelBody(order.id);

    const answers = await Promise.all([
      call('order', 'POST', '/cancelProductOrder', noOrder),
      call('order', 'POST', '/cancelProductOrder', cancelBody(order.id, { relatedContactInformation: [] })),
      call('order', 'POST', '/cancelProductOrder', cancelBody(order.id, { cancellationReasonType: 'moved' })),
    ]);

    expect(answers.map((answer) => [answer.status, answer.body.code, answer.body.message])).toEqual([
      [400, 'invalidBody', '/productOrder: Invalid input: expected object, received undefined'],
      [400, 'invalidBody', '/relatedContactInformation: Too small: expected array to have >=1 items'],
      [
        400,
        'invalidBody',
        '/cancellationReasonType: Invalid option: expected one of "technical"|"commercial"',
      ],
    ]);
  });

  test('when the request lacks the R74 contact or a reason type, or names no order of this buyer, then 422 lists each problem', async () => {
    const order = await placed();
    const orders = { ...contact, role: 'productOrderContact' };
    const { cancellationReasonType: _, ...noType } = cancelBody(order.id, {
      relatedContactInformation: [orders],
    });

    const [missing, unknown, otherBuyers] = await Promise.all([
      call('order', 'POST', '/cancelProductOrder', noType),
      call('order', 'POST', '/cancelProductOrder', cancelBody('po-unknown')),
      call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), { buyerId: 'other' }),
    ]);

    expect([missing.status, missing.body]).toEqual([
      422,
      [
        {
          code: 'missingProperty',
          propertyPath: '/relatedContactInformation',
          reason: 'A cancellation needs a contact with the role cancelProductOrderContact (MEF 123 R74).',
        },
        {
          code: 'missingProperty',
          propertyPath: '/cancellationReasonType',
          reason: 'This seller needs to know whether the reason is technical or commercial.',
        },
      ],
    ]);
    expect([unknown.status, unknown.body]).toEqual([
      422,
      [
        {
          code: 'referenceNotFound',
          propertyPath: '/productOrder/productOrderId',
          reason: 'No productOrder po-unknown of this buyer.',
        },
      ],
    ]);
    expect([otherBuyers.status, otherBuyers.body[0].code]).toEqual([422, 'referenceNotFound']);
    expect((await call('order', 'GET', '/cancelProductOrder')).body).toEqual([]);
  });

  test('when the order is being cancelled or was cancelled, then a new cancellation is 422 invalidValue; an unknown or other buyer’s cancellation is 404', async () => {
    const order = await placed();
    const knobs = { ...FAST, cancel: 'charge', charge_due_ms: '60000' };
    const created = await call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), knobs);
    const { charge } = await cancellationIn(created.body.id, 'inProgress.assessingCharge', knobs);

    const during = await call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), FAST);
    const answer = { chargeItem: [{ id: '1', acceptanceIndicator: 'accepted' }] };
    expect((await call('order', 'PATCH', `/charge/${charge.id}`, answer, FAST)).status).toBe(200);
    await orderIn(order.id, ['cancelled'], FAST);
    const after = await call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), FAST);

    const problem = (reason: string) => [
      422,
      [{ code: 'invalidValue', propertyPath: '/productOrder/productOrderId', reason }],
    ];
    expect([during.status, during.body]).toEqual(
      problem('The order is assessingCancellation: a cancellation of it is under way.'),
    );
    expect([after.status, after.body]).toEqual(
      problem('The order is cancelled: it can no longer be cancelled.'),
    );
    const byOther = await call('order', 'GET', `/cancelProductOrder/${created.body.id}`, undefined, {
      buyerId: 'other',
    });
    const unknown = await call('order', 'GET', '/cancelProductOrder/c-unknown');
    expect([byOther.status, byOther.body, unknown.status]).toEqual([
      404,
      { code: 'notFound', reason: `No cancelProductOrder ${created.body.id}.` },
      404,
    ]);
  });

  test('when the cancel knob is unknown, then 400 invalidQuery names the choices', async () => {
    const order = await placed();
    const answer = await call('order', 'POST', '/cancelProductOrder', cancelBody(order.id), {
      cancel: 'maybe',
    });
    expect([answer.status, answer.body]).toEqual([
      400,
      { code: 'invalidQuery', reason: 'Unknown cancel knob maybe: use accept, decline, charge, reject.' },
    ]);
  });
});
