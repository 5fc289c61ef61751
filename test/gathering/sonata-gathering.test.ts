import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import type { SonataSourceSettings } from '../../src/gathering/sources/mef-sonata/settings.js';
import {
  contractExampleBatch,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  tempDatabasePath,
} from '../helpers/app.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import { storedRows } from '../helpers/store.js';
import {
  calls,
  comparable,
  completed,
  examplePlaces,
  graphqlSettings,
  markupPlan,
  products,
  registerSonata,
  sourcesOf,
} from './sonata-gateway.js';
import { catalogueOffers, sellerSettings, sonataProblems, sorted } from './sources/mef-sonata/fixtures.js';
import {
  coordinateInstallPlace,
  exampleInstallPlace,
  type SellerAnswers,
  sellerAnswers,
  storedOffers,
  withOrderTerms,
} from './sources/mef-sonata/order-terms-fixtures.js';

/*
 * Issue 18 end to end: mef-sonata sources registered on a tenant, the simulator's Sonata sellers on
 * 127.0.0.1, the contract's example request through REST, and the sellers' hub notifications reaching the
 * adapter through the gateway's own callback route — in one instance, and across an API-only instance and
 * a worker process sharing Redis.
 */

const UPDATE = `mutation ($id: ID!, $sonata: SonataSettingsInput!) {
  updateSonataSource(id: $id, sonata: $sonata) { source { sonata { interaction } } }
}`;
const ENABLE = `mutation ($id: ID!, $enabled: Boolean!) { setSourceEnabled(id: $id, enabled: $enabled) { source { enabled } } }`;

let validator: SonataValidator;
beforeAll(async () => {
  validator = await sonataValidator();
});

/** What `sourceKey`'s seller last answered about the POQ and the Quote of request `requestId`. */
function answersFor(seller: SonataSeller, sourceKey: string, requestId: string): SellerAnswers {
  return sellerAnswers(
    seller.exchanges.filter((exchange) => exchange.path.startsWith(`/sonata/${sourceKey}/`)),
    requestId,
  );
}

describe('mef-sonata sources in one instance', () => {
  let seller: SonataSeller;
  let server: TestServer;
  let admin: TestTenant;
  let kpnId: string;
  let eurofiberId: string;
  let eurofiberSettings: SonataSourceSettings;

  beforeAll(async () => {
    seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
    const port = await getPort({ host: '127.0.0.1' });
    server = await startTestServer({
      env: { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    });
    admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
    await markupPlan(admin);
    kpnId = await registerSonata(
      admin,
      'kpn-wba',
      'KPN',
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant'),
    );
    eurofiberSettings = sellerSettings(seller, 'eurofiber', 'notify', 'notifications');
    eurofiberId = await registerSonata(admin, 'eurofiber', 'Eurofiber', eurofiberSettings);
  });
  afterAll(async () => {
    await server?.close();
    await seller?.stop();
  });

  it('when the contract’s example request is created, then an instant and a notifying seller complete it with their offers at the request’s prices, the notifications arriving through the callback route', async () => {
    const created = await admin.api.post('/availability-requests', contractExampleBatch);
    expect(created.status).toBe(201);

    const requests = [];
    for (const { id } of created.body.data) requests.push(await completed(admin, id));
    await seller.settled();

    for (const [index, request] of requests.entries()) {
      const place = examplePlaces[index] as (typeof examplePlaces)[number];
      const expected = products([
        ...catalogueOffers('eurofiber', 'Eurofiber', place),
        ...catalogueOffers('kpn-wba', 'KPN', place),
      ]);
      expect(expected.length).toBe(75);
      expect(request.products.map(comparable).sort()).toEqual(expected);
      // Each names the Sonata source that offered it (issue 49).
      expect(sourcesOf(request.products)).toEqual([
        JSON.stringify(['Eurofiber', eurofiberId, 'Eurofiber via Sonata', 'mef-sonata']),
        JSON.stringify(['KPN', kpnId, 'KPN via Sonata', 'mef-sonata']),
      ]);
      // Each product keeps what ordering it takes, from its own seller's POQ and Quote for this request.
      const installPlace = [exampleInstallPlace, coordinateInstallPlace][index] as Json;
      for (const [sourceId, key, network] of [
        [eurofiberId, 'eurofiber', 'Eurofiber'],
        [kpnId, 'kpn-wba', 'KPN'],
      ] as const) {
        expect(sorted(await storedOffers(server.app.services.db, request.id, sourceId))).toEqual(
          sorted(
            withOrderTerms(
              catalogueOffers(key, network, place),
              answersFor(seller, key, request.id),
              installPlace,
            ),
          ),
        );
      }
      expect(request.sources).toEqual([
        {
          source_id: eurofiberId,
          name: 'Eurofiber via Sonata',
          network: 'Eurofiber',
          status: 'succeeded',
          attempts: 1,
          product_count: 35,
          error: null,
          _document_type: 'availability_request_source',
        },
        {
          source_id: kpnId,
          name: 'KPN via Sonata',
          network: 'KPN',
          status: 'succeeded',
          attempts: 1,
          product_count: 40,
          error: null,
          _document_type: 'availability_request_source',
        },
      ]);
    }
    expect(calls(seller, 'kpn-wba').sort()).toEqual([
      'POST /productOfferingQualification 201',
      'POST /productOfferingQualification 201',
      'POST /quote 201',
      'POST /quote 201',
    ]);
    // One registration for both requests, then creates and retrieves only after notifications.
    const eurofiber = calls(seller, 'eurofiber');
    expect(eurofiber.slice(0, 2)).toEqual(['POST /hub 201', 'POST /hub 201']);
    expect(eurofiber.filter((call) => call.startsWith('POST /hub'))).toHaveLength(2);
    expect(eurofiber.filter((call) => call === 'POST /quote 201')).toHaveLength(2);
    expect(seller.notifications.length).toBeGreaterThan(0);
    expect(
      seller.notifications.every(
        (sent) =>
          sent.status === 204 && sent.url.startsWith(`${server.app.url}/sonata-callbacks/${eurofiberId}/`),
      ),
    ).toBe(true);
    const [stored] = (await storedRows(server.app.services.db, 'sources', { id: eurofiberId })) as Json[];
    expect(stored.hubListeners).toEqual({
      fingerprint: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      poq: expect.any(String),
      quote: expect.any(String),
    });
    expect(sonataProblems(validator, seller)).toEqual([]);
  });

  it('when a notification is forged or replayed to the callback route, then 401 or 204 and the request gains nothing', async () => {
    const created = await admin.api.post('/availability-requests', [contractExampleBatch[0]]);
    const before = await completed(admin, created.body.data[0].id);
    await seller.settled();
    const sent = seller.notifications.at(-1) as { url: string; body: Json };
    const post = (url: string, body: unknown, method = 'POST') =>
      fetch(url, {
        method,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? JSON.stringify(body) : null,
      });
    const token = sent.url.split('/')[5] as string;

    const forged = await post(sent.url.replace(token, `${token.slice(0, -2)}xx`), sent.body);
    const otherSource = await post(sent.url.replace(eurofiberId, kpnId), sent.body);
    const replayed = await post(sent.url, sent.body);
    const wrongMethod = await post(sent.url, null, 'GET');

    expect([forged.status, otherSource.status, replayed.status, wrongMethod.status]).toEqual([
      401, 401, 204, 405,
    ]);
    expect(await forged.json()).toEqual({
      code: 'invalidCredentials',
      reason: 'The notification callback is not authenticated.',
    });
    const after = await admin.api.get(`/availability-requests/${before.id}`);
    expect(after.body.data.products).toEqual(before.products);
  });

  it('when the notifying source leaves the notifications mode, then its listeners are deleted at the seller and forgotten', async () => {
    const before = calls(seller, 'eurofiber').length;

    const updated = await admin.api.graphql(UPDATE, {
      id: eurofiberId,
      sonata: {
        ...graphqlSettings(eurofiberSettings),
        interaction: 'DEFERRED',
        oauth2: { ...eurofiberSettings.oauth2, clientSecret: undefined },
      },
    });

    expect(updated).toEqual({
      data: { updateSonataSource: { source: { sonata: { interaction: 'DEFERRED' } } } },
    });
    expect(calls(seller, 'eurofiber').slice(before)).toEqual([
      'DELETE /hub/{id} 204',
      'DELETE /hub/{id} 204',
    ]);
    const [stored] = (await storedRows(server.app.services.db, 'sources', { id: eurofiberId })) as Json[];
    expect(stored.hubListeners).toBeNull();
    expect(stored.credentials).toBe(eurofiberSettings.oauth2.clientSecret);
  });
  it('when a seller declines part of what was asked, then the source succeeds with its offers and says what was declined', async () => {
    const ziggoId = await registerSonata(
      admin,
      'ziggo',
      'Ziggo',
      sellerSettings(seller, 'ziggo', 'instant', 'instant'),
    );
    await admin.api.graphql(ENABLE, { id: kpnId, enabled: false });
    await admin.api.graphql(ENABLE, { id: eurofiberId, enabled: false });

    const created = await admin.api.post('/availability-requests', [
      {
        address: {
          country_code: 'NL',
          street: 'Buiksloterweg',
          house_number: '5',
          postal_code: '1021 AB',
          city: 'Amsterdam',
        },
      },
    ]);
    const request = await completed(admin, created.body.data[0].id);

    // Amsterdam-Noord has Ziggo's FIBER/SHARED offering, not its other one: those 7 items come back red.
    const place = { countryCode: 'NL', postalCode: '1021AB', city: 'Amsterdam' };
    expect(request.products.map(comparable).sort()).toEqual(
      products(catalogueOffers('ziggo', 'Ziggo', place)),
    );
    expect(request.sources).toEqual([
      {
        source_id: ziggoId,
        name: 'Ziggo via Sonata',
        network: 'Ziggo',
        status: 'succeeded',
        attempts: 1,
        product_count: request.products.length,
        error: {
          code: 'SONATA_PARTLY_DECLINED',
          message: `${request.products.length} offers; declined: 7 not serviceable`,
        },
        _document_type: 'availability_request_source',
      },
    ]);
    const graphql = await admin.api.graphql(
      'query ($id: ID!) { availabilityRequest(id: $id) { sources { status errorCode } } }',
      { id: request.id },
    );
    expect(graphql.data.availabilityRequest.sources).toEqual([
      { status: 'SUCCEEDED', errorCode: 'SONATA_PARTLY_DECLINED' },
    ]);
  });
});

describe('a mef-sonata source in shared mode: an API-only instance and a worker process on one Redis', () => {
  let redis: TestRedis;
  let database: { path: string; remove(): void };
  let seller: SonataSeller;
  let api: TestServer;
  let worker: TestServer;

  beforeAll(async () => {
    redis = await startTestRedis();
    database = tempDatabasePath();
    seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
    api = await startTestServer({
      databasePath: database.path,
      env: { REDIS_URL: redis.url, GATHERING_WORKER: 'off' },
    });
    worker = await startTestServer({
      databasePath: database.path,
      role: 'worker',
      env: { REDIS_URL: redis.url, PUBLIC_BASE_URL: api.app.url },
    });
  });
  afterAll(async () => {
    await api?.close();
    await worker?.close();
    await seller?.stop();
    database?.remove();
    await redis?.stop();
  });

  it('when the seller notifies the API instance, then the worker’s waiting query hears it through Redis and completes the request; disabling the source deletes its listeners', async () => {
    const tenant = await api.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
    await markupPlan(tenant);
    const id = await registerSonata(
      tenant,
      'kpn-wba',
      'KPN',
      sellerSettings(seller, 'kpn-wba', 'notify', 'notifications'),
    );

    const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
    const request = await completed(tenant, created.body.data[0].id);
    await seller.settled();

    const offers = catalogueOffers('kpn-wba', 'KPN', examplePlaces[0] as (typeof examplePlaces)[number]);
    expect(request.products.map(comparable).sort()).toEqual(products(offers));
    expect(request.sources.map((source: Json) => [source.status, source.error])).toEqual([
      ['succeeded', null],
    ]);
    // The worker stored what ordering each product takes.
    expect(sorted(await storedOffers(api.app.services.db, request.id, id))).toEqual(
      sorted(withOrderTerms(offers, answersFor(seller, 'kpn-wba', request.id), exampleInstallPlace)),
    );
    // Waiting in the notifications mode polls nothing: every retrieve followed a notification to the API.
    expect(seller.notifications.length).toBeGreaterThan(0);
    expect(
      seller.notifications.every(
        (sent) => sent.status === 204 && sent.url.startsWith(`${api.app.url}/sonata-callbacks/${id}/`),
      ),
    ).toBe(true);

    const disabled = await tenant.api.graphql(ENABLE, { id, enabled: false });
    expect(disabled).toEqual({ data: { setSourceEnabled: { source: { enabled: false } } } });
    expect(calls(seller, 'kpn-wba').slice(-2)).toEqual(['DELETE /hub/{id} 204', 'DELETE /hub/{id} 204']);
    const [stored] = (await storedRows(api.app.services.db, 'sources', { id })) as Json[];
    expect(stored.hubListeners).toBeNull();
    expect(sonataProblems(validator, seller)).toEqual([]);
  });
});
