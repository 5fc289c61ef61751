import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import {
  type SonataSeller,
  type SonataSellerMode,
  startSonataSeller,
} from '../../../src/gathering/simulator/sonata/server.js';
import {
  SONATA_API_PATHS,
  type SonataApi,
  type SonataValidator,
  sonataValidator,
} from '../../helpers/sonata-openapi.js';
import { PRODUCT } from './sonata-order-fixtures.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are validated against the MEF documents (afterEach); tests read them along those schemas.
type Json = any;

const API_PATHS = SONATA_API_PATHS;
const contact = [
  { role: 'buyerContactInformation', name: 'Desk', emailAddress: 'desk@buyer.example', number: '+31 20 1' },
];
const deadline = (ms: number) => new Date(Date.now() + ms).toISOString();
const poqBody = (instant: boolean, completionInMs = 60_000) => ({
  instantSyncQualification: instant,
  ...(instant ? {} : { requestedPOQCompletionDate: deadline(completionInMs) }),
  relatedContactInformation: contact,
  productOfferingQualificationItem: [{ id: '1', action: 'add', product: PRODUCT }],
});
const quoteBody = (instant: boolean, completionInMs = 60_000) => ({
  instantSyncQuote: instant,
  buyerRequestedQuoteLevel: 'firm',
  ...(instant ? {} : { requestedQuoteCompletionDate: deadline(completionInMs) }),
  relatedContactInformation: contact,
  quoteItem: [
    {
      id: '1',
      action: 'add',
      product: PRODUCT,
      requestedQuoteItemTerm: {
        duration: { amount: 36, units: 'calendarMonths' },
        endOfTermAction: 'autoRenew',
        name: '36 months',
      },
    },
  ],
});

let validator: SonataValidator;
let seller: SonataSeller;
let listener: Server;
let listenerUrl: string;
const received: { path: string; body: Json }[] = [];
beforeAll(async () => {
  validator = await sonataValidator();
});
beforeEach(async () => {
  seller = await startSonataSeller({ behaviour: { stepMs: 25 } });
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
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/sonata-events/s3cret`;
});
afterEach(async () => {
  await seller.settled();
  for (const exchange of seller.exchanges) {
    const api: SonataApi = exchange.path.includes(API_PATHS.quote) ? 'quote' : 'poq';
    expect(
      validator.request(api, { method: exchange.method, path: exchange.path, body: exchange.requestBody }),
    ).toEqual([]);
    expect(validator.response(api, { ...exchange, body: exchange.responseBody })).toEqual([]);
  }
  for (const sent of seller.notifications) {
    const api: SonataApi = sent.url.includes('quoteNotification') ? 'quote' : 'poq';
    expect(validator.notification(api, { path: new URL(sent.url).pathname, body: sent.body })).toEqual([]);
  }
  await seller.stop();
  listener.closeAllConnections();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

async function call(
  mode: SonataSellerMode,
  api: SonataApi,
  method: string,
  path: string,
  body?: unknown,
  query: Record<string, string> = {},
) {
  const token = await fetch(seller.tokenUrl('colt'), {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${seller.credentials.clientId}:${seller.credentials.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  }).then((response) => response.json() as Promise<{ access_token: string }>);
  const url = new URL(seller.baseUrl('colt', mode, query));
  url.pathname += `${API_PATHS[api]}${path}`;
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token.access_token}`,
      'content-type': 'application/json;charset=utf-8',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: (text ? JSON.parse(text) : undefined) as Json,
  };
}

/** Polls until the resource leaves the states in `passing`, collecting the distinct states seen. */
async function pollStates(
  mode: SonataSellerMode,
  api: SonataApi,
  path: string,
  final: string[],
): Promise<string[]> {
  const seen: string[] = [];
  await vi.waitFor(
    async () => {
      const { body } = await call(mode, api, 'GET', path);
      if (seen.at(-1) !== body.state) seen.push(body.state);
      expect(final).toContain(body.state);
    },
    { timeout: 5_000, interval: 5 },
  );
  return seen;
}

describe('a deferred Sonata seller', () => {
  test('when a POQ and a Quote are asked deferred, then they step acknowledged → inProgress → done while polled', async () => {
    const poq = await call('deferred', 'poq', 'POST', '/productOfferingQualification', poqBody(false));
    expect([poq.status, poq.body.state, poq.body.productOfferingQualificationItem[0].state]).toEqual([
      201,
      'acknowledged',
      'acknowledged',
    ]);
    expect(poq.body).toHaveProperty('expectedPOQCompletionDate');
    const poqStates = await pollStates('deferred', 'poq', `/productOfferingQualification/${poq.body.id}`, [
      'done.ready',
    ]);
    expect(poqStates.at(-1)).toBe('done.ready');
    expect(['acknowledged', 'inProgress', 'done.ready']).toEqual(expect.arrayContaining(poqStates));
    const done = await call('deferred', 'poq', 'GET', `/productOfferingQualification/${poq.body.id}`);
    expect(done.body.stateChange.map((change: Json) => change.state)).toEqual([
      'acknowledged',
      'inProgress',
      'done.ready',
    ]);
    expect(done.body.productOfferingQualificationItem[0]).toMatchObject({
      state: 'done.ready',
      serviceabilityConfidence: 'green',
      installationInterval: { amount: 45, units: 'calendarDays' },
    });

    const quote = await call('deferred', 'quote', 'POST', '/quote', quoteBody(false));
    expect([quote.status, quote.body.state]).toEqual([201, 'acknowledged']);
    await pollStates('deferred', 'quote', `/quote/${quote.body.id}`, ['approved.orderable']);
    const priced = await call('deferred', 'quote', 'GET', `/quote/${quote.body.id}`);
    expect(
      priced.body.quoteItem[0].quoteItemPrice.map((price: Json) => [
        price.priceType,
        price.price.dutyFreeAmount.value,
      ]),
    ).toEqual([
      ['recurring', 469.95],
      ['nonRecurring', 1005],
    ]);
    expect(priced.body.quoteItem[0].quoteItemTerm).toEqual([
      { duration: { amount: 36, units: 'calendarMonths' }, endOfTermAction: 'autoRenew', name: '36 months' },
    ]);
  });

  test('when an instant answer is asked of a deferred seller, then the POQ is refused with 422 and the Quote ends unableToProvide', async () => {
    const poq = await call('deferred', 'poq', 'POST', '/productOfferingQualification', poqBody(true));
    expect([poq.status, poq.body]).toEqual([
      422,
      [
        {
          code: 'invalidValue',
          propertyPath: '/instantSyncQualification',
          reason: 'This seller answers deferred only: send instantSyncQualification false.',
        },
      ],
    ]);
    const quote = await call('deferred', 'quote', 'POST', '/quote', quoteBody(true));
    expect([quote.status, quote.body.state, quote.body.quoteItem[0].terminationError]).toEqual([
      201,
      'unableToProvide',
      [
        {
          code: 'otherIssue',
          propertyPath: '/instantSyncQuote',
          value: 'This seller answers deferred only: send instantSyncQuote false.',
        },
      ],
    ]);
  });

  test('when the requested completion date passes, or the outcome knob says so, then the POQ ends done.unableToProvide', async () => {
    const late = await call('deferred', 'poq', 'POST', '/productOfferingQualification', poqBody(false, 1));
    await pollStates('deferred', 'poq', `/productOfferingQualification/${late.body.id}`, [
      'done.unableToProvide',
    ]);
    const abandoned = await call('deferred', 'poq', 'GET', `/productOfferingQualification/${late.body.id}`);
    expect(abandoned.body.productOfferingQualificationItem[0].state).toBe('done.abandoned');

    const knob = { outcome: 'unableToProvide' };
    const forced = await call(
      'deferred',
      'poq',
      'POST',
      '/productOfferingQualification',
      poqBody(false),
      knob,
    );
    await vi.waitFor(async () =>
      expect(
        (
          await call(
            'deferred',
            'poq',
            'GET',
            `/productOfferingQualification/${forced.body.id}`,
            undefined,
            knob,
          )
        ).body.state,
      ).toBe('done.unableToProvide'),
    );
    const quote = await call('deferred', 'quote', 'POST', '/quote', quoteBody(false), knob);
    await vi.waitFor(async () =>
      expect(
        (await call('deferred', 'quote', 'GET', `/quote/${quote.body.id}`, undefined, knob)).body.state,
      ).toBe('unableToProvide'),
    );
  });
});

/** A seller whose deferred steps are slow enough that calls made right after a create all see `acknowledged`. */
async function slowSteps() {
  await seller.stop();
  seller = await startSonataSeller({ behaviour: { stepMs: 400 } });
}

describe('a notifying Sonata seller', () => {
  test('when the buyer registers a listener, then state changes are POSTed to it, polling is throttled, and deleting the listener ends both', async () => {
    await slowSteps();
    const hub = await call('notify', 'poq', 'POST', '/hub', {
      callback: listenerUrl,
      query: 'eventType = poqCreateEvent,poqStateChangeEvent',
    });
    expect([hub.status, hub.body.callback, hub.body.query]).toEqual([
      201,
      listenerUrl,
      'eventType = poqCreateEvent,poqStateChangeEvent',
    ]);
    const poq = await call('notify', 'poq', 'POST', '/productOfferingQualification', poqBody(false));
    const path = `/productOfferingQualification/${poq.body.id}`;
    expect((await call('notify', 'poq', 'GET', path)).status).toBe(200); // after the poqCreateEvent
    const throttled = await call('notify', 'poq', 'GET', path);
    expect([throttled.status, throttled.headers.get('retry-after'), throttled.body.code]).toEqual([
      429,
      '1',
      'tooManyRequests',
    ]);
    await vi.waitFor(
      () =>
        expect(received.map((event) => event.body.eventType)).toEqual([
          'poqCreateEvent',
          'poqStateChangeEvent',
          'poqStateChangeEvent',
        ]),
      { timeout: 5_000 },
    );
    expect(received.map((event) => event.path)).toEqual(
      ['poqCreateEvent', 'poqStateChangeEvent', 'poqStateChangeEvent'].map(
        (type) =>
          `/sonata-events/s3cret/mefApi/sonata/productOfferingQualificationNotification/v7/listener/${type}`,
      ),
    );
    expect(received.map((event) => event.body.event)).toEqual(
      received.map(() => ({ id: poq.body.id, href: poq.body.href })),
    );
    expect((await call('notify', 'poq', 'GET', path)).body.state).toBe('done.ready');

    const removed = await call('notify', 'poq', 'DELETE', `/hub/${hub.body.id}`);
    expect(removed.status).toBe(204);
    expect((await call('notify', 'poq', 'DELETE', `/hub/${hub.body.id}`)).status).toBe(404);
    const unheard = await call('notify', 'poq', 'POST', '/productOfferingQualification', poqBody(false));
    expect(
      (await call('notify', 'poq', 'GET', `/productOfferingQualification/${unheard.body.id}`)).status,
    ).toBe(200);
    await seller.settled();
    expect(received).toHaveLength(3);
  });

  test('when a Quote listener is registered, then quote and item state changes arrive in order and a GET after each event is answered', async () => {
    await slowSteps();
    const hub = await call('notify', 'quote', 'POST', '/hub', { callback: listenerUrl });
    expect(hub.status).toBe(201);
    const quote = await call('notify', 'quote', 'POST', '/quote', quoteBody(false));
    expect((await call('notify', 'quote', 'GET', `/quote/${quote.body.id}`)).status).toBe(429);
    const types = [
      'quoteItemStateChangeEvent',
      'quoteStateChangeEvent',
      'quoteItemStateChangeEvent',
      'quoteStateChangeEvent',
    ];
    await vi.waitFor(() => expect(received.map((event) => event.body.eventType)).toEqual(types), {
      timeout: 5_000,
    });
    expect(received.map((event) => event.body.event.quoteItemId)).toEqual(['1', undefined, '1', undefined]);
    const read = await call('notify', 'quote', 'GET', `/quote/${quote.body.id}`);
    expect([read.status, read.body.state]).toEqual([200, 'approved.orderable']);
  });

  test('when a hub registration names an unknown event type or no callback, then 400 invalidBody', async () => {
    const unknown = await call('notify', 'quote', 'POST', '/hub', {
      callback: listenerUrl,
      query: 'eventType=poqCreateEvent',
    });
    expect([unknown.status, unknown.body]).toEqual([
      400,
      { code: 'invalidBody', reason: 'query: unknown eventType poqCreateEvent' },
    ]);
  });
});
