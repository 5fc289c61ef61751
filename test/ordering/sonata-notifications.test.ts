import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { ORDER_HUB_QUERY } from '../../src/ordering/mef-sonata/order-events.js';
import { registerSonata } from '../gathering/sonata-gateway.js';
import { sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import {
  expectValidOrderExchanges,
  orderWhen,
  sonataQuote,
  supplierLinesEnded,
} from './sonata-orders-fixtures.js';

/*
 * Issue 35, item 3: a source in the notifications mode follows its orders through the seller's hub — its
 * order listener registered before the first order, every read of the order after an event (the `notify`
 * seller answers 429 to a poll no event announced), events arriving through the gateway's callback route,
 * a redelivered one changing nothing; a source in another mode listens to `chargeCreateEvent` only (R103).
 */

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

const hubRegistrations = (seller: SonataSeller, sourceKey: string) =>
  seller.exchanges.filter(
    (exchange) =>
      exchange.path.startsWith(`/sonata/${sourceKey}/`) &&
      exchange.path.endsWith('/productOrderingManagement/v10/hub') &&
      exchange.method === 'POST',
  );

/** A seller with 20 ms steps and a gateway its notifications reach (`PUBLIC_BASE_URL`), with an admin. */
async function notifiedGateway(): Promise<{ seller: SonataSeller; server: TestServer; admin: TestTenant }> {
  const seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
  const port = await getPort({ host: '127.0.0.1' });
  const server = await startTestServer({
    env: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
  });
  const admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
  return { seller, server, admin };
}

describe('orders followed through the seller’s notifications', () => {
  let seller: SonataSeller;
  let server: TestServer;
  let admin: TestTenant;
  let eurofiberId: string;

  beforeAll(async () => {
    ({ seller, server, admin } = await notifiedGateway());
    eurofiberId = await registerSonata(
      admin,
      'eurofiber',
      'Eurofiber',
      sellerSettings(seller, 'eurofiber', 'notify', 'notifications'),
    );
    await registerSonata(admin, 'kpn-wba', 'KPN', sellerSettings(seller, 'kpn-wba', 'instant', 'instant'));
  });
  afterAll(async () => {
    await server?.close();
    await seller?.stop();
  });

  it('when an order is placed at a notifying seller, then it completes through its events without one throttled read', async () => {
    const quote = await sonataQuote(admin, ['Eurofiber', 'KPN']);
    const orderId = (await admin.api.post('/orders', { quote_id: quote.id })).body.data.id;
    const done = await orderWhen(admin, orderId, supplierLinesEnded);
    expect(done.lines.slice(0, 2).map((line: { status: string }) => line.status)).toEqual([
      'completed',
      'completed',
    ]);
    await seller.settled();

    const [eurofiberHub] = hubRegistrations(seller, 'eurofiber');
    expect(hubRegistrations(seller, 'eurofiber')).toHaveLength(1);
    expect((eurofiberHub?.requestBody as { query?: string } | undefined)?.query).toBe(ORDER_HUB_QUERY);
    expect(
      hubRegistrations(seller, 'kpn-wba').map(
        (exchange) => (exchange.requestBody as { query: string }).query,
      ),
    ).toEqual(['eventType=chargeCreateEvent']);

    const orderReads = seller.exchanges.filter(
      (exchange) =>
        exchange.path.startsWith('/sonata/eurofiber/') &&
        exchange.method === 'GET' &&
        /\/productOrder\/[^/]+$/.test(exchange.path),
    );
    const delivered = seller.notifications.filter(
      (notification) =>
        notification.url.includes('/productOrderingNotification/v10/listener/') &&
        notification.url.includes(`/sonata-callbacks/${eurofiberId}/`),
    );
    // Every read follows an event (none on a timer): at most one per event delivered.
    expect(orderReads.length).toBeGreaterThan(0);
    expect(orderReads.length).toBeLessThanOrEqual(delivered.length);
    expect(orderReads.filter((exchange) => exchange.status === 200).length).toBeGreaterThan(0);
    expect([...new Set(delivered.map((notification) => notification.status))]).toEqual([204]);
    expectValidOrderExchanges(seller, validator);

    // The same event again: accepted, nothing changes.
    const before = (await admin.api.get(`/orders/${orderId}`)).body.data;
    const [first] = delivered;
    const again = await fetch((first as { url: string }).url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(first?.body),
    });
    expect(again.status).toBe(204);
    const after = await orderWhen(admin, orderId, () => true);
    expect(after).toEqual(before);
  });

  it('when a callback is not the seller’s, then 401, 404 and 400 as the notification document says', async () => {
    const [hub] = hubRegistrations(seller, 'eurofiber');
    const callback = (hub?.requestBody as { callback?: string } | undefined)?.callback ?? '';
    const base = `${callback}/mefApi/sonata/productOrderingNotification/v10/listener`;
    const event = {
      eventId: 'e-1',
      eventTime: '2026-11-28T10:00:00Z',
      eventType: 'productOrderStateChangeEvent',
      event: { id: 'no-such-order' },
    };
    const post = (url: string, body: unknown) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const wrongToken = base.replace(/\/([^/]+)\/mefApi/, '/not-the-token/mefApi');
    expect((await post(`${wrongToken}/productOrderStateChangeEvent`, event)).status).toBe(401);
    expect((await post(`${base}/noSuchEvent`, event)).status).toBe(404);
    expect(
      (await post(`${base}/productOrderStateChangeEvent`, { ...event, eventTime: 'yesterday' })).status,
    ).toBe(400);
    expect((await post(`${base}/productOrderItemStateChangeEvent`, event)).status).toBe(400);
    expect((await post(`${base}/productOrderStateChangeEvent`, event)).status).toBe(204);
  });
});

describe('a notifying seller whose events arrive before its answer to the placement', () => {
  let seller: SonataSeller;
  let server: TestServer;
  let admin: TestTenant;

  beforeAll(async () => {
    ({ seller, server, admin } = await notifiedGateway());
    // Every answer leaves 300 ms after the seller acted: a new order's events (20 ms steps) come first.
    await registerSonata(
      admin,
      'eurofiber',
      'Eurofiber',
      sellerSettings(seller, 'eurofiber', 'notify', 'notifications', { query: { late_answer_ms: '300' } }),
    );
  });
  afterAll(async () => {
    await server?.close();
    await seller?.stop();
  });

  it('when every event precedes the placement’s answer, then none is lost: the order completes without waiting for the safety read', async () => {
    const quote = await sonataQuote(admin, ['Eurofiber']);
    const orderId = (await admin.api.post('/orders', { quote_id: quote.id })).body.data.id;
    // The safety read of a notified order is 60 s away; the wait below gives up after 30 s.
    const done = await orderWhen(admin, orderId, supplierLinesEnded);
    expect(done.lines[0]).toMatchObject({ fulfilment: 'supplier', status: 'completed' });

    const placement = seller.exchanges.find(
      (exchange) => exchange.method === 'POST' && exchange.path.endsWith('/productOrder'),
    );
    const sellerOrderId = (placement?.responseBody as { id?: string } | undefined)?.id;
    expect(sellerOrderId).toBeTypeOf('string');
    const events = seller.notifications.filter(
      (notification) =>
        notification.url.includes('/productOrderingNotification/v10/listener/') &&
        (notification.body as { event: { id: string } }).event.id === sellerOrderId,
    );
    expect(events.length).toBeGreaterThan(0);
  }, 40_000);
});
