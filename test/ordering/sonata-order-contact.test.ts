import { beforeAll, describe, expect, it } from 'vitest';
import { buyerContact } from '../gathering/sources/mef-sonata/fixtures.js';
import type { Json } from '../helpers/app.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import {
  expectValidOrderExchanges,
  orderWhen,
  sonataQuote,
  supplierLinesEnded,
  supplierOrdersOf,
} from './sonata-orders-fixtures.js';
import { sonataWorld } from './sonata-world.js';

/*
 * Issue 35, item 3 (MEF 123 R13, R14): the order's `contact` — POST /orders `contact`, GraphQL
 * `placeOrder(input: { contact })` — is what each seller receives in every buyer role of its productOrder,
 * instead of the source's buyer contact; without one, each seller receives its own source's buyer contact.
 * What the sellers received is read from their exchanges, and checked against the MEF documents.
 */

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

/** Eurofiber's source has a buyer contact of its own; KPN's is the fixtures' `buyerContact`. */
const eurofiberContact = {
  name: 'Eurofiber desk',
  emailAddress: 'eurofiber-desk@gateway.example',
  number: '+31 30 555 0199',
};

const PLACE_ORDER = `mutation ($input: PlaceOrderInput!) {
  placeOrder(input: $input) { order { id } }
}`;

/** The contacts R13 (the order) and R14 (each item) require, all for `person`, in the gateway's role order. */
function contactsOf(person: { name: string; emailAddress: string; number: string }) {
  const withRole = (role: string) => ({ role, ...person });
  return {
    order: [withRole('productOrderContact')],
    item: ['buyerProductOrderItemContact', 'buyerImplementationContact', 'buyerTechnicalContact'].map(
      withRole,
    ),
  };
}

describe('the contact of a Sonata order', () => {
  const world = sonataWorld([
    { key: 'kpn-wba', network: 'KPN', mode: 'instant', interaction: 'instant' },
    {
      key: 'eurofiber',
      network: 'Eurofiber',
      mode: 'instant',
      interaction: 'instant',
      fields: { buyerContact: eurofiberContact },
    },
  ]);

  /**
   * The contacts each seller received in the order's productOrder, by source id: the order's and each
   * item's `relatedContactInformation`. Waits for the order's supplier lines to end first.
   */
  async function receivedContacts(orderId: string): Promise<Record<string, Json>> {
    await orderWhen(world.admin, orderId, supplierLinesEnded);
    const received: Record<string, Json> = {};
    for (const supplierOrder of await supplierOrdersOf(world.server, orderId)) {
      const posts = world.seller.exchanges.filter(
        (exchange) =>
          exchange.method === 'POST' &&
          exchange.path.endsWith('/productOrder') &&
          (exchange.requestBody as Json)?.externalId === supplierOrder.id,
      );
      expect(posts.map((exchange) => exchange.status)).toEqual([201]);
      const body = posts[0]?.requestBody as Json;
      expect(body.productOrderItem).toHaveLength(1);
      received[supplierOrder.sourceId] = {
        order: body.relatedContactInformation,
        item: body.productOrderItem[0].relatedContactInformation,
      };
    }
    expectValidOrderExchanges(world.seller, validator);
    return received;
  }

  it('when POST /orders names a contact, then each seller receives it in every buyer role of the order and its items, instead of its source’s buyer contact', async () => {
    const quote = await sonataQuote(world.admin, ['KPN', 'Eurofiber']);
    const contact = {
      name: 'Acme site manager',
      email_address: 'site@acme.example',
      number: '+31 6 1234 5678',
    };
    const placed = await world.admin.api.post('/orders', { quote_id: quote.id, contact });
    expect(placed.status).toBe(201);

    const given = contactsOf({
      name: contact.name,
      emailAddress: contact.email_address,
      number: contact.number,
    });
    expect(await receivedContacts(placed.body.data.id)).toEqual({
      [world.sourceIds['kpn-wba'] as string]: given,
      [world.sourceIds.eurofiber as string]: given,
    });
  });

  it('when placeOrder names a contact without a number, then each seller receives it in every role, with its own source’s buyer contact number', async () => {
    const quote = await sonataQuote(world.admin, ['KPN', 'Eurofiber']);
    const result = await world.admin.api.graphql(PLACE_ORDER, {
      input: { quoteId: quote.id, contact: { name: 'Acme NOC', emailAddress: 'noc@acme.example' } },
    });
    expect(result.errors).toBeUndefined();

    const person = { name: 'Acme NOC', emailAddress: 'noc@acme.example' };
    expect(await receivedContacts(result.data.placeOrder.order.id)).toEqual({
      [world.sourceIds['kpn-wba'] as string]: contactsOf({ ...person, number: buyerContact.number }),
      [world.sourceIds.eurofiber as string]: contactsOf({ ...person, number: eurofiberContact.number }),
    });
  });

  it('when the order names no contact, then each seller receives its own source’s buyer contact in every role', async () => {
    const quote = await sonataQuote(world.admin, ['KPN', 'Eurofiber']);
    const placed = await world.admin.api.post('/orders', { quote_id: quote.id });
    expect(placed.status).toBe(201);

    expect(await receivedContacts(placed.body.data.id)).toEqual({
      [world.sourceIds['kpn-wba'] as string]: contactsOf(buyerContact),
      [world.sourceIds.eurofiber as string]: contactsOf(eurofiberContact),
    });
  });
});
