import getPort from 'get-port';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { ORDER_HUB_QUERY } from '../../src/ordering/mef-sonata/order-events.js';
import type { Json } from '../helpers/app.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import {
  expectValidOrderExchanges,
  orderCalls,
  orderWhen,
  sonataQuote,
  supplierLinesEnded,
} from './sonata-orders-fixtures.js';
import { sonataWorld } from './sonata-world.js';

/*
 * Issue 35, "followed to completed … by notifications": a quote with products of two Sonata sellers that
 * both follow their orders through the seller's hub (the `notify` sellers answer 429 to a read no event
 * announced) and a router (a manual line), ordered once. Each seller gets one productOrder; the gateway reads
 * each order only after that seller's events, completes each supplier line with the delivered product of the
 * seller's inventory, and the order ends `completed` once an admin moved the router by API. Every exchange
 * and notification is checked against the MEF documents.
 */

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

/** The sellers of the quote, in the quote's line order. */
const sellers = [
  { key: 'eurofiber', network: 'Eurofiber' },
  { key: 'kpn-wba', network: 'KPN' },
] as const;

const exchangesOf = (seller: SonataSeller, key: string) =>
  seller.exchanges.filter((exchange) => exchange.path.startsWith(`/sonata/${key}/`));

/** A date-time as the seconds since the epoch: the gateway shows the seller's dates to the second. */
const secondOf = (text: string | null | undefined) =>
  text === null || text === undefined ? null : Math.floor(Date.parse(text) / 1000);

/** A line with its dates as seconds, so that it compares with what the seller said whatever the notation. */
const withSeconds = (line: Json) => ({
  ...line,
  expected_completion_date: secondOf(line.expected_completion_date),
  completion_date: secondOf(line.completion_date),
  milestones: line.milestones.map((milestone: Json) => ({ ...milestone, date: secondOf(milestone.date) })),
});

describe('an order at two notifying sellers and a manual line, followed to completed', () => {
  const world = sonataWorld(
    sellers.map(({ key, network }) => ({ key, network, mode: 'notify', interaction: 'notifications' })),
    async () => {
      const port = await getPort({ host: '127.0.0.1' });
      return { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` };
    },
  );

  it('when the quote is ordered once, then each seller gets one productOrder, every supplier line completes with its inventory product through the sellers’ events, and the order completes once the router is moved', async () => {
    const quote = await sonataQuote(
      world.admin,
      sellers.map(({ network }) => network),
    );
    const placed = (await world.admin.api.post('/orders', { quote_id: quote.id })).body.data;
    expect(placed.lines.map((line: Json) => [line.fulfilment, line.status])).toEqual([
      ['supplier', 'pending'],
      ['supplier', 'pending'],
      ['manual', 'pending'],
    ]);
    const followed = await orderWhen(world.admin, placed.id, supplierLinesEnded);
    expect(followed.status).toBe('in_progress');
    const router = placed.lines[2];
    const moved = await world.admin.api.request('PATCH', `/orders/${placed.id}/lines/${router.id}`, {
      body: { status: 'completed', note: 'Router shipped' },
    });
    expect(moved.status).toBe(200);
    const final = (await world.admin.api.get(`/orders/${placed.id}`)).body.data;
    await world.seller.settled();

    // Each seller: its order listener registered once, one productOrder, reads only after its events.
    const sellerLines: Json[] = [];
    for (const [index, { key, network }] of sellers.entries()) {
      const exchanges = exchangesOf(world.seller, key);
      const hubs = exchanges.filter(
        (exchange) =>
          exchange.method === 'POST' && exchange.path.endsWith('/productOrderingManagement/v10/hub'),
      );
      expect(hubs.map((exchange) => (exchange.requestBody as Json).query)).toEqual([ORDER_HUB_QUERY]);
      const posts = exchanges.filter(
        (exchange) => exchange.method === 'POST' && exchange.path.endsWith('/productOrder'),
      );
      expect(posts.map((exchange) => exchange.status)).toEqual([201]);
      const [post] = posts as [Json];
      const sellerOrder = post.responseBody;
      expect(post.requestBody.productOrderItem.map((item: Json) => item.id)).toEqual([
        placed.lines[index].id,
      ]);
      const reads = exchanges.filter(
        (exchange) => exchange.method === 'GET' && exchange.path.endsWith(`/productOrder/${sellerOrder.id}`),
      );
      const events = world.seller.notifications.filter(
        (notification) =>
          notification.url.includes(`/sonata-callbacks/${world.sourceIds[key]}/`) &&
          notification.url.includes('/productOrderingNotification/v10/listener/'),
      );
      expect(events.length).toBeGreaterThan(0);
      expect([...new Set(events.map((event) => event.status))]).toEqual([204]);
      expect(
        events.every((event) => (event.body as Json).event.id === sellerOrder.id),
        `${key}: events of its one order`,
      ).toBe(true);
      // The notify seller throttles (429) a read no event announced. The gateway reads after events only, so
      // its answered reads are no more than the events; a read that follows a step an event hurried may find
      // that event already read (429 on a loaded machine), which the gateway waits out for the next event.
      const answered = reads.filter((exchange) => exchange.status === 200);
      expect(reads.filter((exchange) => ![200, 429].includes(exchange.status))).toEqual([]);
      expect(answered.length).toBeGreaterThan(0);
      expect(answered.length).toBeLessThanOrEqual(events.length);
      expect(orderCalls(world.seller, key).filter((call) => call.startsWith('POST'))).toEqual([
        'POST /hub 201',
        'POST /productOrder 201',
      ]);

      const lastRead = answered.at(-1) as Json;
      const item = lastRead.responseBody.productOrderItem[0];
      expect(item.state).toBe('completed');
      const productReads = exchanges.filter(
        (exchange) => exchange.method === 'GET' && exchange.path.includes('/productInventory/'),
      );
      expect(productReads.map((exchange) => [exchange.status, exchange.path.split('/').at(-1)])).toEqual([
        [200, item.product.id],
      ]);
      const product = productReads[0]?.responseBody as Json;
      sellerLines.push({
        id: placed.lines[index].id,
        quote_line_id: quote.products[index].id,
        name: quote.products[index].name,
        source: {
          id: world.sourceIds[key],
          name: `${network} via Sonata`,
          type: 'mef-sonata',
          _document_type: 'source',
        },
        fulfilment: 'supplier',
        status: 'completed',
        supplier_status: 'completed',
        supplier_order_id: sellerOrder.id,
        supplier_item_id: placed.lines[index].id,
        expected_completion_date: secondOf(item.expectedCompletionDate),
        completion_date: secondOf(item.completionDate),
        inventory_product_id: product.id,
        inventory_product_status: product.status,
        milestones: (item.milestone as Json[]).map((milestone) => ({
          name: milestone.name,
          date: secondOf(milestone.date),
          description: milestone.note,
        })),
        charges: [],
        price_change: null,
        cancellation: null,
        error: null,
        notice: null,
        note: null,
        status_changed_at: null,
        status_changed_by_user_id: null,
        _document_type: 'order_line',
      });
    }
    expect(sellerLines.map((line) => [line.inventory_product_status, line.milestones.length])).toEqual([
      ['active', 1],
      ['active', 1],
    ]);

    const movedRouter = moved.body.data.lines[2];
    expect(movedRouter).toEqual({
      ...router,
      status: 'completed',
      completion_date: movedRouter.status_changed_at,
      note: 'Router shipped',
      status_changed_at: expect.stringMatching(/^\d{4}-.*\+00:00$/),
      status_changed_by_user_id: expect.stringMatching(/^usr_/),
    });
    expect({ ...final, lines: final.lines.map(withSeconds) }).toEqual({
      id: placed.id,
      quote_id: quote.id,
      customer: { id: quote.customer.id, name: 'Acme Logistics B.V.', _document_type: 'customer' },
      status: 'completed',
      lines: [...sellerLines, withSeconds(movedRouter)],
      requested_completion_date: placed.requested_completion_date,
      cancellation: null,
      cancellation_charges: [],
      created_at: placed.created_at,
      updated_at: moved.body.data.updated_at,
      _document_type: 'order',
    });
    expectValidOrderExchanges(world.seller, validator);
  });
});
