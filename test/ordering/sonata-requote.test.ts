import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SonataOrderTerms } from '../../src/db/contract/order-terms.js';
import type { SourceRow } from '../../src/db/rows.js';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { type SonataCallScope, SonataClient } from '../../src/gathering/sources/mef-sonata/client.js';
import { memoryHubRegistrations, SonataHub } from '../../src/gathering/sources/mef-sonata/hub.js';
import { SonataNotificationInbox } from '../../src/gathering/sources/mef-sonata/inbox.js';
import { handleSonataNotification } from '../../src/gathering/sources/mef-sonata/notification-handler.js';
import type { SonataSourceSettings } from '../../src/gathering/sources/mef-sonata/settings.js';
import { createMefSonataSource } from '../../src/gathering/sources/mef-sonata/source.js';
import { SonataTokenCache } from '../../src/gathering/sources/mef-sonata/token.js';
import { SourcePolicies } from '../../src/gathering/sources/policies.js';
import { SourceError, type SourceOffer } from '../../src/gathering/sources/types.js';
import { newId } from '../../src/ids.js';
import {
  requoteSonataLine,
  type SonataRequoteDeps,
  sonataQuoteExpired,
} from '../../src/ordering/sonata-requote.js';
import {
  fastPolicy,
  queryOf,
  requestRow,
  sellerSettings,
  sonataProblems,
  sourceRow,
} from '../gathering/sources/mef-sonata/fixtures.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';

/*
 * An expired seller quote of an order line quoted again (issue 36, item 2) against the simulated Sonata
 * seller: the line is gathered by the `mef-sonata` source with a quote that lapses at once
 * (`quote_valid_ms=0`), then asked for again — at the same price, at a changed one (`requote_price=changed`),
 * or from a seller that fails. Every exchange and notification is checked against the MEF documents.
 */

const THIRTY_DAYS_MS = 30 * 24 * 3600 * 1000;

let validator: SonataValidator;
let seller: SonataSeller;

beforeAll(async () => {
  validator = await sonataValidator();
});
beforeEach(async () => {
  // A seller of its own per test: `requote_price=changed` counts the quotes it priced before.
  seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
});
afterEach(async () => {
  await seller.settled();
  expect(sonataProblems(validator, seller)).toEqual([]);
  await seller.stop();
});

type Mode = 'instant' | 'deferred';

function settingsFor(mode: Mode, query: Record<string, string> = {}): SonataSourceSettings {
  return sellerSettings(seller, 'eurofiber', mode, mode, { query });
}

/** One quoted 100/100 Mbit/s, 36-month Eurofiber product at the example address, as gathering found it. */
async function gathered(source: SourceRow, settings: SonataSourceSettings): Promise<SourceOffer> {
  const adapter = createMefSonataSource({
    now: () => new Date(),
    settingsOf: () => settings,
    policy: fastPolicy,
  });
  const request = requestRow({ bandwidths: [{ download: 100_000, upload: 100_000 }], contractTerms: [36] });
  const { offers } = await adapter.gather(queryOf(source, request));
  expect(offers).toHaveLength(1);
  return offers[0] as SourceOffer;
}

function sonataTerms(offer: SourceOffer): SonataOrderTerms {
  if (offer.orderTerms?.kind !== 'mef-sonata') throw new Error('the offer has no Sonata order terms');
  return offer.orderTerms;
}

function depsFor(notifications: SonataRequoteDeps['notifications'] = null): SonataRequoteDeps {
  const now = () => new Date();
  const client = new SonataClient(new SourcePolicies(fastPolicy), new SonataTokenCache({ now }), now);
  return { client, now, notifications };
}

function scopeOf(source: SourceRow, settings: SonataSourceSettings): SonataCallScope {
  return {
    source,
    settings,
    deadline: AbortSignal.timeout(5_000),
    querySignal: new AbortController().signal,
  };
}

/** The seller's last answer about a POQ or Quote (its final state), read from the exchanges. */
function lastAnswer(resource: 'productOfferingQualification' | 'quote'): Record<string, unknown> {
  const pattern = new RegExp(`/${resource}(/[^/]+)?$`);
  const answers = seller.exchanges.filter(
    (exchange) => pattern.test(exchange.path) && !exchange.path.endsWith('/hub') && exchange.status < 300,
  );
  return answers.at(-1)?.responseBody as Record<string, unknown>;
}

/** The bodies of the POST creates of a resource, in order. */
function created(resource: 'productOfferingQualification' | 'quote'): Record<string, unknown>[] {
  return seller.exchanges
    .filter((exchange) => exchange.method === 'POST' && exchange.path.endsWith(`/${resource}`))
    .map((exchange) => exchange.requestBody as Record<string, unknown>);
}

/** The line gathered from `mode`'s seller with a quote that lapsed at its completion. */
async function expiredLine(mode: Mode, source: SourceRow, query: Record<string, string> = {}) {
  const offer = await gathered(source, settingsFor(mode, { quote_valid_ms: '0', ...query }));
  const terms = sonataTerms(offer);
  return { offer, terms, line: { id: newId('orderLine'), orderTerms: terms, contractTermMonths: 36 } };
}

describe('sonataQuoteExpired', () => {
  it('when the quote lapsed at its completion (quote_valid_ms=0), then it is expired a millisecond later, not at that instant', async () => {
    const { terms } = await expiredLine('instant', sourceRow());

    const end = lastAnswer('quote').effectiveQuoteCompletionDate as string;
    expect(terms.validFor).toEqual({ startDateTime: null, endDateTime: end });
    expect(sonataQuoteExpired(terms, new Date(Date.parse(end)))).toBe(false);
    expect(sonataQuoteExpired(terms, new Date(Date.parse(end) + 1))).toBe(true);
  });

  it('when the seller said no validity, then the quote never expires', () => {
    const terms = { validFor: null } as SonataOrderTerms;

    expect(sonataQuoteExpired(terms, new Date('2999-01-01T00:00:00Z'))).toBe(false);
  });
});

describe('requoteSonataLine', () => {
  it.each<Mode>(['instant', 'deferred'])(
    'when a %s seller prices the expired line as before, then a new POQ and Quote give the same prices, new ids and a validity ahead',
    async (mode) => {
      const source = sourceRow({ key: 'eurofiber', network: 'Eurofiber' });
      const { offer, terms, line } = await expiredLine(mode, source);
      const settings = settingsFor(mode);

      const requote = await requoteSonataLine(depsFor(), scopeOf(source, settings), settings, line);

      const poq = lastAnswer('productOfferingQualification');
      const quote = lastAnswer('quote');
      expect(quote.state).toBe('approved.orderable');
      const validUntil = new Date(
        Date.parse(quote.effectiveQuoteCompletionDate as string) + THIRTY_DAYS_MS,
      ).toISOString();
      expect(requote).toEqual({
        terms: {
          ...terms,
          poqId: poq.id,
          quoteId: quote.id,
          validFor: { startDateTime: null, endDateTime: validUntil },
        },
        mrcMinor: offer.purchaseMrcMinor,
        nrcMinor: offer.purchaseNrcMinor,
        currency: 'EUR',
        contractTermMonths: 36,
      });
      expect(requote.terms.poqId).not.toBe(terms.poqId);
      expect(requote.terms.quoteId).not.toBe(terms.quoteId);
      expect(sonataQuoteExpired(requote.terms, new Date())).toBe(false);
      // What was asked: the stored configuration at the stored place and term, naming the new POQ's item.
      const [, poqBody] = created('productOfferingQualification');
      const [, quoteBody] = created('quote');
      expect(poqBody).toMatchObject({
        instantSyncQualification: mode === 'instant',
        externalId: line.id,
        productOfferingQualificationItem: [
          {
            id: '1',
            action: 'add',
            product: {
              productOffering: { id: terms.productOfferingId },
              productConfiguration: terms.productConfiguration,
              place: terms.place,
            },
          },
        ],
      });
      expect(quoteBody).toMatchObject({
        instantSyncQuote: mode === 'instant',
        buyerRequestedQuoteLevel: 'firm',
        externalId: line.id,
        quoteItem: [
          {
            id: '1',
            action: 'add',
            product: {
              productOffering: { id: terms.productOfferingId },
              productConfiguration: terms.productConfiguration,
              place: terms.place,
            },
            requestedQuoteItemTerm: {
              duration: { amount: 36, units: 'calendarMonths' },
              endOfTermAction: 'roll',
              rollInterval: { amount: 1, units: 'calendarMonths' },
              name: '36 months',
            },
            productOfferingQualificationItem: { productOfferingQualificationId: poq.id, id: '1' },
          },
        ],
      });
    },
  );

  it.each<Mode>(['instant', 'deferred'])(
    'when a %s seller prices the expired line again at a changed price (requote_price=changed), then the new prices are returned: a tenth more MRC each time, the NRC as before',
    async (mode) => {
      const source = sourceRow({ key: 'eurofiber', network: 'Eurofiber' });
      const { offer, terms, line } = await expiredLine(mode, source, { requote_price: 'changed' });
      const settings = settingsFor(mode, { requote_price: 'changed' });

      const first = await requoteSonataLine(depsFor(), scopeOf(source, settings), settings, line);
      const second = await requoteSonataLine(depsFor(), scopeOf(source, settings), settings, line);

      expect([first.mrcMinor, first.nrcMinor, first.currency]).toEqual([
        Math.round((offer.purchaseMrcMinor * 11) / 10),
        offer.purchaseNrcMinor,
        'EUR',
      ]);
      expect([second.mrcMinor, second.nrcMinor]).toEqual([
        Math.round((offer.purchaseMrcMinor * 12) / 10),
        offer.purchaseNrcMinor,
      ]);
      expect(first.mrcMinor).not.toBe(offer.purchaseMrcMinor);
      expect(first.terms.quoteId).not.toBe(terms.quoteId);
      expect(second.terms.quoteId).not.toBe(first.terms.quoteId);
      const prices = (lastAnswer('quote').quoteItem as { quoteItemPrice: unknown[] }[])[0]?.quoteItemPrice;
      expect(prices).toEqual([
        expect.objectContaining({
          priceType: 'recurring',
          price: expect.objectContaining({ dutyFreeAmount: { unit: 'EUR', value: second.mrcMinor / 100 } }),
        }),
        expect.objectContaining({
          priceType: 'nonRecurring',
          price: expect.objectContaining({
            dutyFreeAmount: { unit: 'EUR', value: offer.purchaseNrcMinor / 100 },
          }),
        }),
      ]);
    },
  );

  it('when the seller keeps failing (503), then the requote fails with a retryable UPSTREAM_5XX', async () => {
    const source = sourceRow({ key: 'eurofiber', network: 'Eurofiber' });
    const { line } = await expiredLine('instant', source);
    const settings = settingsFor('instant', { mode: '503' });
    const posts = created('productOfferingQualification').length;

    const failure = await requoteSonataLine(depsFor(), scopeOf(source, settings), settings, line).catch(
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(SourceError);
    expect(failure).toMatchObject({ code: 'UPSTREAM_5XX', retryable: true });
    expect((failure as SourceError).message).toBe(
      'The seller answered 503 to the POQ create: internalError (The seller is temporarily unavailable.).',
    );
    // The policy's two retries, then the failure: nothing quoted.
    expect(created('productOfferingQualification').length - posts).toBe(3);
    expect(created('quote')).toHaveLength(1);
  });

  it('when a deferred seller cannot answer in time (outcome=unableToProvide), then the requote fails with SONATA_UNABLE_TO_PROVIDE, not retried', async () => {
    const source = sourceRow({ key: 'eurofiber', network: 'Eurofiber' });
    const { line } = await expiredLine('deferred', source);
    const settings = settingsFor('deferred', { outcome: 'unableToProvide' });

    const failure = await requoteSonataLine(depsFor(), scopeOf(source, settings), settings, line).catch(
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(SourceError);
    expect(failure).toMatchObject({ code: 'SONATA_UNABLE_TO_PROVIDE', retryable: false });
  });

  it('when the source no longer has the line’s offering, then the requote fails with NOT_CONFIGURED and asks the seller nothing', async () => {
    const source = sourceRow({ key: 'eurofiber', network: 'Eurofiber' });
    const { line, terms } = await expiredLine('instant', source);
    const settings = settingsFor('instant');
    const without = {
      ...settings,
      productOfferings: settings.productOfferings.filter(
        (offering) => offering.productOfferingId !== terms.productOfferingId,
      ),
    };
    const calls = seller.exchanges.length;

    const failure = await requoteSonataLine(depsFor(), scopeOf(source, without), without, line).catch(
      (error: unknown) => error,
    );

    expect(failure).toMatchObject({ code: 'NOT_CONFIGURED', retryable: false });
    expect(seller.exchanges.length).toBe(calls);
  });

  it('when the source hears its seller through notifications, then the new POQ and Quote are read after their events, never polled into a 429', async () => {
    const callbacks = await startCallbackServer();
    try {
      const source = sourceRow({ key: 'eurofiber', network: 'Eurofiber' });
      const gatheredWith = sellerSettings(seller, 'eurofiber', 'notify', 'deferred', {
        query: { quote_valid_ms: '0' },
      });
      const offer = await gathered(source, gatheredWith);
      const settings = sellerSettings(seller, 'eurofiber', 'notify', 'notifications');
      const deps = depsFor();
      deps.notifications = {
        inbox: callbacks.inbox,
        hub: new SonataHub(deps.client, callbacks.inbox, memoryHubRegistrations()),
      };
      const line = { id: newId('orderLine'), orderTerms: sonataTerms(offer), contractTermMonths: 36 };
      const before = seller.exchanges.length;

      const requote = await requoteSonataLine(deps, scopeOf(source, settings), settings, line);
      await seller.settled();

      expect([requote.mrcMinor, requote.nrcMinor]).toEqual([offer.purchaseMrcMinor, offer.purchaseNrcMinor]);
      const calls = seller.exchanges
        .slice(before)
        .map(
          (exchange) =>
            `${exchange.method} ${exchange.path.replace(/^.*\/v\d+/, '').replace(/\/[0-9a-f-]{36}$/, '/{id}')} ${exchange.status}`,
        );
      expect(calls.join('\n')).toMatch(
        /^POST \/hub 201\nPOST \/hub 201\nPOST \/productOfferingQualification 201(\nGET \/productOfferingQualification\/\{id\} 200){1,2}\nPOST \/quote 201(\nGET \/quote\/\{id\} 200){1,2}$/,
      );
      expect(callbacks.statuses.length).toBeGreaterThan(0);
      expect(callbacks.statuses.every((status) => status === 204)).toBe(true);
    } finally {
      await callbacks.stop();
    }
  });
});

/** The gateway's callback route for POQ and Quote notifications, into a fresh inbox. */
async function startCallbackServer() {
  const statuses: number[] = [];
  let inbox: SonataNotificationInbox | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const match = /^\/sonata-callbacks\/([^/]+)(\/.*)$/.exec(req.url ?? '');
      const answer =
        req.method === 'POST' && match?.[1] && match[2] && inbox
          ? handleSonataNotification(inbox, {
              sourceId: decodeURIComponent(match[1]),
              path: match[2],
              headers: req.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            })
          : { status: 404, body: null };
      statuses.push(answer.status);
      res.writeHead(answer.status).end(answer.body === null ? undefined : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  inbox = new SonataNotificationInbox({
    secret: 'test-callback-secret-0123456789abcdef',
    callbackBaseUrl: `${url}/sonata-callbacks`,
  });
  return {
    inbox,
    statuses,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
