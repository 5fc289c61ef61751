import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import {
  contractExampleBatch,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
} from '../helpers/app.js';
import { type SonataValidator, sonataValidator } from '../helpers/sonata-openapi.js';
import {
  calls,
  comparable,
  completed,
  examplePlaces,
  markupPlan,
  products,
  registerSonata,
} from './sonata-gateway.js';
import {
  apiOf,
  catalogueOffers,
  sellerSettings,
  sonataProblems,
  sorted,
} from './sources/mef-sonata/fixtures.js';
import {
  coordinateInstallPlace,
  exampleInstallPlace,
  sellerAnswers,
  storedOffers,
  withOrderTerms,
} from './sources/mef-sonata/order-terms-fixtures.js';

/*
 * Issue 18, "What it must show", through the whole gateway: a deferred seller that is polled completes the
 * contract's example request with its catalogue at the request's prices; sellers that cannot answer (POQ
 * unableToProvide, an MEF Error422 list, a hang, a refused client secret) are each recorded on the request
 * with their own error code while another source's products arrive intact.
 */

let validator: SonataValidator;
let seller: SonataSeller;
let server: TestServer;

beforeAll(async () => {
  validator = await sonataValidator();
  seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await seller?.stop();
});

/** A tenant with the 25 % / 10 % markup plan as its default. */
async function tenant(): Promise<TestTenant> {
  const created = await server.tenant({
    demoCatalog: false,
    roles: ['instance_admin', 'connectivity_check'],
  });
  await markupPlan(created);
  return created;
}

describe('a deferred Sonata seller through the gateway', () => {
  it('when the contract’s example request is created, then the POQ and the Quote are polled until done and the request gets the seller’s catalogue at its prices', async () => {
    const admin = await tenant();
    const id = await registerSonata(
      admin,
      'eurofiber',
      'Eurofiber',
      sellerSettings(seller, 'eurofiber', 'deferred', 'deferred'),
    );

    const created = await admin.api.post('/availability-requests', contractExampleBatch);
    expect(created.status).toBe(201);
    const requests = [];
    for (const { id: requestId } of created.body.data) requests.push(await completed(admin, requestId));
    await seller.settled();

    for (const [index, request] of requests.entries()) {
      const place = examplePlaces[index] as (typeof examplePlaces)[number];
      const expected = products(catalogueOffers('eurofiber', 'Eurofiber', place));
      expect(expected.length).toBe(35);
      expect(request.products.map(comparable).sort()).toEqual(expected);
      // Each product keeps what ordering it takes: the POQ and Quote the seller answered for this request.
      expect(sorted(await storedOffers(server.app.services.db, request.id, id))).toEqual(
        sorted(
          withOrderTerms(
            catalogueOffers('eurofiber', 'Eurofiber', place),
            sellerAnswers(seller.exchanges, request.id),
            [exampleInstallPlace, coordinateInstallPlace][index] as Json,
          ),
        ),
      );
      expect(request.sources).toEqual([
        {
          source_id: id,
          name: 'Eurofiber via Sonata',
          network: 'Eurofiber',
          status: 'succeeded',
          attempts: 1,
          product_count: 35,
          error: null,
          _document_type: 'availability_request_source',
        },
      ]);
    }
    // Each of the two queries creates a POQ and a Quote, both acknowledged, and reads each until it is done.
    const made = calls(seller, 'eurofiber');
    expect(made.filter((call) => call.startsWith('POST')).sort()).toEqual([
      'POST /productOfferingQualification 201',
      'POST /productOfferingQualification 201',
      'POST /quote 201',
      'POST /quote 201',
    ]);
    const polls = made.filter((call) => call.startsWith('GET'));
    expect(
      polls.filter((call) => call === 'GET /productOfferingQualification/{id} 200').length,
    ).toBeGreaterThanOrEqual(2);
    expect(polls.filter((call) => call === 'GET /quote/{id} 200').length).toBeGreaterThanOrEqual(2);
    expect(polls.length).toBe(made.length - 4);
    const acknowledged = seller.exchanges.filter(
      (exchange) => exchange.path.startsWith('/sonata/eurofiber/') && exchange.method === 'POST',
    );
    expect(
      acknowledged.map((exchange) => [apiOf(exchange.path), (exchange.responseBody as Json).state]).sort(),
    ).toEqual([
      ['poq', 'acknowledged'],
      ['poq', 'acknowledged'],
      ['quote', 'acknowledged'],
      ['quote', 'acknowledged'],
    ]);
    expect(sonataProblems(validator, seller)).toEqual([]);
  });
});

describe('Sonata sellers that cannot answer, beside one that can', () => {
  it('when the example address is asked, then each failing seller is recorded with its own code and the healthy seller’s products are all there', async () => {
    const admin = await tenant();
    const healthy = await registerSonata(
      admin,
      'kpn-wba',
      'KPN',
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant'),
    );
    const unable = await registerSonata(
      admin,
      'eurofiber',
      'Eurofiber',
      sellerSettings(seller, 'eurofiber', 'deferred', 'deferred', { query: { outcome: 'unableToProvide' } }),
    );
    const unprocessable = await registerSonata(
      admin,
      'colt',
      'Colt',
      sellerSettings(seller, 'colt', 'instant', 'instant', { query: { mode: '422' } }),
    );
    const hanging = await registerSonata(
      admin,
      'zayo',
      'Zayo',
      sellerSettings(seller, 'zayo', 'instant', 'instant', { query: { mode: 'hang' } }),
      { timeoutMs: 800 },
    );
    const settings = sellerSettings(seller, 'ziggo', 'instant', 'instant');
    const refused = await registerSonata(admin, 'ziggo', 'Ziggo', {
      ...settings,
      oauth2: { ...settings.oauth2, clientSecret: 'not-the-secret' },
    });

    const created = await admin.api.post('/availability-requests', [contractExampleBatch[0]]);
    const request = await completed(admin, created.body.data[0].id);

    const kpnOffers = catalogueOffers('kpn-wba', 'KPN', examplePlaces[0] as (typeof examplePlaces)[number]);
    expect(request.products.map(comparable).sort()).toEqual(products(kpnOffers));
    const kpnAnswers = sellerAnswers(
      seller.exchanges.filter((exchange) => exchange.path.startsWith('/sonata/kpn-wba/')),
      request.id,
    );
    expect(sorted(await storedOffers(server.app.services.db, request.id, healthy))).toEqual(
      sorted(withOrderTerms(kpnOffers, kpnAnswers, exampleInstallPlace)),
    );
    const outcomes = Object.fromEntries(
      request.sources.map((source: Json) => [
        source.source_id,
        [source.status, source.attempts, source.product_count, source.error?.code ?? null],
      ]),
    );
    expect(outcomes).toEqual({
      [healthy]: ['succeeded', 1, 40, null],
      [unable]: ['failed', 1, 0, 'SONATA_UNABLE_TO_PROVIDE'],
      [unprocessable]: ['failed', 1, 0, 'SONATA_UNPROCESSABLE'],
      [hanging]: ['failed', 1, 0, 'TIMEOUT'],
      [refused]: ['failed', 1, 0, 'SONATA_TOKEN_REFUSED'],
    });
    const messages = Object.fromEntries(
      request.sources.map((source: Json) => [source.source_id, source.error?.message ?? null]),
    );
    expect(messages).toEqual({
      [healthy]: null,
      [unable]: expect.stringMatching(
        /^The seller could not qualify the address within the requested time \(POQ [0-9a-f-]{36} done\.unableToProvide\)\.$/,
      ),
      [unprocessable]: 'The seller answered 422 to the POQ create: otherIssue (Forced by the mode knob.).',
      [hanging]: 'The source did not answer in time.',
      [refused]: 'The token endpoint refused the client credentials (401 invalid_client).',
    });
    // The refused client never reached the seller's API: only its token endpoint saw it.
    expect(calls(seller, 'ziggo')).toEqual([]);
  });
});
