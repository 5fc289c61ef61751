import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SourceRow } from '../../../src/db/rows.js';
import { type SonataCallScope, SonataClient } from '../../../src/gathering/sources/mef-sonata/client.js';
import type { SonataSourceSettings } from '../../../src/gathering/sources/mef-sonata/settings.js';
import { SonataTokenCache } from '../../../src/gathering/sources/mef-sonata/token.js';
import { type PolicySettings, SourcePolicies } from '../../../src/gathering/sources/policies.js';
import { ORDER_HUB_QUERY } from '../../../src/ordering/mef-sonata/order-events.js';
import { productOrderCreateBody } from '../../../src/ordering/mef-sonata/order-request.js';
import { SonataOrdering } from '../../../src/ordering/mef-sonata/ordering-client.js';
import { type SonataValidator, sonataValidator } from '../../helpers/sonata-openapi.js';
import { chargeAnswer, orderToPlace, productOrderAnswer, settingsFor, sourceRow } from './fixtures.js';
import { type OrderCall, type OrderSeller, sellerToken, startOrderSeller } from './order-seller.js';

/*
 * SonataOrdering against a seller over real HTTP on 127.0.0.1: what it sends and what it makes of the answers,
 * every exchange checked against the MEF 123 and MEF 116 documents.
 */

type Json = Record<string, unknown>;

const fastPolicy: PolicySettings = {
  retries: 2,
  baseDelayMs: 5,
  maxDelayMs: 50,
  breakerThreshold: 50,
  halfOpenAfterMs: 300,
  queueSize: 100,
};

let validator: SonataValidator;
let seller: OrderSeller;
let ordering: SonataOrdering;
let settings: SonataSourceSettings;

beforeAll(async () => {
  validator = await sonataValidator();
  seller = await startOrderSeller();
});
afterAll(() => seller.stop());

beforeEach(() => {
  const now = () => new Date();
  ordering = new SonataOrdering(
    new SonataClient(new SourcePolicies(fastPolicy), new SonataTokenCache({ now }), now),
  );
  settings = settingsFor(seller.url, { buyerId: 'buyer-9', sellerId: 'carrier-nl' });
  seller.exchanges.length = 0;
});

afterEach(() => {
  for (const exchange of seller.exchanges) {
    const { api, method, path, query } = exchange;
    expect(
      validator.request(api, { method, path, query, body: exchange.requestBody }),
      `${method} ${path}`,
    ).toEqual([]);
    expect(
      validator.response(api, { method, path, status: exchange.status, body: exchange.responseBody }),
      `${exchange.status} to ${method} ${path}`,
    ).toEqual([]);
    expect(exchange.authorization).toBe(`Bearer ${sellerToken}`);
    expect([exchange.query.buyerId, exchange.query.sellerId]).toEqual(['buyer-9', 'carrier-nl']);
  }
});

function scope(source: SourceRow = sourceRow(), deadlineMs = 5_000): SonataCallScope {
  const querySignal = new AbortController().signal;
  return {
    source,
    settings,
    deadline: AbortSignal.any([querySignal, AbortSignal.timeout(deadlineMs)]),
    querySignal,
  };
}

const calls = () => seller.exchanges.map((exchange) => `${exchange.method} ${exchange.path}`);

/** The `ProductOrder_Find` entry of an order. */
const found = (id: string, externalId: string, orderDate = '2026-11-02T10:00:00Z') => ({
  id,
  externalId,
  orderDate,
  state: 'acknowledged',
});

describe('SonataOrdering.create', () => {
  it('when the seller takes the order, then the body is sent once as built and its ProductOrder is the view', async () => {
    const order = orderToPlace();
    seller.answer = (call) => ({ status: 201, body: productOrderAnswer(call.body as Json) });
    const view = await ordering.create(scope(), order);
    expect(view).toEqual({
      id: 'po-1001',
      externalId: 'sor_0001',
      state: 'acknowledged',
      items: [
        {
          id: '1',
          state: 'acknowledged',
          expectedCompletionDate: null,
          completionDate: null,
          milestones: [],
          chargeIds: [],
          productId: null,
          errorMessage: null,
        },
      ],
    });
    expect(calls()).toEqual(['POST /productOrder']);
    expect(seller.exchanges[0]?.requestBody).toEqual(productOrderCreateBody(order, '+31 20 555 0100'));
    expect(seller.exchanges[0]?.contentType).toBe('application/json;charset=utf-8');
  });

  it('when the seller fails with a 503 and has no such order, then the create is not repeated and UPSTREAM_5XX is thrown', async () => {
    seller.answer = (call) =>
      call.method === 'POST'
        ? { status: 503, body: { code: 'internalError', reason: 'maintenance' } }
        : { status: 200, body: [found('po-other', 'sor_9999')] };
    await expect(ordering.create(scope(), orderToPlace())).rejects.toMatchObject({
      name: 'SourceError',
      code: 'UPSTREAM_5XX',
      retryable: true,
    });
    expect(calls()).toEqual(['POST /productOrder', 'GET /productOrder']);
    expect(seller.exchanges[1]?.query).toMatchObject({ externalId: 'sor_0001', offset: '0', limit: '100' });
  });

  it('when the seller took the order but its answer never came, then the order is found by externalId', async () => {
    let placed: Json | null = null;
    seller.answer = (call) => {
      if (call.method === 'POST') {
        placed = productOrderAnswer(call.body as Json, { id: 'po-2002' });
        return 'stall';
      }
      if (call.path === '/productOrder')
        return { status: 200, body: placed ? [found('po-2002', 'sor_0001')] : [] };
      return { status: 200, body: { ...placed, state: 'inProgress' } };
    };
    const view = await ordering.create(scope(sourceRow({ timeoutMs: 300 })), orderToPlace());
    expect([view.id, view.state, view.externalId]).toEqual(['po-2002', 'inProgress', 'sor_0001']);
    // The stalled POST is not recorded by the seller: one list, one retrieve, and no second POST.
    expect(calls()).toEqual(['GET /productOrder', 'GET /productOrder/po-2002']);
  });

  it('when the seller refuses the order with an Error422 list, then SONATA_UNPROCESSABLE and no lookup', async () => {
    seller.answer = () => ({
      status: 422,
      body: [
        {
          code: 'invalidValue',
          reason: 'unknown billing account',
          propertyPath: '/productOrderItem/0/billingAccount/id',
        },
      ],
    });
    await expect(ordering.create(scope(), orderToPlace())).rejects.toMatchObject({
      code: 'SONATA_UNPROCESSABLE',
      message: expect.stringContaining(
        'invalidValue (unknown billing account) at /productOrderItem/0/billingAccount/id',
      ),
    });
    expect(calls()).toEqual(['POST /productOrder']);
  });

  it('when the order has no items, then nothing is sent (R12)', async () => {
    await expect(ordering.create(scope(), orderToPlace({ items: [] }))).rejects.toThrow(RangeError);
    expect(calls()).toEqual([]);
  });
});

describe('SonataOrdering.findByExternalId', () => {
  const full = (id: string) =>
    productOrderAnswer(productOrderCreateBody(orderToPlace(), '+31 20 555 0100'), {
      id,
      state: 'inProgress',
    });

  it('when the seller ignores the filter, then only the order with our externalId is retrieved (the earliest of two)', async () => {
    seller.answer = (call) =>
      call.path === '/productOrder'
        ? {
            status: 200,
            body: [
              found('po-1', 'sor_0002'),
              found('po-3', 'sor_0001', '2026-11-04T10:00:00Z'),
              { id: 'po-4', orderDate: '2026-11-01T10:00:00Z', state: 'completed' },
              found('po-2', 'sor_0001', '2026-11-03T10:00:00Z'),
            ],
          }
        : { status: 200, body: full(call.path.split('/')[2] ?? '') };
    const view = await ordering.findByExternalId(scope(), 'sor_0001');
    expect([view?.id, view?.externalId]).toEqual(['po-2', 'sor_0001']);
    expect(calls()).toEqual(['GET /productOrder', 'GET /productOrder/po-2']);
  });

  it('when the seller has none, then null', async () => {
    seller.answer = () => ({ status: 200, body: [] });
    expect(await ordering.findByExternalId(scope(), 'sor_0001')).toBeNull();
  });

  it('when a full page has no match, then the next page is read; a seller ignoring offset is read twice only', async () => {
    const page = (from: number) =>
      Array.from({ length: 100 }, (_, index) => found(`po-${from + index}`, `sor_x${from + index}`));
    seller.answer = (call: OrderCall) =>
      call.path === '/productOrder'
        ? { status: 200, body: call.query.offset === '0' ? page(0) : [found('po-500', 'sor_0001')] }
        : { status: 200, body: full('po-500') };
    expect((await ordering.findByExternalId(scope(), 'sor_0001'))?.id).toBe('po-500');
    expect(seller.exchanges.map((exchange) => exchange.query.offset ?? exchange.path)).toEqual([
      '0',
      '100',
      '/productOrder/po-500',
    ]);

    seller.exchanges.length = 0;
    seller.answer = () => ({ status: 200, body: page(0) });
    expect(await ordering.findByExternalId(scope(), 'sor_0001')).toBeNull();
    expect(calls()).toEqual(['GET /productOrder', 'GET /productOrder']);
  });
});

describe('SonataOrdering reads', () => {
  it('when an order is retrieved, then its view; an unknown one is SONATA_NOT_FOUND', async () => {
    seller.answer = (call) =>
      call.path === '/productOrder/po-1001'
        ? {
            status: 200,
            body: productOrderAnswer(productOrderCreateBody(orderToPlace(), '+31 0'), {
              state: 'inProgress',
              items: { '1': { state: 'inProgress', expectedCompletionDate: '2027-02-01T00:00:00Z' } },
            }),
          }
        : { status: 404, body: { code: 'notFound', reason: 'no such order' } };
    const view = await ordering.retrieve(scope(), 'po-1001');
    expect([view.state, view.items[0]?.state, view.items[0]?.expectedCompletionDate]).toEqual([
      'inProgress',
      'inProgress',
      '2027-02-01T00:00:00Z',
    ]);
    await expect(ordering.retrieve(scope(), 'po-0')).rejects.toMatchObject({ code: 'SONATA_NOT_FOUND' });
  });

  it('when a charge is retrieved, then its items in minor units', async () => {
    seller.answer = () => ({ status: 200, body: chargeAnswer() });
    const charge = await ordering.retrieveCharge(scope(), 'charge-7');
    expect(charge.items.map((item) => [item.id, item.amountMinor, item.currency, item.blocking])).toEqual([
      ['ci-1', 125050, 'EUR', true],
      ['ci-2', 1299, 'EUR', false],
    ]);
    expect(calls()).toEqual(['GET /charge/charge-7']);
  });

  it('when charges are listed for an order, then only its charges awaiting an answer; a 501 is none', async () => {
    const entry = (id: string, state: string, orderId: string, onItem = true) => ({
      id,
      creationDate: '2026-11-03T08:00:00Z',
      responseDueDate: '2026-11-10T08:00:00Z',
      state,
      ...(onItem
        ? { productOrderItem: { productOrderId: orderId, productOrderItemId: '1' } }
        : { productOrder: { productOrderId: orderId } }),
    });
    seller.answer = () => ({
      status: 200,
      body: [
        entry('charge-1', 'completed', 'po-1001'),
        entry('charge-2', 'awaitingResponse', 'po-1001'),
        entry('charge-3', 'awaitingResponse', 'po-9'),
        entry('charge-4', 'awaitingResponse', 'po-1001', false),
      ],
    });
    expect(await ordering.awaitedCharges(scope(), 'po-1001')).toEqual(['charge-2', 'charge-4']);
    expect(seller.exchanges[0]?.query.productOrderId).toBe('po-1001');

    seller.answer = () => ({ status: 501, body: { code: 'notImplemented', reason: 'no charges' } });
    expect(await ordering.awaitedCharges(scope(), 'po-1001')).toEqual([]);
  });

  it('when an inventory product is retrieved, then its id and status from MEF 116', async () => {
    seller.answer = () => ({
      status: 200,
      body: { id: 'prod-5501', status: 'pendingActive', startDate: '2027-01-18T14:30:00Z' },
    });
    expect(await ordering.retrieveProduct(scope(), 'prod-5501')).toEqual({
      id: 'prod-5501',
      status: 'pendingActive',
      startDate: '2027-01-18T14:30:00Z',
      terminationDate: null,
    });
    expect(seller.exchanges.map((exchange) => [exchange.api, exchange.path])).toEqual([
      ['inventory', '/product/prod-5501'],
    ]);
  });
});

describe('SonataOrdering.answerCharge', () => {
  it.each([
    [true, 'accepted', 'acceptedByBuyer'],
    [false, 'rejected', 'declinedByBuyer'],
  ] as const)(
    'when accept is %s, then every item is PATCHed %s at once (R94, R95)',
    async (accept, indicator, itemState) => {
      seller.answer = (call) => {
        if (call.method === 'GET') return { status: 200, body: chargeAnswer() };
        const answered = (chargeAnswer().chargeItem as Json[]).map((item) => ({
          ...item,
          state: itemState,
          acceptanceIndicator: indicator,
        }));
        return { status: 200, body: chargeAnswer({ state: 'completed', chargeItem: answered }) };
      };
      const charge = await ordering.answerCharge(scope(), 'charge-7', accept);
      expect(calls()).toEqual(['GET /charge/charge-7', 'PATCH /charge/charge-7']);
      expect(seller.exchanges[1]?.requestBody).toEqual({
        chargeItem: [
          { id: 'ci-1', acceptanceIndicator: indicator },
          { id: 'ci-2', acceptanceIndicator: indicator },
        ],
      });
      expect([charge.state, ...charge.items.map((item) => item.state)]).toEqual([
        'completed',
        itemState,
        itemState,
      ]);
    },
  );

  it('when the charge’s amounts cannot be read, then it can still be rejected', async () => {
    const unreadable = chargeAnswer({
      chargeItem: [
        {
          ...(chargeAnswer().chargeItem as Json[])[0],
          price: { dutyFreeAmount: { unit: 'EUR', value: 1.005 } },
        },
      ],
    });
    seller.answer = (call) =>
      call.method === 'GET'
        ? { status: 200, body: unreadable }
        : { status: 409, body: { code: 'conflict', reason: 'timed out' } };
    await expect(ordering.answerCharge(scope(), 'charge-7', false)).rejects.toMatchObject({
      code: 'UPSTREAM_4XX',
    });
    expect(seller.exchanges[1]?.requestBody).toEqual({
      chargeItem: [{ id: 'ci-1', acceptanceIndicator: 'rejected' }],
    });
  });
});

describe('SonataOrdering listeners', () => {
  const callback = 'https://gateway.example/sonata-callbacks/src_1/token';

  it('when the hub registers the listener, then its id; deleting it is DELETE /hub/{id}', async () => {
    seller.answer = (call) =>
      call.method === 'POST'
        ? { status: 201, body: { id: 'hub-77', ...(call.body as Json) } }
        : { status: 204 };
    expect(await ordering.registerListeners(scope(), callback)).toBe('hub-77');
    await ordering.unregisterListener(scope(), 'hub-77');
    expect(calls()).toEqual(['POST /hub', 'DELETE /hub/hub-77']);
    expect(seller.exchanges[0]?.requestBody).toEqual({ callback, query: ORDER_HUB_QUERY });
  });

  it('when the seller sends no notifications (501), then null; a listener already gone (404) is no failure', async () => {
    seller.answer = (call) =>
      call.method === 'POST'
        ? { status: 501, body: { code: 'notImplemented', reason: 'no notifications' } }
        : { status: 404, body: { code: 'notFound', reason: 'no such listener' } };
    expect(await ordering.registerListeners(scope(), callback)).toBeNull();
    await expect(ordering.unregisterListener(scope(), 'hub-0')).resolves.toBeUndefined();
  });
});
