import { describe, expect, test } from 'vitest';
import { type Json, orderBody, orderSellerPerTest, plus, STEP_MS } from './sonata-order-fixtures.js';

const { call, quote, orderIn, seller } = orderSellerPerTest();

const states = (changes: Json[]) => changes.map((change: Json) => change.state);
const HOLD = { order: 'hold-charge', charge_due_ms: '60000' };

/** Orders `items` items under `knobs` and waits until every item is held on its charge. */
async function heldOrder(knobs: Record<string, string>, items = ['1']) {
  const quoteId = await quote(items.length);
  const created = await call('order', 'POST', '/productOrder', orderBody(quoteId, items), knobs);
  expect([created.status, created.body.state]).toEqual([201, 'acknowledged']);
  const held = await orderIn(created.body.id, ['held.assessingCharge'], knobs);
  expect(held.productOrderItem.map((item: Json) => item.state)).toEqual(items.map(() => 'held'));
  return held;
}

const answer = (acceptanceIndicator: 'accepted' | 'rejected') => ({
  chargeItem: [{ id: '1', acceptanceIndicator }],
});

describe('a Sonata seller holding order items on a charge (order=hold-charge)', () => {
  test('when the item is held, then its blocking construction charge awaits the buyer with a due date, and GET /charge finds it', async () => {
    const held = await heldOrder(HOLD);
    const [item] = held.productOrderItem;
    const chargeBase = `${seller().url}/sonata/colt/instant/mefApi/sonata/productOrderingManagement/v10/charge`;
    expect(states(held.stateChange)).toEqual(['acknowledged', 'inProgress', 'held.assessingCharge']);
    expect(states(item.stateChange)).toEqual(['acknowledged', 'inProgress', 'held']);
    expect(item.milestone.map((milestone: Json) => [milestone.name, milestone.note])).toEqual([
      ['siteSurveyCompleted', 'Site survey done: the last-mile connection must be built.'],
    ]);
    expect(item.expectedCompletionDate).toBe(plus(item.stateChange[1].changeDate, 2 * STEP_MS));
    const chargeId = item.charge[0].id;
    expect(item.charge).toEqual([{ id: chargeId, href: `${chargeBase}/${chargeId}` }]);

    const charge = await call('order', 'GET', `/charge/${chargeId}`, undefined, HOLD);

    const heldAt = item.stateChange[2].changeDate;
    expect(charge.body).toEqual({
      id: chargeId,
      href: `${chargeBase}/${chargeId}`,
      creationDate: heldAt,
      responseDueDate: new Date(Date.parse(heldAt) + 60_000).toISOString(),
      state: 'awaitingResponse',
      productOrderItem: { productOrderId: held.id, productOrderItemId: '1', productOrderHref: held.href },
      chargeItem: [
        {
          id: '1',
          activityType: 'new',
          priceType: 'nonRecurring',
          priceCategory: 'construction',
          description:
            'The site survey found that the last-mile connection must be built: a one-off construction charge.',
          price: {
            dutyFreeAmount: { unit: 'EUR', value: 750 },
            taxRate: 21,
            taxIncludedAmount: { unit: 'EUR', value: 907.5 },
          },
          blocking: true,
          state: 'awaitingResponse',
        },
      ],
    });
    const listed = await call('order', 'GET', `/charge?productOrderId=${held.id}`, undefined, HOLD);
    expect(listed.body).toEqual([
      {
        id: chargeId,
        productOrderItem: charge.body.productOrderItem,
        state: 'awaitingResponse',
        creationDate: heldAt,
        responseDueDate: charge.body.responseDueDate,
      },
    ]);
    expect((await call('order', 'GET', '/charge?state=completed', undefined, HOLD)).body).toEqual([]);
  });

  test('when the buyer accepts every charge item, then the charge completes and the item continues to completed; a second answer is refused 409', async () => {
    const held = await heldOrder(HOLD);
    const chargeId = held.productOrderItem[0].charge[0].id;

    const accepted = await call('order', 'PATCH', `/charge/${chargeId}`, answer('accepted'), HOLD);

    expect(accepted.status).toBe(200);
    expect([
      accepted.body.state,
      accepted.body.chargeItem[0].state,
      accepted.body.chargeItem[0].acceptanceIndicator,
    ]).toEqual(['completed', 'acceptedByBuyer', 'accepted']);
    const done = await orderIn(held.id, ['completed'], HOLD);
    expect(states(done.stateChange)).toEqual([
      'acknowledged',
      'inProgress',
      'held.assessingCharge',
      'inProgress',
      'completed',
    ]);
    expect(states(done.productOrderItem[0].stateChange)).toEqual([
      'acknowledged',
      'inProgress',
      'held',
      'inProgress',
      'completed',
    ]);
    expect(
      (await call('inventory', 'GET', `/product/${done.productOrderItem[0].product.id}`)).body.status,
    ).toBe('active');

    const again = await call('order', 'PATCH', `/charge/${chargeId}`, answer('rejected'), HOLD);
    expect([again.status, again.body]).toEqual([
      409,
      { code: 'conflict', reason: 'The charge was answered already.' },
    ]);
  });

  test('when the buyer declines the blocking charge, then the item fails (MEF 123 §6.12), the order returns to inProgress and then fails', async () => {
    const held = await heldOrder(HOLD);
    const chargeId = held.productOrderItem[0].charge[0].id;

    const declined = await call('order', 'PATCH', `/charge/${chargeId}`, answer('rejected'), HOLD);

    expect([declined.status, declined.body.state, declined.body.chargeItem[0].state]).toEqual([
      200,
      'completed',
      'declinedByBuyer',
    ]);
    const failed = await orderIn(held.id, ['failed'], HOLD);
    expect(states(failed.stateChange)).toEqual([
      'acknowledged',
      'inProgress',
      'held.assessingCharge',
      'inProgress',
      'failed',
    ]);
    const [item] = failed.productOrderItem;
    expect(states(item.stateChange)).toEqual(['acknowledged', 'inProgress', 'held', 'failed']);
    expect(item.terminationError).toEqual([
      {
        code: 'otherIssue',
        propertyPath: '/productOrderItem/0/charge',
        value: 'The buyer declined the blocking charge.',
      },
    ]);
    expect([item.expectedCompletionDate, item.completionDate, item.product.id]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(
      (await call('inventory', 'GET', `/product?productOrderId=${held.id}`, undefined, HOLD)).body,
    ).toEqual([]);
  });

  test('when one of two items is accepted and the other declined, then the order ends partial', async () => {
    const held = await heldOrder(HOLD, ['1', '2']);
    const [first, second] = held.productOrderItem.map((item: Json) => item.charge[0].id);

    expect((await call('order', 'PATCH', `/charge/${first}`, answer('accepted'), HOLD)).status).toBe(200);
    expect((await call('order', 'PATCH', `/charge/${second}`, answer('rejected'), HOLD)).status).toBe(200);

    const partial = await orderIn(held.id, ['partial'], HOLD);
    expect(partial.productOrderItem.map((item: Json) => item.state)).toEqual(['completed', 'failed']);
  });

  test('when the due date passes unanswered, then the charge times out, its items count as declined (MEF 123 R96), the item fails, and a late answer is refused 409', async () => {
    const knobs = { order: 'hold-charge', charge_due_ms: String(STEP_MS) };
    const quoteId = await quote();
    const created = await call('order', 'POST', '/productOrder', orderBody(quoteId), knobs);

    // The charge is due one step after it is raised: too soon to catch the held state by polling.
    const failed = await orderIn(created.body.id, ['failed'], knobs);
    const chargeId = failed.productOrderItem[0].charge[0].id;

    const charge = (await call('order', 'GET', `/charge/${chargeId}`, undefined, knobs)).body;
    expect([charge.state, charge.chargeItem[0].state, charge.chargeItem[0].acceptanceIndicator]).toEqual([
      'timeout',
      'declinedByBuyer',
      undefined,
    ]);
    const [item] = failed.productOrderItem;
    expect(states(item.stateChange)).toEqual(['acknowledged', 'inProgress', 'held', 'failed']);
    expect(Date.parse(item.stateChange[3].changeDate)).toBeGreaterThanOrEqual(
      Date.parse(charge.responseDueDate),
    );
    expect(item.terminationError).toEqual([
      {
        code: 'otherIssue',
        propertyPath: '/productOrderItem/0/charge',
        value: `The blocking charge was not answered by its responseDueDate ${charge.responseDueDate}.`,
      },
    ]);
    const late = await call('order', 'PATCH', `/charge/${chargeId}`, answer('accepted'), knobs);
    expect([late.status, late.body]).toEqual([
      409,
      {
        code: 'conflict',
        reason: `The charge's responseDueDate ${charge.responseDueDate} has passed: its items count as declined (MEF 123 R96).`,
      },
    ]);
  });

  test('when an answer leaves out a charge item or names an unknown one, then 400 invalidBody and the charge still awaits', async () => {
    const held = await heldOrder(HOLD);
    const chargeId = held.productOrderItem[0].charge[0].id;

    const unknown = await call(
      'order',
      'PATCH',
      `/charge/${chargeId}`,
      { chargeItem: [{ id: '9', acceptanceIndicator: 'accepted' }] },
      HOLD,
    );
    const twice = await call(
      'order',
      'PATCH',
      `/charge/${chargeId}`,
      {
        chargeItem: [
          { id: '1', acceptanceIndicator: 'accepted' },
          { id: '1', acceptanceIndicator: 'rejected' },
        ],
      },
      HOLD,
    );
    const noIndicator = await call(
      'order',
      'PATCH',
      `/charge/${chargeId}`,
      { chargeItem: [{ id: '1' }] },
      HOLD,
    );

    expect([unknown.status, unknown.body]).toEqual([
      400,
      { code: 'invalidBody', reason: 'The charge has no item 9.', message: '/chargeItem/0/id' },
    ]);
    expect([twice.status, twice.body.reason]).toEqual([
      400,
      'Answer every charge item exactly once, in one request (MEF 123 R94, R95).',
    ]);
    expect([noIndicator.status, noIndicator.body.code]).toEqual([400, 'invalidBody']);
    expect((await call('order', 'GET', `/charge/${chargeId}`, undefined, HOLD)).body.state).toBe(
      'awaitingResponse',
    );
    expect((await call('order', 'PATCH', '/charge/no-such-charge', answer('accepted'), HOLD)).status).toBe(
      404,
    );
  });
});
