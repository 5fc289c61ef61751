import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { type Locatieserver, startLocatieserver } from '../helpers/pdok-locatieserver.js';
import { comparable, completed, markupPlan, products, registerSonata } from './sonata-gateway.js';
import { catalogueOffers, sellerSettings, sorted } from './sources/mef-sonata/fixtures.js';
import { sellerAnswers, storedOffers, withOrderTerms } from './sources/mef-sonata/order-terms-fixtures.js';

/*
 * Issue 32, rules 2 and 3 end to end: a Dutch address given by postal code and house number only, a gateway
 * with GEOCODER=pdok (a Locatieserver stand-in on 127.0.0.1) and an instant Sonata seller, which needs a
 * street or an exact point (MEF's FieldedAddress requires streetName and city).
 */

describe('the install place a Sonata seller is asked about, with GEOCODER=pdok', () => {
  let seller: SonataSeller;
  let pdok: Locatieserver;
  let server: TestServer;
  let admin: TestTenant;
  let kpnId: string;

  beforeAll(async () => {
    seller = await startSonataSeller({ behaviour: { stepMs: 20 } });
    pdok = await startLocatieserver();
    server = await startTestServer({ env: { GEOCODER: 'pdok', PDOK_LOCATIESERVER_URL: pdok.url } });
    admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
    await markupPlan(admin);
    kpnId = await registerSonata(
      admin,
      'kpn-wba',
      'KPN',
      sellerSettings(seller, 'kpn-wba', 'instant', 'instant'),
    );
  });
  beforeEach(() => {
    pdok.mode = 'answer';
    seller.exchanges.length = 0;
  });
  afterAll(async () => {
    await server?.close();
    await seller?.stop();
    await pdok?.close();
  });

  const postalCodeAndNumber = { country_code: 'NL', postal_code: '1016 XA', house_number: '206' };

  it('when PDOK completes the street and city, then the seller is asked about that FieldedAddress and answers', async () => {
    const created = await admin.api.post('/availability-requests', [{ address: postalCodeAndNumber }]);
    const request = await completed(admin, created.body.data[0].id);

    const poqs = seller.exchanges.filter((exchange) =>
      exchange.path.endsWith('/productOfferingQualification'),
    );
    expect(poqs).toHaveLength(1);
    const body = poqs[0]?.requestBody as
      | { productOfferingQualificationItem: { product: { place: unknown[] } }[] }
      | undefined;
    const item = body?.productOfferingQualificationItem[0];
    const completedPlace = {
      '@type': 'FieldedAddress',
      role: 'INSTALL_LOCATION',
      streetName: 'Lijnbaansgracht',
      streetNr: '206',
      postcode: '1016XA',
      city: 'Amsterdam',
      country: 'NL',
    };
    expect(item?.product.place).toEqual([completedPlace]);
    expect(request.address).toMatchObject({
      street: 'Lijnbaansgracht',
      city: 'Amsterdam',
      coordinates: { latitude: 52.37198765, longitude: 4.88012345 },
    });
    const offers = catalogueOffers('kpn-wba', 'KPN', {
      countryCode: 'NL',
      postalCode: '1016XA',
      city: 'Amsterdam',
    });
    expect(request.products.map(comparable).sort()).toEqual(products(offers));
    // The products are ordered at the place PDOK completed, as the seller was asked about it.
    expect(sorted(await storedOffers(server.app.services.db, request.id, kpnId))).toEqual(
      sorted(withOrderTerms(offers, sellerAnswers(seller.exchanges, request.id), completedPlace)),
    );
    expect(request.sources).toMatchObject([{ source_id: kpnId, status: 'succeeded', error: null }]);
  });

  for (const mode of ['fail', 'hang'] as const) {
    it(`when PDOK ${mode === 'fail' ? 'fails' : 'does not answer'}, then the address keeps its PC4 centre, the seller is not sent it, and the source records SONATA_NO_LOCATION`, async () => {
      pdok.mode = mode;

      const created = await admin.api.post('/availability-requests', [{ address: postalCodeAndNumber }]);
      const request = await completed(admin, created.body.data[0].id);

      expect(pdok.queries.at(-1)?.get('q')).toBe('postcode:1016XA and huisnummer:206');
      expect(request.address).toMatchObject({
        street: '',
        city: '',
        coordinates: { latitude: 52.37085601362856, longitude: 4.881551016519783 },
      });
      expect(seller.exchanges).toEqual([]);
      expect(request.products).toEqual([]);
      expect(request.sources).toEqual([
        {
          source_id: kpnId,
          name: 'KPN via Sonata',
          network: 'KPN',
          status: 'failed',
          attempts: 1,
          product_count: 0,
          error: {
            code: 'SONATA_NO_LOCATION',
            message: 'The address has neither a street nor exact coordinates to ask the seller about.',
          },
          _document_type: 'availability_request_source',
        },
      ]);
    });
  }
});
