import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../../../src/gathering/simulator/sonata/server.js';
import { SonataNotificationInbox } from '../../../../src/gathering/sources/mef-sonata/inbox.js';
import { handleSonataNotification } from '../../../../src/gathering/sources/mef-sonata/notification-handler.js';
import type { SonataSourceSettings } from '../../../../src/gathering/sources/mef-sonata/settings.js';
import { createMefSonataSource } from '../../../../src/gathering/sources/mef-sonata/source.js';
import { type SonataValidator, sonataValidator } from '../../../helpers/sonata-openapi.js';
import {
  catalogueOffers,
  fastPolicy,
  queryOf,
  sellerSettings,
  sonataProblems,
  sorted,
  sourceRow,
} from './fixtures.js';
import { exampleInstallPlace, sellerAnswers, withOrderTerms } from './order-terms-fixtures.js';

const examplePlace = { countryCode: 'NL', postalCode: '1016XA', city: 'Amsterdam' };

let validator: SonataValidator;
let seller: SonataSeller;

beforeAll(async () => {
  validator = await sonataValidator();
});
beforeEach(async () => {
  seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
});
afterEach(async () => {
  await seller.settled();
  // Every request the adapter sent, every answer and notification the seller gave: valid per MEF's documents.
  expect(sonataProblems(validator, seller)).toEqual([]);
  await seller.stop();
});

/** `METHOD /resource[/id]` of each call the seller received, below the API base; ids as `{id}`. */
function calls(): string[] {
  return seller.exchanges.map((exchange) => {
    const below = exchange.path.replace(/^.*\/mefApi\/sonata\/[A-Za-z]+\/v\d+/, '');
    return `${exchange.method} ${below.replace(/\/[0-9a-f-]{36}$/, '/{id}')} ${exchange.status}`;
  });
}

function adapterFor(settings: SonataSourceSettings, notifications?: SonataNotificationInbox) {
  return createMefSonataSource({
    now: () => new Date(),
    settingsOf: () => settings,
    policy: fastPolicy,
    ...(notifications ? { notifications } : {}),
  });
}

/** The seller's catalogue at the example address, ordered through the POQ and Quote it answered last. */
function catalogueOrderedAsAnswered(key: string, network: string) {
  return sorted(
    withOrderTerms(
      catalogueOffers(key, network, examplePlace),
      sellerAnswers(seller.exchanges),
      exampleInstallPlace,
    ),
  );
}

describe('mef-sonata source against each kind of seller', () => {
  it.each([
    ['kpn-wba', 'KPN'],
    ['tele2', 'Tele2'],
    ['eurofiber', 'Eurofiber'],
  ])(
    'when an instant seller (%s) is asked about the example address, then one POQ and one Quote bring exactly its catalogue offers there',
    async (key, network) => {
      const source = sourceRow({ key, network });
      const adapter = adapterFor(sellerSettings(seller, key, 'instant', 'instant'));

      const offers = await adapter.fetchOffers(queryOf(source));

      const expected = catalogueOrderedAsAnswered(key, network);
      expect(expected.length).toBeGreaterThan(0);
      expect(sorted(offers)).toEqual(expected);
      expect(calls()).toEqual(['POST /productOfferingQualification 201', 'POST /quote 201']);
    },
  );

  it('when a deferred seller is asked, then the POQ and the Quote are polled until done and give the same offers', async () => {
    const source = sourceRow();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'deferred', 'deferred'));

    const gathering = await adapter.gather(queryOf(source));

    expect(sorted(gathering.offers)).toEqual(catalogueOrderedAsAnswered('kpn-wba', 'KPN'));
    expect(gathering.offers[0]?.orderTerms).toMatchObject({
      poqId: gathering.poq?.id,
      quoteId: gathering.quote?.id,
    });
    expect(gathering.poq?.state).toBe('done.ready');
    expect(gathering.quote?.state).toBe('approved.orderable');
    const polls = calls();
    expect(polls[0]).toBe('POST /productOfferingQualification 201');
    expect(polls.at(-1)).toBe('GET /quote/{id} 200');
    // acknowledged → inProgress → done.ready: the last poll of each resource is the one that saw it done.
    expect(polls.filter((call) => call === 'POST /quote 201')).toHaveLength(1);
    expect(
      polls.filter((call) => call.startsWith('GET /productOfferingQualification/{id}')).length,
    ).toBeGreaterThan(0);
    expect(polls.every((call) => !call.endsWith(' 429'))).toBe(true);
    const [poqCreate] = seller.exchanges;
    expect(poqCreate?.requestBody).toMatchObject({ instantSyncQualification: false });
    expect(poqCreate?.responseBody).toMatchObject({ state: 'acknowledged' });
  });

  it('when the deferred seller says when it expects to be done, then it is polled then rather than every few milliseconds', async () => {
    await seller.stop();
    seller = await startSonataSeller({ behaviour: { stepMs: 100 } });
    const settings = sellerSettings(seller, 'kpn-wba', 'deferred', 'deferred');
    const adapter = adapterFor({ ...settings, poll: { initialDelayMs: 5, maxDelayMs: 1_000 } });

    await adapter.fetchOffers(queryOf(sourceRow()));

    // Doubling from 5 ms would poll each resource six times before its 200 ms are up. Waiting for the
    // expected date takes two or three; a fourth when a loaded machine reads just before the seller moves.
    const polls = (resource: string) => calls().filter((call) => call.startsWith(`GET /${resource}/`)).length;
    expect(polls('productOfferingQualification')).toBeLessThanOrEqual(4);
    expect(polls('quote')).toBeLessThanOrEqual(4);
  });

  it('when a source asks a deferred seller for instant answers, then the seller’s 422 is the failure', async () => {
    const source = sourceRow();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'deferred', 'instant'));

    const result = adapter.fetchOffers(queryOf(source));

    await expect(result).rejects.toMatchObject({
      code: 'SONATA_UNPROCESSABLE',
      message:
        'The seller answered 422 to the POQ create: invalidValue (This seller answers deferred only: send instantSyncQualification false.) at /instantSyncQualification.',
      retryable: false,
    });
    expect(calls()).toEqual(['POST /productOfferingQualification 422']);
  });

  it('when a sync-only seller is asked in the notifications mode, then its hub’s 501 leaves no listener and its immediate answers are used', async () => {
    const callbacks = await startCallbackServer();
    try {
      const source = sourceRow();
      const adapter = adapterFor(
        sellerSettings(seller, 'kpn-wba', 'sync-only', 'notifications'),
        callbacks.inbox,
      );

      const offers = await adapter.fetchOffers(queryOf(source));

      expect(sorted(offers)).toEqual(catalogueOrderedAsAnswered('kpn-wba', 'KPN'));
      expect(calls()).toEqual([
        'POST /hub 501',
        'POST /hub 501',
        'POST /productOfferingQualification 201',
        'POST /quote 201',
      ]);
      expect(seller.exchanges[2]?.requestBody).toMatchObject({ instantSyncQualification: false });
      expect(callbacks.received).toEqual([]);
    } finally {
      await callbacks.stop();
    }
  });
});

/** The gateway's callback route, as the wiring will mount it: `POST /sonata-callbacks/:sourceId/*`. */
async function startCallbackServer() {
  const received: { path: string; status: number }[] = [];
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
      received.push({ path: req.url ?? '', status: answer.status });
      if (answer.body === null) res.writeHead(answer.status).end();
      else
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  inbox = new SonataNotificationInbox({
    secret: 'test-callback-secret-0123456789abcdef',
    callbackBaseUrl: `${url}/sonata-callbacks`,
  });
  return {
    url,
    inbox,
    received,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('mef-sonata source against a notifying seller', () => {
  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  beforeAll(async () => {
    callbacks = await startCallbackServer();
  });
  afterAll(() => callbacks.stop());
  beforeEach(() => {
    callbacks.received.length = 0;
  });

  it('when the source listens at the hub, then the events complete the POQ and the Quote without a single throttled poll', async () => {
    const source = sourceRow();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'notify', 'notifications'), callbacks.inbox);

    const offers = await adapter.fetchOffers(queryOf(source));
    await seller.settled();

    expect(sorted(offers)).toEqual(catalogueOrderedAsAnswered('kpn-wba', 'KPN'));
    const callback = callbacks.inbox.callbackUrl(source.id);
    expect(
      seller.exchanges
        .slice(0, 2)
        .map((e) => [e.path.replace(/^.*\/mefApi\/sonata/, ''), e.requestBody, e.status]),
    ).toEqual([
      [
        '/productOfferingQualification/v7/hub',
        { callback, query: 'eventType=poqCreateEvent,poqStateChangeEvent,poqItemStateChangeEvent' },
        201,
      ],
      [
        '/quoteManagement/v8/hub',
        { callback, query: 'eventType=quoteStateChangeEvent,quoteItemStateChangeEvent' },
        201,
      ],
    ]);
    // Each resource is read after a state change (inProgress, done — one read when both came before it),
    // never polled into a 429.
    expect(calls().slice(2).join('\n')).toMatch(
      /^POST \/productOfferingQualification 201(\nGET \/productOfferingQualification\/\{id\} 200){1,2}\nPOST \/quote 201(\nGET \/quote\/\{id\} 200){1,2}$/,
    );
    expect(seller.notifications.length).toBeGreaterThan(4);
    expect(seller.notifications.every((notification) => notification.status === 204)).toBe(true);
    expect(seller.notifications.every((n) => n.url.startsWith(`${callback}/mefApi/sonata/`))).toBe(true);
  });

  it('when the source has buyer and seller ids, then the events naming them complete the query', async () => {
    const source = sourceRow();
    const settings = sellerSettings(seller, 'kpn-wba', 'notify', 'notifications', {
      buyerId: 'reseller-17',
      sellerId: 'kpn-wba',
    });
    const adapter = adapterFor(settings, callbacks.inbox);

    const offers = await adapter.fetchOffers(queryOf(source));
    await seller.settled();

    expect(sorted(offers)).toEqual(catalogueOrderedAsAnswered('kpn-wba', 'KPN'));
    expect(
      seller.notifications.map((n) => (n.body as { event: { buyerId?: string; sellerId?: string } }).event),
    ).toEqual(
      seller.notifications.map(() =>
        expect.objectContaining({ buyerId: 'reseller-17', sellerId: 'kpn-wba' }),
      ),
    );
    expect(seller.notifications.every((n) => n.status === 204)).toBe(true);
  });

  it('when a second query runs at the same seller, then the listeners registered for the first are reused', async () => {
    const source = sourceRow();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'notify', 'notifications'), callbacks.inbox);

    await adapter.fetchOffers(queryOf(source));
    await adapter.fetchOffers(queryOf(source));

    expect(calls().filter((call) => call.startsWith('POST /hub'))).toEqual([
      'POST /hub 201',
      'POST /hub 201',
    ]);
    expect(calls().filter((call) => call === 'POST /quote 201')).toHaveLength(2);
  });

  it('when the source leaves the notifications mode, then both listeners are deleted and its polls are no longer throttled', async () => {
    const source = sourceRow();
    const notifying = sellerSettings(seller, 'kpn-wba', 'notify', 'notifications');
    const adapter = adapterFor(notifying, callbacks.inbox);
    await adapter.fetchOffers(queryOf(source));
    const registered = calls().length;

    await adapter.unregisterListeners(source);
    const polling = adapterFor({ ...notifying, interaction: 'deferred' });
    const offers = await polling.fetchOffers(queryOf(source));

    expect(calls().slice(registered, registered + 2)).toEqual([
      'DELETE /hub/{id} 204',
      'DELETE /hub/{id} 204',
    ]);
    expect(
      calls()
        .slice(registered + 2)
        .every((call) => call.endsWith(' 200') || call.endsWith(' 201')),
    ).toBe(true);
    expect(sorted(offers)).toEqual(catalogueOrderedAsAnswered('kpn-wba', 'KPN'));
  });

  it('when no inbox is configured, then a source in the notifications mode registers nothing and polls', async () => {
    const source = sourceRow();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'deferred', 'notifications'));

    const offers = await adapter.fetchOffers(queryOf(source));

    expect(calls().some((call) => call.includes('/hub'))).toBe(false);
    expect(calls().filter((call) => call.startsWith('GET')).length).toBeGreaterThan(1);
    expect(sorted(offers)).toEqual(catalogueOrderedAsAnswered('kpn-wba', 'KPN'));
  });

  it('when a seller delivers an event twice, then the second delivery is answered 204 and changes nothing', async () => {
    const source = sourceRow();
    const adapter = adapterFor(sellerSettings(seller, 'kpn-wba', 'notify', 'notifications'), callbacks.inbox);
    await adapter.fetchOffers(queryOf(source));
    await seller.settled();
    const first = seller.notifications.find(
      (n) => (n.body as { eventType: string }).eventType === 'quoteStateChangeEvent',
    );
    if (!first) throw new Error('no quote state change was notified');
    const key = {
      sourceId: source.id,
      api: 'quote' as const,
      resourceId: (first.body as { event: { id: string } }).event.id,
    };
    const before = callbacks.inbox.count(key);

    const replay = await fetch(first.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json;charset=utf-8' },
      body: JSON.stringify(first.body),
    });

    expect(replay.status).toBe(204);
    expect(callbacks.inbox.count(key)).toBe(before);
    expect(before).toBeGreaterThan(0);
  });

  it('when a callback comes without the source’s token or with another source’s, then it is refused 401 and not delivered', async () => {
    const source = sourceRow();
    const other = sourceRow();
    const event = {
      eventId: 'forged-1',
      eventTime: '2025-01-06T09:00:00Z',
      eventType: 'quoteStateChangeEvent',
      event: { id: 'quote-1' },
    };
    const listener = '/mefApi/sonata/quoteNotification/v8/listener/quoteStateChangeEvent';
    const otherToken = new URL(callbacks.inbox.callbackUrl(other.id)).pathname.split('/').at(-1);

    const answers = await Promise.all(
      [
        `/${encodeURIComponent(source.id)}${listener}`,
        `/${encodeURIComponent(source.id)}/${otherToken}${listener}`,
      ].map((path) =>
        fetch(`${callbacks.url}/sonata-callbacks${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(event),
        }).then(async (response) => [response.status, await response.json()]),
      ),
    );

    expect(answers).toEqual([
      [401, { code: 'invalidCredentials', reason: 'The notification callback is not authenticated.' }],
      [401, { code: 'invalidCredentials', reason: 'The notification callback is not authenticated.' }],
    ]);
    expect(callbacks.inbox.count({ sourceId: source.id, api: 'quote', resourceId: 'quote-1' })).toBe(0);
  });
});
