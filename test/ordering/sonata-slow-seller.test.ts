import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { registerSonata } from '../gathering/sonata-gateway.js';
import { sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { sellerProxy } from './seller-proxy.js';
import { orderWhen, sonataQuote, supplierLinesEnded, supplierOrdersOf } from './sonata-orders-fixtures.js';

/*
 * Exactly once when the gateway cannot tell whether its placement was taken. A seller slower than the
 * source's timeout: its gateway takes the order, our POST times out, and the seller records the order only
 * later. A seller whose answer to the POST cannot be read (not the MEF document's shape): it took the order
 * all the same. Either way the gateway must look the order up (by `externalId`) until it appears, not send it
 * again, and not fail its lines.
 */

/** How long the proxy holds each `POST /productOrder` before the seller sees it (ms). */
const HOLD_MS = 1_500;

describe.each([
  { seller: 'slower than the source’s timeout', handling: { holdMs: HOLD_MS } },
  {
    seller: 'whose answer to the placement is not the MEF document',
    handling: { answerWith: () => JSON.stringify({ id: 42, state: 'notAState' }) },
  },
])('an order placed at a seller $seller', ({ handling }) => {
  let seller: SonataSeller;
  let proxy: Awaited<ReturnType<typeof sellerProxy>>;
  let server: TestServer;
  let admin: TestTenant;

  beforeAll(async () => {
    seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
    proxy = await sellerProxy(seller.url, handling);
    server = await startTestServer();
    admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
    const settings = sellerSettings(seller, 'kpn-wba', 'instant', 'instant');
    await registerSonata(
      admin,
      'kpn-wba',
      'KPN',
      { ...settings, baseUrl: settings.baseUrl.replace(seller.url, proxy.url) },
      { timeoutMs: 1_000 },
    );
  });
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await seller?.stop();
  });

  it('when it is placed, then it is looked up until found, created once and followed to completed', async () => {
    const quote = await sonataQuote(admin, ['KPN']);
    const orderId = (await admin.api.post('/orders', { quote_id: quote.id })).body.data.id;
    const done = await orderWhen(admin, orderId, supplierLinesEnded);
    expect(done.lines[0].status).toBe('completed');

    // A second POST, had one been sent, would reach the seller up to HOLD_MS later.
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS + 500));
    const [supplierOrder] = await supplierOrdersOf(server, orderId);
    const posts = seller.exchanges.filter(
      (exchange) => exchange.method === 'POST' && exchange.path.endsWith('/productOrder'),
    );
    expect(
      posts.map((exchange) => [(exchange.requestBody as { externalId: string }).externalId, exchange.status]),
    ).toEqual([[supplierOrder?.id, 201]]);
    expect(supplierOrder?.sellerOrderId).toBe((posts[0]?.responseBody as { id?: string } | undefined)?.id);
    const lookups = seller.exchanges.filter(
      (exchange) => exchange.method === 'GET' && exchange.query.externalId === supplierOrder?.id,
    );
    expect(lookups.length).toBeGreaterThan(0);
  });
});
