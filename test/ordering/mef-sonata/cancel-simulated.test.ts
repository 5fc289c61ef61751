import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../../src/gathering/simulator/sonata/server.js';
import { type SonataCallScope, SonataClient } from '../../../src/gathering/sources/mef-sonata/client.js';
import type { SonataSourceSettings } from '../../../src/gathering/sources/mef-sonata/settings.js';
import { createMefSonataSource } from '../../../src/gathering/sources/mef-sonata/source.js';
import { SonataTokenCache } from '../../../src/gathering/sources/mef-sonata/token.js';
import { SourcePolicies } from '../../../src/gathering/sources/policies.js';
import type { SonataCancellationView } from '../../../src/ordering/mef-sonata/cancel-answers.js';
import type { SonataCancellationToSend } from '../../../src/ordering/mef-sonata/cancel-request.js';
import {
  orderListenerEventType,
  parseOrderEvent,
  type SonataOrderEvent,
} from '../../../src/ordering/mef-sonata/order-events.js';
import { SonataOrdering } from '../../../src/ordering/mef-sonata/ordering-client.js';
import {
  fastPolicy,
  queryOf,
  requestRow,
  sellerSettings,
  sourceRow,
} from '../../gathering/sources/mef-sonata/fixtures.js';
import { type SonataValidator, sonataApiOf, sonataValidator } from '../../helpers/sonata-openapi.js';
import { orderToPlace } from './fixtures.js';

/*
 * SonataOrdering cancelling orders at the simulated Sonata seller (MEF 123 UC 8–10, 11c): each knob of the
 * seller's answer followed to its end, a cancellation found again after its answer was lost, and refusals;
 * every exchange and notification checked against the MEF documents. The seller's orders step once a minute,
 * so an order stays `acknowledged` while its cancellation steps every 20 ms.
 */

let seller: SonataSeller;
let validator: SonataValidator;
let callbacks: Server;
let callbackUrl: string;
const events: SonataOrderEvent[] = [];

beforeAll(async () => {
  validator = await sonataValidator();
  seller = await startSonataSeller({ behaviour: { stepMs: 60_000 } });
  callbacks = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const type = orderListenerEventType(req.url ?? '');
      const parsed = parseOrderEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')), type ?? undefined);
      if (parsed.ok) events.push(parsed.event);
      res.writeHead(parsed.ok ? 204 : 400).end();
    });
  });
  await new Promise<void>((resolve) => callbacks.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}/callbacks/src_1/token`;
});

afterAll(async () => {
  await seller.stop();
  callbacks.closeAllConnections();
  await new Promise<void>((resolve) => callbacks.close(() => resolve()));
});

let exchangesChecked = 0;
let notificationsChecked = 0;
afterEach(async () => {
  await seller.settled();
  for (const exchange of seller.exchanges.slice(exchangesChecked)) {
    const api = sonataApiOf(exchange.path);
    if (!api) throw new Error(`no API for ${exchange.path}`);
    const { method, path, query } = exchange;
    expect(
      validator.request(api, { method, path, query, body: exchange.requestBody }),
      `${method} ${path}`,
    ).toEqual([]);
    expect(
      validator.response(api, { method, path, status: exchange.status, body: exchange.responseBody }),
      `${exchange.status} to ${method} ${path}`,
    ).toEqual([]);
  }
  for (const notification of seller.notifications.slice(notificationsChecked)) {
    const path = new URL(notification.url).pathname;
    expect(validator.notification('order', { path, body: notification.body }), path).toEqual([]);
    expect(notification.status).toBe(204);
  }
  exchangesChecked = seller.exchanges.length;
  notificationsChecked = seller.notifications.length;
});

const source = sourceRow({ timeoutMs: 5_000 });
const now = () => new Date();
const ordering = new SonataOrdering(
  new SonataClient(new SourcePolicies(fastPolicy), new SonataTokenCache({ now }), now),
);

/** The settings of the Eurofiber seller for buyer `buyerId`, with the base URL's knobs. */
const settingsWith = (query: Record<string, string>, buyerId = 'buyer-9'): SonataSourceSettings =>
  sellerSettings(seller, 'eurofiber', 'instant', 'instant', { query, buyerId });

function scope(settings: SonataSourceSettings, deadlineMs = 5_000): SonataCallScope {
  const querySignal = new AbortController().signal;
  return { source, settings, deadline: AbortSignal.timeout(deadlineMs), querySignal };
}

/** An acknowledged order of one quoted 100/100 Mbit/s, 36-month Eurofiber product: its seller id. */
async function placedOrder(externalId: string): Promise<string> {
  const settings = settingsWith({});
  const adapter = createMefSonataSource({ now, settingsOf: () => settings, policy: fastPolicy });
  const request = requestRow({ bandwidths: [{ download: 100_000, upload: 100_000 }], contractTerms: [36] });
  const terms = (await adapter.gather(queryOf(source, request))).offers[0]?.orderTerms;
  if (terms?.kind !== 'mef-sonata') throw new Error('the seller quoted nothing to order');
  const placed = await ordering.create(
    scope(settings),
    orderToPlace({ externalId, items: [{ id: '1', terms, contractTermMonths: 36 }] }),
  );
  expect(placed.state).toBe('acknowledged');
  return placed.id;
}

const cancellation = (productOrderId: string): SonataCancellationToSend => ({
  productOrderId,
  reason: 'The customer moved offices.',
  reasonType: 'commercial',
  contact: { name: 'Gateway operations', emailAddress: 'noc@gateway.example' },
});

/** Reads the cancellation until it is in `state`. */
async function until(
  settings: SonataSourceSettings,
  id: string,
  state: string,
): Promise<SonataCancellationView> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const view = await ordering.retrieveCancellation(scope(settings), id);
    if (view.state === state) return view;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${state}, at ${view.state}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Reads the order until it is in `state`; returns its items' states. */
async function orderUntil(settings: SonataSourceSettings, id: string, state: string): Promise<string[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const view = await ordering.retrieve(scope(settings), id);
    if (view.state === state) return view.items.map((item) => item.state);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${state}, at ${view.state}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('SonataOrdering cancelling at the simulated seller', () => {
  it('when the seller accepts, then the cancellation is acknowledged, then done, the order and its items cancelled, and the cancellation’s events name it', async () => {
    const settings = settingsWith({ cancel_step_ms: '20' });
    const listener = await ordering.registerListeners(scope(settings), callbackUrl);
    const orderId = await placedOrder('sor_cancel_1');

    const sent = await ordering.cancel(scope(settings), cancellation(orderId));

    expect(sent).toEqual({
      id: sent.id,
      productOrderId: orderId,
      state: 'acknowledged',
      deniedReason: null,
      chargeId: null,
    });
    expect(await until(settings, sent.id, 'done')).toEqual({ ...sent, state: 'done' });
    expect(await orderUntil(settings, orderId, 'cancelled')).toEqual(['cancelled']);
    await seller.settled();
    const cancelEvents = events.filter((event) => event.eventType === 'cancelProductOrderStateChangeEvent');
    expect(cancelEvents.map((event) => [event.cancellationId, event.orderId, event.buyerId])).toEqual([
      [sent.id, null, 'buyer-9'],
    ]);
    expect(events.filter((event) => event.orderId === orderId).map((event) => event.eventType)).toEqual([
      'productOrderStateChangeEvent',
      'productOrderItemStateChangeEvent',
      'productOrderStateChangeEvent',
      'productOrderStateChangeEvent',
    ]);
    const posted = seller.exchanges.find(
      (exchange) => exchange.method === 'POST' && exchange.path.endsWith('/cancelProductOrder'),
    );
    expect(posted?.requestBody).toEqual({
      productOrder: { productOrderId: orderId },
      cancellationReasonType: 'commercial',
      cancellationReason: 'The customer moved offices.',
      relatedContactInformation: [
        {
          role: 'cancelProductOrderContact',
          name: 'Gateway operations',
          emailAddress: 'noc@gateway.example',
          number: settings.buyerContact.number,
        },
      ],
    });
    await ordering.unregisterListener(scope(settings), listener ?? '');
  });

  it('when the seller declines, then the cancellation ends done.declined with the seller’s reason and the order goes on', async () => {
    const settings = settingsWith({ cancel_step_ms: '20', cancel: 'decline' });
    const orderId = await placedOrder('sor_cancel_2');

    const sent = await ordering.cancel(scope(settings), cancellation(orderId));

    expect(await until(settings, sent.id, 'done.declined')).toEqual({
      ...sent,
      state: 'done.declined',
      deniedReason: 'The installation is too far advanced to stop it.',
    });
    expect(await orderUntil(settings, orderId, 'acknowledged')).toEqual(['acknowledged']);
  });

  it('when the seller charges for the cancellation, then its Charge is read and accepted as any Charge, and the cancellation is done', async () => {
    const settings = settingsWith({ cancel_step_ms: '20', cancel: 'charge', charge_due_ms: '60000' });
    const orderId = await placedOrder('sor_cancel_3');
    const sent = await ordering.cancel(scope(settings), cancellation(orderId));

    const assessing = await until(settings, sent.id, 'inProgress.assessingCharge');
    const chargeId = assessing.chargeId ?? '';
    const charge = await ordering.retrieveCharge(scope(settings), chargeId);
    expect(await ordering.awaitedCharges(scope(settings), orderId)).toEqual([chargeId]);
    const answered = await ordering.answerCharge(scope(settings), chargeId, true);

    expect([charge.state, charge.productOrderId, charge.productOrderItemId]).toEqual([
      'awaitingResponse',
      orderId,
      null,
    ]);
    expect(
      charge.items.map((item) => [item.priceCategory, item.priceType, item.amountMinor, item.blocking]),
    ).toEqual([['cancellation', 'nonRecurring', 50_000, true]]);
    expect([answered.state, answered.items[0]?.state]).toEqual(['completed', 'acceptedByBuyer']);
    expect(await until(settings, sent.id, 'done')).toEqual({ ...assessing, state: 'done' });
    expect(await orderUntil(settings, orderId, 'cancelled')).toEqual(['cancelled']);
  });

  it('when the seller rejects, then the answer is rejected at once with its reason and the order stays as it was', async () => {
    const settings = settingsWith({ cancel: 'reject' });
    const orderId = await placedOrder('sor_cancel_4');

    const sent = await ordering.cancel(scope(settings), cancellation(orderId));

    expect(sent).toEqual({
      id: sent.id,
      productOrderId: orderId,
      state: 'rejected',
      deniedReason: 'The seller does not cancel orders of this kind.',
      chargeId: null,
    });
    expect((await ordering.retrieve(scope(settings), orderId)).state).toBe('acknowledged');
  });

  it('when the answer to a cancellation is lost, then the cancellation is not sent again and findCancellations finds the one the seller took', async () => {
    const orderId = await placedOrder('sor_cancel_5');
    const slow = settingsWith({ cancel_step_ms: '60000', late_answer_ms: '1000' });

    const lost = await ordering
      .cancel(scope(slow, 200), cancellation(orderId))
      .catch((error: unknown) => error);

    expect(lost).toMatchObject({ name: 'SourceError', code: 'TIMEOUT', retryable: true });
    const settings = settingsWith({ cancel_step_ms: '60000' });
    const found = await ordering.findCancellations(scope(settings), orderId);
    // One cancellation: the client did not send it twice.
    expect(found).toEqual([
      {
        id: found[0]?.id,
        productOrderId: orderId,
        state: 'acknowledged',
        deniedReason: null,
        chargeId: null,
      },
    ]);
    expect(await ordering.findCancellations(scope(settings), 'po-without-cancellations')).toEqual([]);
  });

  it('when the order is not the buyer’s or can no longer be cancelled, then the seller’s 422 is SONATA_UNPROCESSABLE and nothing is retried', async () => {
    const settings = settingsWith({ cancel_step_ms: '20' });
    const orderId = await placedOrder('sor_cancel_6');
    const sent = await ordering.cancel(scope(settings), cancellation(orderId));
    await orderUntil(settings, orderId, 'cancelled');
    const before = seller.exchanges.length;

    const again = ordering.cancel(scope(settings), cancellation(orderId));
    const otherBuyer = ordering.cancel(scope(settingsWith({}, 'buyer-other')), cancellation(orderId));

    await expect(again).rejects.toMatchObject({
      name: 'SourceError',
      code: 'SONATA_UNPROCESSABLE',
      retryable: false,
      message:
        'The seller answered 422 to the Cancel Product Order create for Product Order ' +
        `${orderId}: invalidValue (The order is cancelled: it can no longer be cancelled.) at /productOrder/productOrderId.`,
    });
    await expect(otherBuyer).rejects.toMatchObject({
      code: 'SONATA_UNPROCESSABLE',
      message: expect.stringContaining('referenceNotFound'),
    });
    expect(seller.exchanges.length - before).toBe(2);
    await expect(
      ordering.retrieveCancellation(scope(settingsWith({}, 'buyer-other')), sent.id),
    ).rejects.toMatchObject({ code: 'SONATA_NOT_FOUND' });
  });
});
