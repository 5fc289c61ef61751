import { afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
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

// biome-ignore lint/suspicious/noExplicitAny: answers are validated against the MEF documents (afterEach); tests read them along those schemas.
type Json = any;

const API_PATHS = SONATA_API_PATHS;
const product = {
  productOffering: { id: 'basic-internet-access-ftth-shared' },
  productConfiguration: {
    '@type': 'urn:mef:lso:spec:cantata-sonata:basic-internet-access:v1.0.0:all',
    ipvc: { ipvcEndPoint: {} },
    ipUni: {},
    ipUniAccessLinkTrunk: {},
    ipUniAccessLink: {
      egressBwpEnvelope: [{ maxIr: { irValue: 500, irUnits: 'MBPS' }, cir: { irValue: 0, irUnits: 'MBPS' } }],
      ingressBwpEnvelope: [
        { maxIr: { irValue: 500, irUnits: 'MBPS' }, cir: { irValue: 0, irUnits: 'MBPS' } },
      ],
    },
  },
  place: [
    {
      '@type': 'FieldedAddress',
      role: 'INSTALL_LOCATION',
      streetName: 'Lijnbaansgracht',
      streetNr: '206',
      postcode: '1016 XA',
      city: 'Amsterdam',
      country: 'NLD',
    },
  ],
};
const poqBody = {
  instantSyncQualification: true,
  relatedContactInformation: [
    { role: 'buyerContactInformation', name: 'Desk', emailAddress: 'desk@buyer.example', number: '+31 20 1' },
  ],
  productOfferingQualificationItem: [{ id: '1', action: 'add', product }],
};
const quoteBody = {
  instantSyncQuote: true,
  buyerRequestedQuoteLevel: 'firm',
  quoteItem: [
    {
      id: '1',
      action: 'add',
      product,
      requestedQuoteItemTerm: {
        duration: { amount: 12, units: 'calendarMonths' },
        endOfTermAction: 'autoDisconnect',
        name: '12 months',
      },
    },
  ],
};

let validator: SonataValidator;
let seller: SonataSeller;
beforeAll(async () => {
  validator = await sonataValidator();
});
beforeEach(async () => {
  seller = await startSonataSeller();
});
afterEach(async () => {
  for (const exchange of seller.exchanges.filter((e) => typeof e.responseBody !== 'string')) {
    const api: SonataApi = exchange.path.includes(API_PATHS.quote) ? 'quote' : 'poq';
    const problems = validator.request(api, {
      method: exchange.method,
      path: exchange.path,
      body: exchange.requestBody,
    });
    // A body the seller refused as invalid must break the document too; everything else must follow it.
    if ((exchange.responseBody as Json)?.code === 'invalidBody') expect(problems).not.toEqual([]);
    else expect(problems).toEqual([]);
    expect(validator.response(api, { ...exchange, body: exchange.responseBody })).toEqual([]);
  }
  await seller.stop();
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields);
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function token(sourceKey = 'kpn-wba', query = ''): Promise<string> {
  const response = await fetch(`${seller.tokenUrl(sourceKey)}${query}`, {
    method: 'POST',
    headers: { authorization: basic(seller.credentials.clientId, seller.credentials.clientSecret) },
    body: form({ grant_type: 'client_credentials' }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function call(
  api: SonataApi,
  method: string,
  path: string,
  options: {
    body?: unknown;
    query?: Record<string, string>;
    authorization?: string | null;
    signal?: AbortSignal;
    mode?: SonataSellerMode;
  } = {},
) {
  const url = new URL(seller.baseUrl('kpn-wba', options.mode ?? 'instant', options.query));
  url.pathname += `${API_PATHS[api]}${path}`;
  const authorization =
    options.authorization === undefined ? `Bearer ${await token()}` : options.authorization;
  const response = await fetch(url, {
    method,
    headers: {
      'content-type': 'application/json;charset=utf-8',
      ...(authorization ? { authorization } : {}),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: (text ? JSON.parse(text) : undefined) as Json,
  };
}

describe('the Sonata sellers’ OAuth2 token endpoint', () => {
  test('when the client authenticates with HTTP Basic or in the body, then it gets a bearer token with its lifetime', async () => {
    for (const init of [
      {
        headers: { authorization: basic('connectivity-gateway', 'simulator-secret') },
        body: form({ grant_type: 'client_credentials' }),
      },
      {
        body: form({
          grant_type: 'client_credentials',
          client_id: 'connectivity-gateway',
          client_secret: 'simulator-secret',
        }),
      },
    ]) {
      const response = await fetch(seller.tokenUrl('kpn-wba'), { method: 'POST', ...init });
      const body = (await response.json()) as Json;
      expect([
        response.status,
        response.headers.get('cache-control'),
        body.token_type,
        body.expires_in,
      ]).toEqual([200, 'no-store', 'Bearer', 3600]);
      expect(body.access_token).toMatch(/^[\w-]{32}$/);
    }
  });

  test('when the secret is wrong or the grant is not client_credentials, then RFC 6749 §5.2 errors', async () => {
    const wrong = await fetch(seller.tokenUrl('kpn-wba'), {
      method: 'POST',
      headers: { authorization: basic('connectivity-gateway', 'guess') },
      body: form({ grant_type: 'client_credentials' }),
    });
    expect([wrong.status, wrong.headers.get('www-authenticate'), await wrong.json()]).toEqual([
      401,
      'Basic realm="sonata"',
      { error: 'invalid_client', error_description: 'unknown client or wrong secret' },
    ]);
    const grant = await fetch(seller.tokenUrl('kpn-wba'), {
      method: 'POST',
      body: form({ grant_type: 'password' }),
    });
    expect([grant.status, await grant.json()]).toEqual([400, { error: 'unsupported_grant_type' }]);
  });
});

describe('a Sonata seller’s API', () => {
  test('when a call has no token, an unknown one, another seller’s or an expired one, then 401 Error401', async () => {
    const none = await call('poq', 'POST', '/productOfferingQualification', {
      body: poqBody,
      authorization: null,
    });
    expect([none.status, none.headers.get('www-authenticate'), none.body]).toEqual([
      401,
      'Bearer realm="sonata"',
      { code: 'missingCredentials', reason: 'A bearer access token is required.' },
    ]);
    const invalid = {
      code: 'invalidCredentials',
      reason: 'The access token is unknown, expired or for another seller.',
    };
    for (const authorization of [
      'Bearer nonsense',
      `Bearer ${await token('colt')}`,
      `Bearer ${await token('kpn-wba', '?expires_in=0')}`,
    ]) {
      const refused = await call('poq', 'POST', '/productOfferingQualification', {
        body: poqBody,
        authorization,
      });
      expect([refused.status, refused.body]).toEqual([401, invalid]);
    }
    expect(seller.exchanges.map((exchange) => exchange.status)).toEqual([401, 401, 401, 401]);
  });

  test('when the failure knobs are set, then the seller answers 503 with Retry-After, 422, malformed JSON, a scripted recovery or nothing', async () => {
    const unavailable = await call('poq', 'POST', '/productOfferingQualification', {
      body: poqBody,
      query: { mode: '503', retry_after: '7' },
    });
    expect([unavailable.status, unavailable.headers.get('retry-after'), unavailable.body]).toEqual([
      503,
      '7',
      { code: 'internalError', reason: 'The seller is temporarily unavailable.' },
    ]);
    const refused = await call('quote', 'POST', '/quote', { body: quoteBody, query: { mode: '422' } });
    expect([refused.status, refused.body]).toEqual([
      422,
      [{ code: 'otherIssue', propertyPath: '', reason: 'Forced by the mode knob.' }],
    ]);
    const malformed = await call('poq', 'GET', '/productOfferingQualification/1', {
      query: { mode: 'malformed' },
    }).catch((error: Error) => error);
    expect(malformed).toBeInstanceOf(SyntaxError);
    const script = { script: '503,200' };
    expect(
      (await call('poq', 'POST', '/productOfferingQualification', { body: poqBody, query: script })).status,
    ).toBe(503);
    expect(
      (await call('poq', 'POST', '/productOfferingQualification', { body: poqBody, query: script })).status,
    ).toBe(201);
    const hang = await call('poq', 'POST', '/productOfferingQualification', {
      body: poqBody,
      query: { mode: 'hang' },
      signal: AbortSignal.timeout(150),
    }).catch((error: Error) => error.name);
    expect(hang).toBe('TimeoutError');
  });

  test('when the behaviour fails every call, then each is answered 503', async () => {
    await seller.stop();
    seller = await startSonataSeller({ behaviour: { failureRate: 1 }, random: () => 0.5 });
    expect((await call('quote', 'POST', '/quote', { body: quoteBody })).status).toBe(503);
  });

  test('when price=none is set, then priced quote items carry no quoteItemPrice', async () => {
    const quote = await call('quote', 'POST', '/quote', { body: quoteBody, query: { price: 'none' } });
    expect([quote.status, quote.body.state, quote.body.quoteItem[0].state]).toEqual([
      201,
      'approved.orderable',
      'approved.orderable',
    ]);
    expect(quote.body.quoteItem[0]).not.toHaveProperty('quoteItemPrice');
    expect(quote.body.quoteItem[0].quoteItemTerm).toEqual([
      {
        duration: { amount: 12, units: 'calendarMonths' },
        endOfTermAction: 'autoDisconnect',
        name: '12 months',
      },
    ]);
  });

  test('when buyerId or sellerId are given, then a POQ is the buyer’s own and another sellerId is refused', async () => {
    const poq = await call('poq', 'POST', '/productOfferingQualification', {
      body: poqBody,
      query: { buyerId: 'reseller-a' },
    });
    expect(poq.body.productOfferingQualificationItem[0].serviceabilityConfidence).toBe('green');
    expect(
      (
        await call('poq', 'GET', `/productOfferingQualification/${poq.body.id}`, {
          query: { buyerId: 'reseller-a' },
        })
      ).status,
    ).toBe(200);
    expect((await call('poq', 'GET', `/productOfferingQualification/${poq.body.id}`)).status).toBe(404);
    const list = await call('poq', 'GET', '/productOfferingQualification', {
      query: { buyerId: 'reseller-a', state: 'done.ready' },
    });
    expect(list.body).toEqual([{ id: poq.body.id, state: 'done.ready' }]);
    const other = await call('poq', 'GET', `/productOfferingQualification/${poq.body.id}`, {
      query: { sellerId: 'colt' },
    });
    expect([other.status, other.body]).toEqual([
      400,
      { code: 'invalidQuery', reason: 'This seller is kpn-wba, not colt.' },
    ]);
  });

  test('when the install place uses the INSTALL_ADDRESS role or a reference, then the first qualifies and the second terminates the item', async () => {
    const withPlace = (place: Record<string, unknown>) => ({
      ...poqBody,
      productOfferingQualificationItem: [{ id: '1', action: 'add', product: { ...product, place: [place] } }],
    });
    const byRole = await call('poq', 'POST', '/productOfferingQualification', {
      body: withPlace({ ...product.place[0], role: 'INSTALL_ADDRESS' }),
    });
    expect(byRole.body.productOfferingQualificationItem[0].serviceabilityConfidence).toBe('green');
    const byReference = await call('poq', 'POST', '/productOfferingQualification', {
      body: withPlace({ '@type': 'GeographicAddressRef', role: 'INSTALL_LOCATION', id: 'a-1' }),
    });
    expect([
      byReference.body.state,
      byReference.body.productOfferingQualificationItem[0].terminationError,
    ]).toEqual([
      'terminatedWithError',
      [
        {
          code: 'referenceNotFound',
          propertyPath: '/productOfferingQualificationItem/0/product/place/0/@type',
          value:
            'This seller qualifies FieldedAddress, FormattedAddress and MEFGeographicPoint places, not GeographicAddressRef.',
        },
      ],
    ]);
  });

  test('when the offering is unknown or the body breaks the schema, then 422 lists the problem and 400 names the field', async () => {
    const unknown = await call('poq', 'POST', '/productOfferingQualification', {
      body: {
        ...poqBody,
        productOfferingQualificationItem: [
          { id: '1', action: 'add', product: { ...product, productOffering: { id: 'dark-fibre' } } },
        ],
      },
    });
    expect([unknown.status, unknown.body]).toEqual([
      422,
      [
        {
          code: 'referenceNotFound',
          propertyPath: '/productOfferingQualificationItem/0/product/productOffering/id',
          reason: 'Unknown product offering dark-fibre.',
        },
      ],
    ]);
    const { relatedContactInformation: _dropped, ...incomplete } = poqBody;
    const invalid = await call('poq', 'POST', '/productOfferingQualification', { body: incomplete });
    expect([invalid.status, invalid.body]).toEqual([
      400,
      {
        code: 'invalidBody',
        reason: 'The body does not follow ProductOfferingQualification_Create.',
        message: '/relatedContactInformation: Invalid input: expected array, received undefined',
      },
    ]);
  });
});

describe('a sync-only Sonata seller', () => {
  test('when a deferred POQ and Quote arrive, then both are answered complete at once and /hub is not implemented', async () => {
    const later = new Date(Date.now() + 60_000).toISOString();
    const poq = await call('poq', 'POST', '/productOfferingQualification', {
      mode: 'sync-only',
      body: { ...poqBody, instantSyncQualification: false, requestedPOQCompletionDate: later },
    });
    expect([poq.status, poq.body.state]).toEqual([201, 'done.ready']);
    const quote = await call('quote', 'POST', '/quote', {
      mode: 'sync-only',
      body: {
        ...quoteBody,
        instantSyncQuote: false,
        requestedQuoteCompletionDate: later,
        relatedContactInformation: poqBody.relatedContactInformation,
      },
    });
    expect([quote.status, quote.body.state]).toEqual([201, 'approved.orderable']);
    for (const api of ['poq', 'quote'] as const) {
      const hub = await call(api, 'POST', '/hub', {
        mode: 'sync-only',
        body: { callback: 'http://127.0.0.1:9/listener' },
      });
      expect([hub.status, hub.body]).toEqual([
        501,
        { code: 'notImplemented', reason: 'This seller sends no notifications.' },
      ]);
    }
  });
});
