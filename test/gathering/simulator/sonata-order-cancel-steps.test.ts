import { describe, expect, test } from 'vitest';
import type { ChargeRecord } from '../../../src/gathering/simulator/sonata/charge.js';
import type { SellerContext } from '../../../src/gathering/simulator/sonata/lifecycle.js';
import { createOrder, type OrderOutcome } from '../../../src/gathering/simulator/sonata/order.js';
import {
  cancelProductOrderCreateSchema,
  productOrderCreateSchema,
} from '../../../src/gathering/simulator/sonata/order-requests.js';
import { demoCatalogPath, readCatalogFile } from '../../../src/gathering/sources/catalog-file.js';
import { type Json, orderBody } from './sonata-order-fixtures.js';

/*
 * The cancellation state machine of a simulated seller's order (cancel.ts through order.ts), stepped by hand
 * at chosen instants: the states an order reaches only for a moment over HTTP (items `inProgress`, then
 * `pending`), and what a cancellation does to held items and their Charges.
 */

const context: SellerContext = {
  sourceKey: 'colt',
  mode: 'instant',
  catalog: readCatalogFile(demoCatalogPath),
  network: 'Colt',
  offerings: [],
  offeringPrefix: 'basic-internet-access',
  stepMs: 100,
  apiBase: () => 'https://seller.example/api',
};

const t0 = Date.parse('2030-01-01T09:00:00.000Z');
/** The instant `step` steps of 100 ms after t0. */
const at = (step: number) => new Date(t0 + step * 100);

/** An order of `items` items under `outcome`, its Charges kept in `raised`. */
function order(outcome: OrderOutcome = 'complete', items = ['1']) {
  const raised: ChargeRecord[] = [];
  let ids = 0;
  const lifecycle = createOrder(context, productOrderCreateSchema.parse(orderBody('q-1', items)), {
    id: 'po-1',
    now: at(0),
    outcome,
    chargeDueMs: 60_000,
    quoted: items.map(() => null),
    newId: () => `id-${++ids}`,
    onCharge: (charge) => raised.push(charge),
    deliver: (item) => `https://seller.example/product/${item.productId}`,
  });
  return { lifecycle, raised };
}

const request = cancelProductOrderCreateSchema.parse({
  productOrder: { productOrderId: 'po-1' },
  cancellationReasonType: 'technical',
  relatedContactInformation: [
    { role: 'cancelProductOrderContact', name: 'Orders', emailAddress: 'o@buyer.example', number: '1' },
  ],
});

const view = (lifecycle: ReturnType<typeof order>['lifecycle']) => lifecycle.view() as Json;
const itemStates = (lifecycle: ReturnType<typeof order>['lifecycle']) =>
  view(lifecycle).productOrderItem.map((item: Json) => item.state);

describe('cancelling an order at a simulated seller, step by step', () => {
  test('when an order in progress is cancelled and the seller declines, then its items wait pending, return inProgress, and the order completes after, no longer cancellable', () => {
    const { lifecycle } = order();
    lifecycle.advance(at(1));
    expect([view(lifecycle).state, itemStates(lifecycle)]).toEqual(['inProgress', ['inProgress']]);

    const started = lifecycle.cancellations.start(
      'c-1',
      request,
      { outcome: 'decline', chargeDueMs: 0 },
      at(2),
    );

    expect(started.map((event) => event.eventType)).toEqual([
      'productOrderItemStateChangeEvent',
      'productOrderStateChangeEvent',
    ]);
    expect([view(lifecycle).state, itemStates(lifecycle)]).toEqual(['assessingCancellation', ['pending']]);
    expect(view(lifecycle).productOrderItem[0].expectedCompletionDate).toBe(at(3).toISOString());
    expect(lifecycle.advance(at(3))).toEqual([]);
    expect(lifecycle.cancellations.step(at(3)).map((event) => event.eventType)).toEqual([
      'cancelProductOrderStateChangeEvent',
      'productOrderItemStateChangeEvent',
      'productOrderStateChangeEvent',
    ]);
    expect([view(lifecycle).state, itemStates(lifecycle)]).toEqual(['inProgress', ['inProgress']]);
    expect(lifecycle.cancellations.due()).toBe(false);
    lifecycle.advance(at(4));
    lifecycle.advance(at(5));
    expect(view(lifecycle).stateChange.map((change: Json) => change.state)).toEqual([
      'acknowledged',
      'inProgress',
      'assessingCancellation',
      'inProgress',
      'completed',
    ]);
    expect(lifecycle.cancellations.problem()).toEqual({
      code: 'invalidValue',
      propertyPath: '/productOrder/productOrderId',
      reason: 'The order is completed: it can no longer be cancelled.',
    });
  });

  test('when an order held on a charge is cancelled, then its held item is cancelled and the item’s charge withdrawn; answering it is refused 409', () => {
    const { lifecycle, raised } = order('hold-charge');
    lifecycle.advance(at(1));
    lifecycle.advance(at(2));
    expect([view(lifecycle).state, itemStates(lifecycle)]).toEqual(['held.assessingCharge', ['held']]);
    const itemCharge = raised[0]?.id ?? '';

    lifecycle.cancellations.start('c-1', request, { outcome: 'accept', chargeDueMs: 0 }, at(3));
    const accepted = lifecycle.cancellations.step(at(4));

    expect(accepted.map((event) => [event.eventType, event.subject?.id])).toEqual([
      ['cancelProductOrderStateChangeEvent', 'c-1'],
      ['productOrderItemStateChangeEvent', undefined],
      ['chargeStateChangeEvent', itemCharge],
      ['productOrderStateChangeEvent', undefined],
    ]);
    const charge = lifecycle.chargeView(itemCharge) as Json;
    expect([charge.state, charge.chargeItem[0].state]).toEqual(['withdrawnBySeller', 'withdrawnBySeller']);
    const answer = { chargeItem: [{ id: '1', acceptanceIndicator: 'accepted' as const }] };
    expect(lifecycle.answerCharge(itemCharge, answer, at(5)).answer).toEqual({
      status: 409,
      body: { code: 'conflict', reason: 'The seller withdrew the charge: the order item was cancelled.' },
    });
    lifecycle.cancellations.step(at(5));
    expect([view(lifecycle).state, itemStates(lifecycle), lifecycle.complete()]).toEqual([
      'cancelled',
      ['cancelled'],
      true,
    ]);
    expect(view(lifecycle).cancellationReason).toBe('Cancelled at the buyer’s request.');
  });

  test('when an acknowledged order’s cancellation charge is declined, then the order returns to acknowledged and is validated at its next step', () => {
    const { lifecycle, raised } = order();
    lifecycle.cancellations.start('c-1', request, { outcome: 'charge', chargeDueMs: 60_000 }, at(1));
    lifecycle.cancellations.step(at(2));
    const cancelCharge = raised[0];
    expect([cancelCharge?.cancelId, cancelCharge?.orderItemId, lifecycle.cancellations.due()]).toEqual([
      'c-1',
      undefined,
      false,
    ]);

    const answer = { chargeItem: [{ id: '1', acceptanceIndicator: 'rejected' as const }] };
    const { answer: answered, events } = lifecycle.answerCharge(cancelCharge?.id ?? '', answer, at(3));

    expect(answered.status).toBe(200);
    expect(events.map((event) => event.eventType)).toEqual([
      'chargeStateChangeEvent',
      'cancelProductOrderStateChangeEvent',
      'productOrderStateChangeEvent',
    ]);
    expect(lifecycle.cancellations.view('c-1')).toMatchObject({
      state: 'done.declined',
      cancellationDeniedReason: 'The buyer declined the cancellation charge.',
      charge: { id: cancelCharge?.id },
    });
    expect(view(lifecycle).state).toBe('acknowledged');
    lifecycle.advance(at(4));
    expect([view(lifecycle).state, itemStates(lifecycle)]).toEqual(['inProgress', ['inProgress']]);
  });
});
