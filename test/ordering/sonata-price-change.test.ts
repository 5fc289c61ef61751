import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { registerSonata } from '../gathering/sonata-gateway.js';
import { sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import {
  expectValidOrderExchanges,
  orderWhen,
  sonataQuote,
  supplierLinesEnded,
} from './sonata-orders-fixtures.js';

/*
 * Issue 36, item 2: lines whose seller quote (`validFor`) expired before the order are quoted again the way
 * the source gathers. Eurofiber's new quote costs 10 % more a month (`requote_price=changed`): its line is
 * not ordered and fails with SUPPLIER_PRICE_CHANGED, showing both prices; KPN's costs the same: its line is
 * ordered with the new quote's ids and completes.
 */

const QUOTE_VALID_MS = 1500;

let validator: SonataValidator;
let seller: SonataSeller;
let server: TestServer;
let admin: TestTenant;
beforeAll(async () => {
  validator = await sonataValidator();
  seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
  server = await startTestServer();
  admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
  const knobs = (price: string) => ({
    query: { quote_valid_ms: String(QUOTE_VALID_MS), requote_price: price },
  });
  await registerSonata(
    admin,
    'eurofiber',
    'Eurofiber',
    sellerSettings(seller, 'eurofiber', 'instant', 'instant', knobs('changed')),
  );
  await registerSonata(
    admin,
    'kpn-wba',
    'KPN',
    sellerSettings(seller, 'kpn-wba', 'instant', 'instant', knobs('same')),
  );
});
afterAll(async () => {
  await server?.close();
  await seller?.stop();
});

/** The seller's exchanges of one source key, by method and the path's end. */
const exchangesOf = (sourceKey: string, method: string, pathEnd: string) =>
  seller.exchanges.filter(
    (exchange) =>
      exchange.path.startsWith(`/sonata/${sourceKey}/`) &&
      exchange.method === method &&
      exchange.path.endsWith(pathEnd),
  );

describe('ordering lines whose seller quote has expired', () => {
  it('when one seller quotes a new price and the other the same, then only the same-priced line is ordered', async () => {
    const quote = await sonataQuote(admin, ['Eurofiber', 'KPN']);
    const [eurofiberQuote] = exchangesOf('eurofiber', 'POST', '/quote').map(
      (each) => each.responseBody as Json,
    );
    const [kpnQuote] = exchangesOf('kpn-wba', 'POST', '/quote').map((each) => each.responseBody as Json);
    // Let both seller quotes expire.
    await new Promise((resolve) => setTimeout(resolve, QUOTE_VALID_MS + 200));

    const placed = await admin.api.post('/orders', { quote_id: quote.id });
    expect(placed.status).toBe(201);
    const done = await orderWhen(admin, placed.body.data.id, supplierLinesEnded);
    const [eurofiber, kpn, router] = done.lines;

    expect(eurofiber).toMatchObject({
      status: 'failed',
      supplier_order_id: null,
      error: { code: 'SUPPLIER_PRICE_CHANGED', message: expect.stringContaining('not ordered') },
    });
    const change = eurofiber.price_change;
    expect(change.currency).toBe('EUR');
    expect(change.quoted_mrc).toBeGreaterThan(0);
    expect(change.new_mrc).toBe(Math.round(change.quoted_mrc * 110) / 100);
    expect(change.new_nrc).toBe(change.quoted_nrc);
    expect(exchangesOf('eurofiber', 'POST', '/productOrder')).toEqual([]);
    expect(exchangesOf('eurofiber', 'POST', '/quote')).toHaveLength(2);

    expect(kpn).toMatchObject({ status: 'completed', price_change: null, error: null });
    const [kpnOrder] = exchangesOf('kpn-wba', 'POST', '/productOrder');
    const kpnQuotes = exchangesOf('kpn-wba', 'POST', '/quote').map((each) => each.responseBody as Json);
    expect(kpnQuotes).toHaveLength(2);
    const item = ((kpnOrder?.requestBody ?? {}) as Json).productOrderItem?.[0];
    expect(item.quoteItem.quoteId).toBe(kpnQuotes[1]?.id);
    expect(item.quoteItem.quoteId).not.toBe(kpnQuote?.id);
    expect(eurofiberQuote?.id).toBeDefined();
    expect(router).toMatchObject({ fulfilment: 'manual', status: 'pending' });
    expect(done.status).toBe('in_progress');
    expectValidOrderExchanges(seller, validator);
  });
});
