import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SonataCallScope, SonataClient } from '../../../src/gathering/sources/mef-sonata/client.js';
import type { SonataSourceSettings } from '../../../src/gathering/sources/mef-sonata/settings.js';
import { SonataTokenCache } from '../../../src/gathering/sources/mef-sonata/token.js';
import { type PolicySettings, SourcePolicies } from '../../../src/gathering/sources/policies.js';
import { SonataOrdering } from '../../../src/ordering/mef-sonata/ordering-client.js';
import { type SonataValidator, sonataValidator } from '../../helpers/sonata-openapi.js';
import { settingsFor, sourceRow } from './fixtures.js';
import { type OrderSeller, sellerToken, startOrderSeller } from './order-seller.js';

/*
 * SonataOrdering's Cancel Product Order calls against a seller of the test's own, for what the simulated
 * seller never does: a seller without cancellations (501), one that ignores the list filter, an answer that
 * breaks the document. Every exchange is checked against MEF 123.
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

function scope(): SonataCallScope {
  const querySignal = new AbortController().signal;
  return { source: sourceRow(), settings, deadline: AbortSignal.timeout(5_000), querySignal };
}

const calls = () =>
  seller.exchanges.map((exchange) => `${exchange.method} ${exchange.path} ${exchange.query.offset ?? ''}`);

/** A `CancelProductOrder` as a seller answers, for order `orderId`. */
const cancelAnswer = (id: string, orderId: string, fields: Json = {}): Json => ({
  id,
  state: 'acknowledged',
  cancellationReasonType: 'technical',
  productOrder: { productOrderId: orderId },
  relatedContactInformation: [
    { role: 'cancelProductOrderContact', name: 'Desk', emailAddress: 'desk@gw.example', number: '+31 1' },
    { role: 'cancelProductOrderSellerContact', name: 'Seller', emailAddress: 's@c.example', number: '+31 2' },
  ],
  ...fields,
});
const found = (id: string, orderId: string, state = 'acknowledged') => ({
  id,
  cancellationReasonType: 'technical',
  productOrder: { productOrderId: orderId },
  state,
});

describe('SonataOrdering.cancel', () => {
  it('when the contact has a number and the reason is blank, then that number is sent and no cancellationReason', async () => {
    seller.answer = (call) => ({
      status: 201,
      body: cancelAnswer('c-1', 'po-1001', { ...(call.body as Json), state: 'rejected' }),
    });

    const view = await ordering.cancel(scope(), {
      productOrderId: 'po-1001',
      reason: '  ',
      reasonType: 'technical',
      contact: { name: 'Desk', emailAddress: 'desk@gw.example', number: '+31 1' },
    });

    expect(seller.exchanges[0]?.requestBody).toEqual({
      productOrder: { productOrderId: 'po-1001' },
      cancellationReasonType: 'technical',
      relatedContactInformation: [
        { role: 'cancelProductOrderContact', name: 'Desk', emailAddress: 'desk@gw.example', number: '+31 1' },
      ],
    });
    expect(view).toEqual({
      id: 'c-1',
      productOrderId: 'po-1001',
      state: 'rejected',
      deniedReason: null,
      chargeId: null,
    });
  });

  it('when the seller offers no cancellation (501), then SONATA_NOT_IMPLEMENTED, not retried', async () => {
    seller.answer = () => ({ status: 501, body: { code: 'notImplemented', reason: 'No cancellations.' } });
    const input = {
      productOrderId: 'po-1001',
      reason: 'Moved.',
      reasonType: 'commercial' as const,
      contact: { name: 'Desk', emailAddress: 'desk@gw.example' },
    };

    await expect(ordering.cancel(scope(), input)).rejects.toMatchObject({
      name: 'SourceError',
      code: 'SONATA_NOT_IMPLEMENTED',
      retryable: false,
    });
    expect(await ordering.findCancellations(scope(), 'po-1001')).toEqual([]);
    expect(calls()).toEqual(['POST /cancelProductOrder ', 'GET /cancelProductOrder 0']);
  });

  it('when the seller answers a state the document does not know, then INVALID_RESPONSE names the place', async () => {
    seller.answer = () => ({ status: 200, body: { ...cancelAnswer('c-1', 'po-1001'), state: 'cancelled' } });

    const failure = await ordering.retrieveCancellation(scope(), 'c-1').catch((error: unknown) => error);

    expect(failure).toMatchObject({ name: 'SourceError', code: 'INVALID_RESPONSE', retryable: false });
    expect((failure as Error).message).toContain(
      'Cancel Product Order c-1 retrieve breaks the MEF document at /state',
    );
    // The answer breaks the document on purpose: checked above, not by the hook.
    seller.exchanges.length = 0;
  });
});

describe('SonataOrdering.findCancellations', () => {
  it('when the seller ignores the productOrderId filter, then only the order’s cancellations are retrieved, each in full', async () => {
    seller.answer = (call) => {
      if (call.path === '/cancelProductOrder')
        return {
          status: 200,
          body: [
            found('c-1', 'po-1001', 'done.declined'),
            found('c-2', 'po-2002'),
            found('c-3', 'po-1001', 'inProgress.assessingCharge'),
          ],
        };
      const id = call.path.split('/')[2] ?? '';
      return id === 'c-1'
        ? {
            status: 200,
            body: cancelAnswer(id, 'po-1001', {
              state: 'done.declined',
              cancellationDeniedReason: 'Too late.',
            }),
          }
        : {
            status: 200,
            body: cancelAnswer(id, 'po-1001', {
              state: 'inProgress.assessingCharge',
              charge: { id: 'charge-9' },
            }),
          };
    };

    const views = await ordering.findCancellations(scope(), 'po-1001');

    expect(views).toEqual([
      {
        id: 'c-1',
        productOrderId: 'po-1001',
        state: 'done.declined',
        deniedReason: 'Too late.',
        chargeId: null,
      },
      {
        id: 'c-3',
        productOrderId: 'po-1001',
        state: 'inProgress.assessingCharge',
        deniedReason: null,
        chargeId: 'charge-9',
      },
    ]);
    expect(calls()).toEqual([
      'GET /cancelProductOrder 0',
      'GET /cancelProductOrder/c-1 ',
      'GET /cancelProductOrder/c-3 ',
    ]);
    expect(seller.exchanges[0]?.query).toMatchObject({ productOrderId: 'po-1001', limit: '100' });
  });
});
