import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { registerSonata } from '../gathering/sonata-gateway.js';
import { sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { orderWhen, sonataQuote, supplierLinesEnded, supplierOrdersOf } from './sonata-orders-fixtures.js';

/*
 * Exactly once with a seller slower than the source's timeout: its gateway takes the order, our POST times
 * out, and the seller records the order only later. The gateway must look the order up (by `externalId`)
 * until it appears, not send it again.
 */

/** How long the proxy holds each `POST /productOrder` before the seller sees it (ms). */
const HOLD_MS = 1_500;

/** A proxy in front of the simulator that holds order POSTs, and passes them on even when the caller gave up. */
async function holdingProxy(target: string): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
    if (req.method === 'POST' && req.url?.split('?')[0]?.endsWith('/productOrder')) {
      await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        ([name]) => !['host', 'connection', 'content-length'].includes(name),
      ),
    ) as Record<string, string>;
    const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
    const text = await answer.text();
    if (res.destroyed) return;
    res.writeHead(answer.status, {
      'content-type': answer.headers.get('content-type') ?? 'application/json',
    });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('an order placed at a seller slower than the source’s timeout', () => {
  let seller: SonataSeller;
  let proxy: { url: string; server: Server };
  let server: TestServer;
  let admin: TestTenant;

  beforeAll(async () => {
    seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
    proxy = await holdingProxy(seller.url);
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
    await new Promise((resolve) => proxy?.server.close(resolve));
    await seller?.stop();
  });

  it('when the POST times out and the seller records the order later, then it is looked up until found and created once', async () => {
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
