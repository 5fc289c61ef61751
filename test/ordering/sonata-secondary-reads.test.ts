import getPort from 'get-port';
import { describe, expect, it } from 'vitest';
import type { SonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { graphqlSettings } from '../gathering/sonata-gateway.js';
import { sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import { contractExampleBatch, type Json, type TestTenant, waitFor } from '../helpers/app.js';
import { sellerCharge } from './sonata-charges-fixtures.js';
import { orderCalls, orderWhen, sonataQuote, supplierOrdersOf } from './sonata-orders-fixtures.js';
import { type SonataWorld, sonataWorld } from './sonata-world.js';

/*
 * Issue 49, items 1 and 6: a read of the seller's order is recorded whatever the calls after it do. A seller
 * that holds one item of two for a blocking charge but answers its charge list (`GET /charge`, MEF 123 CR3)
 * with 404 (the simulator's `charge_list=404`): the other item completes with its product, the held one shows
 * `held` with a notice; with notifications the charge still arrives through its `chargeCreateEvent` (read by
 * id) and can be accepted. A seller whose inventory cannot give a delivered product (`inventory=404`): the
 * item is recorded completed with a notice, the supplier order stays open, and the product arrives once the
 * inventory answers.
 */

/**
 * The knobs of a seller that holds the first item of an order for a charge and cannot list its charges; its
 * items reference only completed charges, as MEF 123 says, so the list is the only way to find the charge.
 */
const heldUnlisted = {
  order: 'hold-charge',
  hold_items: '1',
  charge_list: '404',
  item_charges: 'accepted',
  charge_due_ms: '600000',
};

/** The notice of a held item whose charge the seller does not list. */
const chargeListNotice = {
  code: 'CHARGE_LIST_UNAVAILABLE',
  message:
    'The seller holds this item for a charge that cannot be read: it answers GET /charge with 404; it is asked again.',
};

/** A quote of the first two products of `network` for a new customer. */
async function twoItemQuote(tenant: TestTenant, network: string): Promise<Json> {
  const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
  const id = created.body.data[0].id;
  const done = await waitFor(
    () => tenant.api.get(`/availability-requests/${id}`),
    (response) => response.body.data.status === 'completed',
    30_000,
  );
  const products = done.body.data.products.filter((each: Json) => each.network === network).slice(0, 2);
  expect(products, `two products of ${network}`).toHaveLength(2);
  const customer = (await tenant.api.post('/customers', { name: 'Acme Logistics B.V.' })).body.data.id;
  const quote = await tenant.api.post('/quotes', {
    name: 'Head office and branch',
    customer_id: customer,
    availability_request_product_ids: products.map((each: Json) => each.id),
  });
  expect(quote.status).toBe(201);
  return quote.body.data;
}

/** Places the quote of `world`'s admin as an order; its id. */
async function place(world: SonataWorld, quote: Json): Promise<string> {
  const placed = await world.admin.api.post('/orders', { quote_id: quote.id });
  expect(placed.status).toBe(201);
  return placed.body.data.id;
}

/** The seller's order of a source as it last showed it (`GET /productOrder/{id}`, 200). */
function sellerOrder(seller: SonataSeller, sourceKey: string): Json {
  const reads = seller.exchanges.filter(
    (exchange) =>
      exchange.path.startsWith(`/sonata/${sourceKey}/`) &&
      exchange.method === 'GET' &&
      exchange.status === 200 &&
      /\/productOrder\/[^/]+$/.test(exchange.path),
  );
  return reads.at(-1)?.responseBody;
}

describe('a seller whose charge list answers 404, polled', () => {
  const world = sonataWorld([
    {
      key: 'kpn-wba',
      network: 'KPN',
      mode: 'instant',
      interaction: 'instant',
      fields: { query: heldUnlisted },
    },
  ]);

  it('when one item is held for a charge and the other completes, then the completed line shows its product and the held one its notice, and the order is still followed', async () => {
    const orderId = await place(world, await twoItemQuote(world.admin, 'KPN'));

    const order = await orderWhen(
      world.admin,
      orderId,
      (each) => each.lines[0].notice !== null && each.lines[1].inventory_product_id !== null,
    );

    const [held, plain] = order.lines;
    const items = sellerOrder(world.seller, 'kpn-wba').productOrderItem;
    expect([held.status, held.supplier_status, held.charges, held.notice, held.error]).toEqual([
      'in_progress',
      'held',
      [],
      chargeListNotice,
      null,
    ]);
    expect(held.milestones.map((milestone: Json) => milestone.name)).toEqual(['siteSurveyCompleted']);
    expect([plain.status, plain.supplier_status, plain.inventory_product_id, plain.notice]).toEqual([
      'completed',
      'completed',
      items[1].product.id,
      null,
    ]);
    expect(order.status).toBe('in_progress');
    const [supplierOrder] = await supplierOrdersOf(world.server, orderId);
    expect([supplierOrder?.status, supplierOrder?.sellerState, supplierOrder?.errorCode]).toEqual([
      'following',
      'held.assessingCharge',
      null,
    ]);
    const calls = orderCalls(world.seller, 'kpn-wba');
    expect(calls).toContain('GET /charge 404');
    expect(calls.filter((call) => call.startsWith('GET /charge') && !call.endsWith('404'))).toEqual([]);
  });
});

describe('a seller whose charge list answers 404, with notifications', () => {
  const world = sonataWorld(
    [
      {
        key: 'eurofiber',
        network: 'Eurofiber',
        mode: 'notify',
        interaction: 'notifications',
        fields: { query: heldUnlisted },
      },
    ],
    async () => {
      const port = await getPort({ host: '127.0.0.1' });
      return { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` };
    },
  );

  it('when the seller notifies the charge, then it arrives on the held line without a notice, and accepting it lets the item complete', async () => {
    const orderId = await place(world, await twoItemQuote(world.admin, 'Eurofiber'));

    const charged = await orderWhen(world.admin, orderId, (each) => each.lines[0].charges.length > 0);

    const [held] = charged.lines;
    const [charge] = held.charges;
    const shown = sellerCharge(world.seller, charge.id);
    expect([held.supplier_status, held.notice]).toEqual(['held', null]);
    expect(charge).toEqual({
      id: shown.id,
      state: 'awaitingResponse',
      // The seller's due date, to the second, as every timestamp of the API.
      response_due_date: `${new Date(shown.responseDueDate).toISOString().slice(0, -5)}+00:00`,
      items: [
        {
          id: '1',
          price_type: 'nonRecurring',
          price_category: 'construction',
          amount: 750,
          currency: 'EUR',
          blocking: true,
          state: 'awaitingResponse',
        },
      ],
    });
    await world.seller.settled();
    const created = world.seller.notifications.filter(
      (notification) =>
        notification.url.endsWith('/listener/chargeCreateEvent') &&
        (notification.body as Json).event.id === charge.id,
    );
    expect(created.map((notification) => notification.status)).toEqual([204]);

    const accepted = await world.admin.api.post(
      `/orders/${orderId}/lines/${held.id}/charges/${charge.id}/accept`,
      undefined,
    );
    expect(accepted.status).toBe(200);
    const done = await orderWhen(world.admin, orderId, (each) =>
      each.lines.every((line: Json) => line.inventory_product_id !== null),
    );

    const items = sellerOrder(world.seller, 'eurofiber').productOrderItem;
    expect(
      done.lines.map((line: Json) => [
        line.status,
        line.supplier_status,
        line.inventory_product_id,
        line.notice,
        line.charges.map((each: Json) => [each.id, each.state]),
      ]),
    ).toEqual([
      ['completed', 'completed', items[0].product.id, null, [[charge.id, 'completed']]],
      ['completed', 'completed', items[1].product.id, null, []],
    ]);
    expect(done.status).toBe('completed');
    const [supplierOrder] = await supplierOrdersOf(world.server, orderId);
    expect([supplierOrder?.status, supplierOrder?.notifiedChargeIds]).toEqual(['ended', []]);
  });
});

describe('a seller whose inventory does not give a delivered product', () => {
  const world = sonataWorld([
    {
      key: 'kpn-wba',
      network: 'KPN',
      mode: 'instant',
      interaction: 'instant',
      fields: { query: { inventory: '404' } },
    },
  ]);

  const UPDATE = `mutation ($id: ID!, $sonata: SonataSettingsInput!) {
    updateSonataSource(id: $id, sonata: $sonata) { source { id } }
  }`;

  it('when the product cannot be read, then the line is completed with a notice and the order followed until the product is read', async () => {
    const orderId = await place(world, await sonataQuote(world.admin, ['KPN']));

    const completed = await orderWhen(world.admin, orderId, (each) => each.lines[0].notice !== null);

    const productId = sellerOrder(world.seller, 'kpn-wba').productOrderItem[0].product.id;
    const [line] = completed.lines;
    expect([line.status, line.supplier_status, line.inventory_product_id, line.notice]).toEqual([
      'completed',
      'completed',
      null,
      {
        code: 'INVENTORY_UNAVAILABLE',
        message: `The item is completed, but its product ${productId} cannot be read from the seller’s inventory: it answers GET /product/${productId} with 404; it is asked again.`,
      },
    ]);
    expect(line.completion_date).not.toBeNull();
    const [open] = await supplierOrdersOf(world.server, orderId);
    expect([open?.status, open?.sellerState, open?.errorCode]).toEqual(['following', 'completed', null]);

    // The seller's inventory answers again.
    const settings = sellerSettings(world.seller, 'kpn-wba', 'instant', 'instant');
    const updated = await world.admin.api.graphql(UPDATE, {
      id: world.sourceIds['kpn-wba'],
      sonata: graphqlSettings(settings),
    });
    expect(updated.errors).toBeUndefined();
    const read = await orderWhen(world.admin, orderId, (each) => each.lines[0].inventory_product_id !== null);

    expect([
      read.lines[0].status,
      read.lines[0].inventory_product_id,
      read.lines[0].inventory_product_status,
      read.lines[0].notice,
    ]).toEqual(['completed', productId, 'active', null]);
    const ended = await waitFor(
      () => supplierOrdersOf(world.server, orderId),
      ([supplierOrder]) => supplierOrder?.status === 'ended',
      30_000,
    );
    expect([ended[0]?.status, ended[0]?.errorCode, ended[0]?.nextCheckAt]).toEqual(['ended', null, null]);
    const productReads = orderCalls(world.seller, 'kpn-wba').filter((call) =>
      call.startsWith('GET /product/'),
    );
    expect(productReads.at(-1)).toBe('GET /product/{id} 200');
    expect(productReads.slice(0, -1).every((call) => call === 'GET /product/{id} 404')).toBe(true);
  });
});
