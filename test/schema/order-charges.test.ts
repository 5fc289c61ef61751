import { beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/app.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import { answersTo, sellerCharge } from '../ordering/sonata-charges-fixtures.js';
import { expectValidOrderExchanges, orderWhen, sonataQuote } from '../ordering/sonata-orders-fixtures.js';
import { sonataWorld } from '../ordering/sonata-world.js';

/*
 * Issue 35, items 4 and 7: `respondToCharge` over GraphQL, against a simulated seller that holds the item
 * for a blocking construction charge (`order=hold-charge`), as test/ordering/sonata-charges.test.ts does
 * over REST: the seller gets `PATCH /charge/{id}` with every item's `acceptanceIndicator`, and the payload's
 * order shows the charge as the seller answered.
 */

const PLACE = `mutation ($input: PlaceOrderInput!) {
  placeOrder(input: $input) { order { id lines { id fulfilment status } } }
}`;
const RESPOND = `mutation ($input: RespondToChargeInput!) { respondToCharge(input: $input) { order {
  id lines { id status supplierStatus charges {
    id state responseDueDate items { id priceType priceCategory amount currency blocking state }
  } }
} } }`;

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

describe('respondToCharge over GraphQL', () => {
  const world = sonataWorld([
    {
      key: 'kpn-wba',
      network: 'KPN',
      mode: 'instant',
      interaction: 'instant',
      fields: { query: { order: 'hold-charge', charge_due_ms: '600000' } },
    },
  ]);

  /** Places an order of a KPN product and a router over GraphQL; the REST order once the seller charged. */
  const heldOrder = async (): Promise<Json> => {
    const quote = await sonataQuote(world.admin, ['KPN']);
    const placed = await world.admin.api.graphql(PLACE, { input: { quoteId: quote.id } });
    expect(placed.errors).toBeUndefined();
    const order = placed.data.placeOrder.order;
    expect(order.lines.map((line: Json) => line.fulfilment)).toEqual(['SUPPLIER', 'MANUAL']);
    return orderWhen(world.admin, order.id, (read) => (read.lines[0]?.charges ?? []).length > 0);
  };

  for (const [accept, indicator, itemState] of [
    [true, 'accepted', 'acceptedByBuyer'],
    [false, 'rejected', 'declinedByBuyer'],
  ] as const) {
    it(`when a held line's charge is ${accept ? 'accepted' : 'declined'}, then the seller gets every item ${indicator} and the charge shows it`, async () => {
      const held = await heldOrder();
      const [line] = held.lines;
      const [charge] = line.charges;
      expect([line.status, line.supplier_status, charge.state]).toEqual([
        'in_progress',
        'held',
        'awaitingResponse',
      ]);

      const answered = await world.admin.api.graphql(RESPOND, {
        input: { orderId: held.id, lineId: line.id, chargeId: charge.id, accept },
      });

      expect(answered.errors).toBeUndefined();
      const order = answered.data.respondToCharge.order;
      expect(order.id).toBe(held.id);
      expect(order.lines[0].id).toBe(line.id);
      expect(order.lines[0].charges).toEqual([
        {
          id: charge.id,
          state: 'completed',
          // The seller's due date as a DateTime (UTC, to the millisecond).
          responseDueDate: new Date(sellerCharge(world.seller, charge.id).responseDueDate).toISOString(),
          items: [
            {
              id: charge.items[0].id,
              priceType: 'nonRecurring',
              priceCategory: 'construction',
              amount: 750,
              currency: 'EUR',
              blocking: true,
              state: itemState,
            },
          ],
        },
      ]);
      expect(answersTo(world.seller, charge.id)).toEqual([
        [200, { chargeItem: [{ id: charge.items[0].id, acceptanceIndicator: indicator }] }],
      ]);
      const read = await world.admin.api.get(`/orders/${held.id}`);
      expect(read.body.data.lines[0].charges[0]).toEqual({
        ...charge,
        state: 'completed',
        items: [{ ...charge.items[0], state: itemState }],
      });
      expectValidOrderExchanges(world.seller, validator);
    });
  }
});
