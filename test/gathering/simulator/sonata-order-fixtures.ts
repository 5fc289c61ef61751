import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import {
  type SonataSeller,
  type SonataSellerMode,
  startSonataSeller,
} from '../../../src/gathering/simulator/sonata/server.js';
import {
  SONATA_API_PATHS,
  type SonataApi,
  type SonataValidator,
  sonataApiOf,
  sonataValidator,
} from '../../helpers/sonata-openapi.js';

/*
 * What the Product Order tests of a Sonata seller share (sonata-order*.test.ts): a seller per test (steps of
 * `STEP_MS`) and a listener that records what it receives; after each test every exchange, in both
 * directions, and every notification checked against the MEF documents. Orders name a quote, so
 * `quotedOrder` first runs an instant POQ and an instant Quote for Colt FIBER DIA 100/100 Mbit/s at
 * Lijnbaansgracht 206 H.
 */

// biome-ignore lint/suspicious/noExplicitAny: answers are validated against the MEF documents (afterEach); tests read them along those schemas.
export type Json = any;

/** Milliseconds between the seller's deferred steps. */
export const STEP_MS = 40;
/** The callback path of the test listener. */
export const LISTENER_PATH = '/sonata-events/s3cret';

/** Colt FIBER DIA 100/100 Mbit/s at Lijnbaansgracht 206 H (docs/mef-sonata-mapping.md §2–§3), as a POQ, Quote or order item names it. */
export const PRODUCT = {
  productOffering: { id: 'basic-internet-access-fiber-dia' },
  productConfiguration: {
    '@type': 'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all',
    ipvc: { ipvcEndPoint: {} },
    ipUni: {},
    ipUniAccessLinkTrunk: {},
    ipUniAccessLink: {
      egressBwpEnvelope: [
        { maxIr: { irValue: 100, irUnits: 'MBPS' }, cir: { irValue: 100, irUnits: 'MBPS' } },
      ],
      ingressBwpEnvelope: [
        { maxIr: { irValue: 100, irUnits: 'MBPS' }, cir: { irValue: 100, irUnits: 'MBPS' } },
      ],
    },
  },
  place: [
    {
      '@type': 'FieldedAddress',
      role: 'INSTALL_LOCATION',
      streetName: 'Lijnbaansgracht',
      streetNr: '206',
      postcode: '1016XA',
      city: 'Amsterdam',
      country: 'NL',
    },
  ],
};
const person = (role: string, name: string) => ({
  role,
  name,
  emailAddress: `${name.toLowerCase()}@buyer.example`,
  number: '+31 20 1',
});
export const TERM = {
  duration: { amount: 36, units: 'calendarMonths' },
  endOfTermAction: 'autoRenew',
  name: '36 months',
};

/** An order item for a quote item (MEF 123 R14, R30–R35). */
export const orderItem = (id: string, quoteId: string, quoteItemId = '1') => ({
  id,
  action: 'add',
  product: PRODUCT,
  quoteItem: { id: quoteItemId, quoteId },
  billingAccount: { id: 'ba-001' },
  requestedItemTerm: TERM,
  requestedCompletionDate: '2030-01-15T09:00:00.000Z',
  relatedContactInformation: [
    person('buyerProductOrderItemContact', 'Item'),
    person('buyerImplementationContact', 'Implementation'),
    person('buyerTechnicalContact', 'Technical'),
  ],
});

/** A `ProductOrder_Create` with one item per quote item id. */
export const orderBody = (quoteId: string, itemIds = ['1'], externalId = 'PO-2030-001') => ({
  externalId,
  projectId: 'amsterdam-offices',
  relatedContactInformation: [person('productOrderContact', 'Orders')],
  productOrderItem: itemIds.map((itemId) => orderItem(itemId, quoteId, itemId)),
});

/**
 * Registers the hooks of a file of these tests: one validator per file; per test a fresh seller (steps of
 * `stepMs`, default {@link STEP_MS}) and a listener; after each test every exchange and notification
 * validated, then both stopped.
 */
export function orderSellerPerTest(mode: SonataSellerMode = 'instant', stepMs = STEP_MS) {
  let validator: SonataValidator;
  let seller: SonataSeller;
  let listener: Server;
  const received: { path: string; body: Json }[] = [];
  beforeAll(async () => {
    validator = await sonataValidator();
  });
  beforeEach(async () => {
    seller = await startSonataSeller({ behaviour: { stepMs } });
    received.length = 0;
    listener = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    await seller.settled();
    for (const exchange of seller.exchanges) {
      const api = sonataApiOf(exchange.path) as SonataApi;
      const problems = validator.request(api, {
        method: exchange.method,
        path: exchange.path,
        body: exchange.requestBody,
      });
      // A body the seller refused as invalid must break the document too; everything else must follow it.
      // Except what no schema can say, refused `400 invalidBody` as these operations list no `422`: a Charge
      // answer that misses or repeats charge items (MEF 123 R94, R95), a listener query of unknown events.
      const semantic =
        (exchange.method === 'PATCH' && exchange.path.includes('/charge/')) || exchange.path.endsWith('/hub');
      if ((exchange.responseBody as Json)?.code !== 'invalidBody') expect(problems).toEqual([]);
      else if (!semantic) expect(problems).not.toEqual([]);
      expect(validator.response(api, { ...exchange, body: exchange.responseBody })).toEqual([]);
    }
    for (const sent of seller.notifications) {
      const path = new URL(sent.url).pathname;
      expect(validator.notification(sonataApiOf(path) as SonataApi, { path, body: sent.body })).toEqual([]);
    }
    await seller.stop();
    listener.closeAllConnections();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  const listenerUrl = () => `http://127.0.0.1:${(listener.address() as AddressInfo).port}${LISTENER_PATH}`;

  async function call(
    api: SonataApi,
    method: string,
    path: string,
    body?: unknown,
    query: Record<string, string> = {},
  ): Promise<{ status: number; headers: Headers; body: Json }> {
    const token = await fetch(seller.tokenUrl('colt'), {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${seller.credentials.clientId}:${seller.credentials.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    }).then((response) => response.json() as Promise<{ access_token: string }>);
    const [pathname = '', search = ''] = path.split('?');
    const url = new URL(seller.baseUrl('colt', mode, query));
    url.pathname += `${SONATA_API_PATHS[api]}${pathname}`;
    for (const [name, value] of new URLSearchParams(search)) url.searchParams.set(name, value);
    const response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token.access_token}`,
        'content-type': 'application/json;charset=utf-8',
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  }

  /** An instant POQ and an instant firm Quote for `items` items: the quote's id, its items orderable. */
  async function quote(items = 1): Promise<string> {
    const ids = Array.from({ length: items }, (_, index) => String(index + 1));
    const contact = [person('buyerContactInformation', 'Desk')];
    const poq = await call('poq', 'POST', '/productOfferingQualification', {
      instantSyncQualification: true,
      relatedContactInformation: contact,
      productOfferingQualificationItem: ids.map((id) => ({ id, action: 'add', product: PRODUCT })),
    });
    expect(poq.body.state).toBe('done.ready');
    const quoted = await call('quote', 'POST', '/quote', {
      instantSyncQuote: true,
      buyerRequestedQuoteLevel: 'firm',
      relatedContactInformation: contact,
      quoteItem: ids.map((id) => ({
        id,
        action: 'add',
        product: PRODUCT,
        requestedQuoteItemTerm: TERM,
        productOfferingQualificationItem: { id, productOfferingQualificationId: poq.body.id },
      })),
    });
    expect(quoted.body.state).toBe('approved.orderable');
    return quoted.body.id;
  }

  /** Polls `GET /productOrder/{id}` until the order is in one of `states`; returns it. */
  async function orderIn(id: string, states: string[], query: Record<string, string> = {}): Promise<Json> {
    let order: Json;
    await vi.waitFor(
      async () => {
        order = (await call('order', 'GET', `/productOrder/${id}`, undefined, query)).body;
        expect(states).toContain(order.state);
      },
      { timeout: 5_000, interval: 10 },
    );
    return order;
  }

  return {
    call,
    quote,
    orderIn,
    listenerUrl,
    received,
    seller: () => seller,
  };
}

/** `from + ms` as an ISO 8601 date-time. */
export const plus = (from: string, ms: number) => new Date(Date.parse(from) + ms).toISOString();
