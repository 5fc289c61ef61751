import { beforeAll, describe, expect, it } from 'vitest';
import {
  parseSonataCharge,
  parseSonataOrder,
  parseSonataOrderList,
  parseSonataProduct,
} from '../../../src/ordering/mef-sonata/order-answers.js';
import { productOrderCreateBody } from '../../../src/ordering/mef-sonata/order-request.js';
import { type SonataValidator, sonataValidator } from '../../helpers/sonata-openapi.js';
import { chargeAnswer, orderTerms, orderToPlace, productOrderAnswer } from './fixtures.js';

/*
 * The seller's ordering answers as the buyer reads them: every answer here is first checked against the MEF
 * documents, then parsed into exact views.
 */

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

const twoItems = productOrderCreateBody(
  orderToPlace({
    items: [
      { id: '1', terms: orderTerms(), contractTermMonths: 36 },
      { id: '2', terms: orderTerms({ quoteItemId: '4' }), contractTermMonths: 36 },
    ],
  }),
  '+31 0',
);

function sellerSays(api: 'order' | 'inventory', path: string, body: unknown): unknown {
  expect(validator.response(api, { method: 'GET', path, status: 200, body })).toEqual([]);
  return body;
}

describe('parseSonataOrder', () => {
  it('when one item is completed with milestones and a charge, and one failed, then the view has exactly what they said', () => {
    const body = productOrderAnswer(twoItems, {
      state: 'partial',
      items: {
        '1': {
          state: 'completed',
          expectedCompletionDate: '2027-01-20T00:00:00Z',
          completionDate: '2027-01-18T14:30:00+01:00',
          milestone: [
            { name: 'siteSurveyDone', date: '2026-12-01T10:00:00Z' },
            { name: 'lineActivated', date: '2027-01-18T14:00:00+01:00', note: 'ONT installed' },
          ],
          charge: [{ id: 'charge-7', href: 'https://seller.example/charge/charge-7' }],
          product: { id: 'prod-5501' },
          stateChange: [{ state: 'completed', changeDate: '2027-01-18T14:30:00+01:00' }],
        },
        '2': {
          state: 'failed',
          terminationError: [
            {
              code: 'invalidValue',
              propertyPath: '/productOrderItem/1/product/place/0',
              value: 'No duct to the building',
            },
            { code: 'otherIssue', propertyPath: '/productOrderItem/1/requestedCompletionDate' },
          ],
        },
      },
    });
    expect(parseSonataOrder(sellerSays('order', '/productOrder/po-1001', body), 'retrieve')).toEqual({
      id: 'po-1001',
      externalId: 'sor_0001',
      state: 'partial',
      items: [
        {
          id: '1',
          state: 'completed',
          expectedCompletionDate: '2027-01-20T00:00:00Z',
          completionDate: '2027-01-18T14:30:00+01:00',
          milestones: [
            { name: 'siteSurveyDone', date: '2026-12-01T10:00:00Z', description: null },
            { name: 'lineActivated', date: '2027-01-18T14:00:00+01:00', description: 'ONT installed' },
          ],
          chargeIds: ['charge-7'],
          productId: 'prod-5501',
          errorMessage: null,
        },
        {
          id: '2',
          state: 'failed',
          expectedCompletionDate: null,
          completionDate: null,
          milestones: [],
          chargeIds: [],
          productId: null,
          errorMessage: 'No duct to the building; otherIssue at /productOrderItem/1/requestedCompletionDate',
        },
      ],
    });
  });

  it('when a rejected item gives no termination error, then its latest state change reason is the message', () => {
    const body = productOrderAnswer(twoItems, {
      state: 'rejected',
      items: {
        '1': {
          state: 'rejected.validated',
          stateChange: [{ state: 'rejected.validated', changeReason: 'Item 2 was rejected' }],
        },
        '2': {
          state: 'rejected',
          stateChange: [
            { state: 'acknowledged', changeReason: 'received' },
            { state: 'rejected', changeReason: 'Billing account BA-7731 unknown' },
          ],
        },
      },
    });
    const view = parseSonataOrder(sellerSays('order', '/productOrder/po-1001', body), 'retrieve');
    expect(view.items.map((item) => [item.state, item.errorMessage])).toEqual([
      ['rejected.validated', 'Item 2 was rejected'],
      ['rejected', 'Billing account BA-7731 unknown'],
    ]);
  });

  it('when an in-progress item has a change reason, then it is no error message', () => {
    const body = productOrderAnswer(twoItems, {
      state: 'inProgress',
      items: {
        '1': {
          state: 'inProgress',
          expectedCompletionDate: '2027-02-01T00:00:00Z',
          stateChange: [{ changeReason: 'work started' }],
        },
      },
    });
    const view = parseSonataOrder(sellerSays('order', '/productOrder/po-1001', body), 'retrieve');
    expect(view.items.map((item) => [item.state, item.errorMessage])).toEqual([
      ['inProgress', null],
      ['acknowledged', null],
    ]);
  });

  it('when the state is not MEF’s or an item has no id, then INVALID_RESPONSE names the place', () => {
    const body = productOrderAnswer(twoItems);
    expect(() => parseSonataOrder({ ...body, state: 'done' }, 'Product Order create')).toThrow(
      expect.objectContaining({
        code: 'INVALID_RESPONSE',
        message: expect.stringMatching(/Product Order create breaks the MEF document at \/state/),
      }),
    );
    expect(() =>
      parseSonataOrder({ ...body, productOrderItem: [{ state: 'acknowledged' }] }, 'retrieve'),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_RESPONSE',
        message: expect.stringContaining('/productOrderItem/0/id'),
      }),
    );
  });
});

describe('parseSonataOrderList', () => {
  it('when the seller lists orders, then id, externalId, orderDate and state of each', () => {
    const list = [
      { id: 'po-1', externalId: 'sor_0001', orderDate: '2026-11-02T10:00:00Z', state: 'inProgress' },
      { id: 'po-2', orderDate: '2026-11-03T10:00:00Z', state: 'acknowledged', projectId: 'x' },
    ];
    expect(
      parseSonataOrderList(sellerSays('order', '/productOrder?externalId=sor_0001', list), 'list'),
    ).toEqual(list);
  });
});

describe('parseSonataCharge', () => {
  it('when a charge has a blocking NRC and a monthly change, then amounts are exact minor units', () => {
    expect(parseSonataCharge(sellerSays('order', '/charge/charge-7', chargeAnswer()), 'charge')).toEqual({
      id: 'charge-7',
      state: 'awaitingResponse',
      responseDueDate: '2026-11-10T08:00:00Z',
      productOrderId: 'po-1001',
      productOrderItemId: '1',
      items: [
        {
          id: 'ci-1',
          priceType: 'nonRecurring',
          priceCategory: 'construction',
          recurringChargePeriod: null,
          amountMinor: 125050,
          currency: 'EUR',
          blocking: true,
          state: 'awaitingResponse',
        },
        {
          id: 'ci-2',
          priceType: 'recurring',
          priceCategory: 'other',
          recurringChargePeriod: 'month',
          amountMinor: 1299,
          currency: 'EUR',
          blocking: false,
          state: 'awaitingResponse',
        },
      ],
    });
  });

  it('when a charge is for the order in yen and answered, then its order and yen amounts', () => {
    const body = chargeAnswer({
      state: 'completed',
      productOrderItem: undefined,
      productOrder: { productOrderId: 'po-1001' },
      chargeItem: [
        {
          id: 'ci-9',
          activityType: 'new',
          priceType: 'nonRecurring',
          priceCategory: 'cancellation',
          blocking: false,
          price: { dutyFreeAmount: { unit: 'JPY', value: 15000 } },
          state: 'acceptedByBuyer',
          acceptanceIndicator: 'accepted',
        },
      ],
    });
    const view = parseSonataCharge(
      sellerSays('order', '/charge/charge-7', JSON.parse(JSON.stringify(body))),
      'charge',
    );
    expect([view.state, view.productOrderId, view.productOrderItemId, view.items]).toEqual([
      'completed',
      'po-1001',
      null,
      [
        {
          id: 'ci-9',
          priceType: 'nonRecurring',
          priceCategory: 'cancellation',
          recurringChargePeriod: null,
          amountMinor: 15000,
          currency: 'JPY',
          blocking: false,
          state: 'acceptedByBuyer',
        },
      ],
    ]);
  });

  it('when an amount has more decimals than its currency, or no currency code, then INVALID_RESPONSE at the amount', () => {
    const item = (chargeAnswer().chargeItem as Record<string, unknown>[])[0];
    const withPrice = (dutyFreeAmount: unknown) =>
      chargeAnswer({ chargeItem: [{ ...item, price: { dutyFreeAmount } }] });
    expect(() => parseSonataCharge(withPrice({ unit: 'EUR', value: 10.005 }), 'charge')).toThrow(
      expect.objectContaining({
        code: 'INVALID_RESPONSE',
        message: expect.stringMatching(
          /chargeItem\/0\/price\/dutyFreeAmount: has more decimals than EUR allows/,
        ),
      }),
    );
    expect(() => parseSonataCharge(withPrice({ unit: 'euro', value: 10 }), 'charge')).toThrow(
      expect.objectContaining({
        message: expect.stringContaining('dutyFreeAmount/unit: must be an ISO 4217'),
      }),
    );
  });
});

describe('parseSonataProduct', () => {
  it('when the inventory has the product active, then its id, status and dates', () => {
    const body = {
      id: 'prod-5501',
      status: 'active',
      startDate: '2027-01-18T14:30:00+01:00',
      productOffering: { id: 'bia-fiber-dia' },
      productOrderItem: [{ productOrderId: 'po-1001', productOrderItemId: '1' }],
    };
    expect(parseSonataProduct(sellerSays('inventory', '/product/prod-5501', body), 'product')).toEqual({
      id: 'prod-5501',
      status: 'active',
      startDate: '2027-01-18T14:30:00+01:00',
      terminationDate: null,
    });
  });

  it('when the status is not MEF 116’s, then INVALID_RESPONSE', () => {
    expect(() =>
      parseSonataProduct({ id: 'p', status: 'live', startDate: '2027-01-18T14:30:00Z' }, 'product'),
    ).toThrow(expect.objectContaining({ code: 'INVALID_RESPONSE' }));
  });
});
