import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { registerSonata } from '../gathering/sonata-gateway.js';
import { buyerContact, sellerSettings } from '../gathering/sources/mef-sonata/fixtures.js';
import { type Json, startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import {
  expectValidOrderExchanges,
  orderWhen,
  sonataQuote,
  supplierLinesEnded,
  supplierOrdersOf,
} from './sonata-orders-fixtures.js';

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
  let seller: SonataSeller;
  let server: TestServer;
  let admin: TestTenant;
  const sources: Record<string, string> = {};

  beforeAll(async () => {
    seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
    server = await startTestServer();
    admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
    sources.kpn = await registerSonata(
      admin,
      'kpn-wba',
      'KPN',
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant'),
    );
    sources.eurofiber = await registerSonata(
      admin,
      'eurofiber',
      'Eurofiber',
      sellerSettings(seller, 'eurofiber', 'instant', 'instant', { buyerContact: eurofiberContact }),
    );
  });
  afterAll(async () => {
    await server?.close();
    await seller?.stop();
  });

  /**
   * The contacts each seller received in the order's productOrder, by source id: the order's and each
   * item's `relatedContactInformation`. Waits for the order's supplier lines to end first.
   */
  async function receivedContacts(orderId: string): Promise<Record<string, Json>> {
    await orderWhen(admin, orderId, supplierLinesEnded);
    const received: Record<string, Json> = {};
    for (const supplierOrder of await supplierOrdersOf(server, orderId)) {
      const posts = seller.exchanges.filter(
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
    expectValidOrderExchanges(seller, validator);
    return received;
  }

  it('when POST /orders names a contact, then each seller receives it in every buyer role of the order and its items, instead of its source’s buyer contact', async () => {
    const quote = await sonataQuote(admin, ['KPN', 'Eurofiber']);
    const contact = {
      name: 'Acme site manager',
      email_address: 'site@acme.example',
      number: '+31 6 1234 5678',
    };
    const placed = await admin.api.post('/orders', { quote_id: quote.id, contact });
    expect(placed.status).toBe(201);

    const given = contactsOf({
      name: contact.name,
      emailAddress: contact.email_address,
      number: contact.number,
    });
    expect(await receivedContacts(placed.body.data.id)).toEqual({
      [sources.kpn as string]: given,
      [sources.eurofiber as string]: given,
    });
  });

  it('when placeOrder names a contact without a number, then each seller receives it in every role, with its own source’s buyer contact number', async () => {
    const quote = await sonataQuote(admin, ['KPN', 'Eurofiber']);
    const result = await admin.api.graphql(PLACE_ORDER, {
      input: { quoteId: quote.id, contact: { name: 'Acme NOC', emailAddress: 'noc@acme.example' } },
    });
    expect(result.errors).toBeUndefined();

    const person = { name: 'Acme NOC', emailAddress: 'noc@acme.example' };
    expect(await receivedContacts(result.data.placeOrder.order.id)).toEqual({
      [sources.kpn as string]: contactsOf({ ...person, number: buyerContact.number }),
      [sources.eurofiber as string]: contactsOf({ ...person, number: eurofiberContact.number }),
    });
  });

  it('when the order names no contact, then each seller receives its own source’s buyer contact in every role', async () => {
    const quote = await sonataQuote(admin, ['KPN', 'Eurofiber']);
    const placed = await admin.api.post('/orders', { quote_id: quote.id });
    expect(placed.status).toBe(201);

    expect(await receivedContacts(placed.body.data.id)).toEqual({
      [sources.kpn as string]: contactsOf(buyerContact),
      [sources.eurofiber as string]: contactsOf(eurofiberContact),
    });
  });
});
