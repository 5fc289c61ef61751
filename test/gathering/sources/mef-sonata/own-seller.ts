import type { ServerResponse } from 'node:http';
import type { SonataExchange } from '../../../../src/gathering/simulator/sonata/server.js';
import type { SonataSourceSettings } from '../../../../src/gathering/sources/mef-sonata/settings.js';
import { buyerContact, json, type OwnServer, type Received, startOwnServer } from './fixtures.js';

type Json = Record<string, unknown>;

/** What the test's seller answers to a create: a status and body, or its own writing (redirects, huge bodies). */
export type OwnAnswer =
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | ((res: ServerResponse) => void);

/**
 * A Sonata seller of the test's own on 127.0.0.1, for answers the simulator never gives (crafted item
 * states, prices, units; redirects, huge bodies): a token endpoint at `/token`, and per API a function from
 * the create body to the answer. Records what it answered as `exchanges`, so the MEF documents check both.
 */
export interface OwnSeller {
  server: OwnServer;
  settings(fields?: Partial<SonataSourceSettings>): SonataSourceSettings;
  poq: (body: Json) => OwnAnswer;
  quote: (body: Json) => OwnAnswer;
  exchanges: SonataExchange[];
  notifications: { url: string; body: unknown; status: number }[];
  stop(): Promise<void>;
}

export const ownToken = 'own-seller-token';

export async function startOwnSeller(): Promise<OwnSeller> {
  const server = await startOwnServer();
  const own: OwnSeller = {
    server,
    settings: (fields = {}) => ({
      baseUrl: `${server.url}/seller`,
      oauth2: { tokenUrl: `${server.url}/token`, clientId: 'gateway', clientSecret: 'own-seller-secret-42' },
      buyerContact,
      productOfferings: [
        {
          productOfferingId: 'bia-fiber-dia',
          technologyType: 'FIBER',
          connectionType: 'DIA',
          bandwidths: [{ download: 100_000, upload: 100_000 }],
          contractTerms: [36],
        },
      ],
      interaction: 'instant',
      poll: { initialDelayMs: 5, maxDelayMs: 40 },
      orderPoll: { initialDelayMs: 5, maxDelayMs: 40 },
      ...fields,
    }),
    poq: () => ({ status: 500, body: { code: 'internalError', reason: 'not set' } }),
    quote: () => ({ status: 500, body: { code: 'internalError', reason: 'not set' } }),
    exchanges: [],
    notifications: [],
    stop: () => server.stop(),
  };
  server.answer = (request: Received, res: ServerResponse) => {
    if (request.path === '/token') {
      json(res, 200, { access_token: ownToken, token_type: 'Bearer', expires_in: 3600 });
      return;
    }
    const url = new URL(request.path, server.url);
    const api = url.pathname.includes('/productOfferingQualification/v7/') ? 'poq' : 'quote';
    const answer = (api === 'poq' ? own.poq : own.quote)(request.body as Json);
    if (typeof answer === 'function') {
      answer(res);
      return;
    }
    own.exchanges.push({
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      requestBody: request.body,
      status: answer.status,
      responseBody: answer.body,
    });
    json(res, answer.status, answer.body, answer.headers);
  };
  return own;
}

const sellerContact = {
  role: 'sellerContactInformation',
  name: 'Own seller desk',
  emailAddress: 'desk@seller.example',
  number: '+31 20 555 0199',
};

/** A `201` POQ answer echoing the request, with the POQ's state and, per item id, item fields. */
export function poqAnswer(body: Json, state: string, items: Record<string, Json>, id = 'poq-1'): OwnAnswer {
  const requested = body.productOfferingQualificationItem as Json[];
  return {
    status: 201,
    body: {
      ...body,
      relatedContactInformation: [...(body.relatedContactInformation as Json[]), sellerContact],
      id,
      state,
      productOfferingQualificationItem: requested.map((item) => ({ ...item, ...items[String(item.id)] })),
    },
  };
}

/**
 * A `201` Quote answer `quote-1` echoing the request, with the Quote's state, per item id item fields, and
 * `fields` of the Quote (its `validFor`, …).
 */
export function quoteAnswer(
  body: Json,
  state: string,
  items: Record<string, Json>,
  fields: Json = {},
): OwnAnswer {
  const requested = body.quoteItem as Json[];
  return {
    status: 201,
    body: {
      ...body,
      relatedContactInformation: [
        ...((body.relatedContactInformation as Json[] | undefined) ?? []),
        sellerContact,
      ],
      id: 'quote-1',
      quoteDate: '2025-01-06T09:00:00Z',
      state,
      quoteItem: requested.map((item) => ({ ...item, ...items[String(item.id)] })),
      ...fields,
    },
  };
}

/** A `QuotePrice` before tax. */
export function price(priceType: 'recurring' | 'nonRecurring', value: number, unit = 'EUR'): Json {
  return {
    priceType,
    ...(priceType === 'recurring' ? { recurringChargePeriod: 'month' } : {}),
    price: { dutyFreeAmount: { unit, value } },
  };
}

/** An `MEFItemTerm` of `months`. */
export function term(amount: number, units = 'calendarMonths'): Json {
  return { duration: { amount, units }, endOfTermAction: 'autoRenew', name: `${amount} ${units}` };
}
