import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOfflineGeocoder, createPdokGeocoder, postalCodeAreaCentre } from '../../src/geo/index.js';
import { startTestServer, type TestServer, waitFor } from '../helpers/app.js';
import { type Locatieserver, startLocatieserver } from '../helpers/pdok-locatieserver.js';

const address = {
  countryCode: 'NL',
  postalCode: '1016XA',
  houseNumber: '206',
  houseNumberAddition: 'H',
  street: 'Lijnbaansgracht',
  city: 'Amsterdam',
};

describe('PDOK Locatieserver geocoder', () => {
  let pdok: Locatieserver;
  const logger = pino({ level: 'silent' });
  /** The offline answer for the example address: its PC4 area's centre. */
  const pc4_1016 = postalCodeAreaCentre('NL', '1016XA');

  beforeAll(async () => {
    pdok = await startLocatieserver();
  });
  beforeEach(() => {
    pdok.mode = 'answer';
  });
  afterAll(() => pdok.close());

  const geocoder = (timeoutMs?: number) =>
    createPdokGeocoder({ baseUrl: pdok.url, fallback: createOfflineGeocoder(), logger, timeoutMs });

  it('when a Dutch address is found, then it answers its own coordinates at address precision, with its street and place', async () => {
    const located = await geocoder().locate(address);

    expect(located).toEqual({
      coordinates: { latitude: 52.37198765, longitude: 4.88012345 },
      precision: 'address',
      city: 'Amsterdam',
      street: 'Lijnbaansgracht',
    });
    const query = pdok.queries.at(-1);
    expect([query?.get('q'), query?.get('fq'), query?.get('rows'), query?.get('fl')]).toEqual([
      'postcode:1016XA and huisnummer:206',
      'type:adres',
      '1',
      'type centroide_ll straatnaam woonplaatsnaam postcode huisnummer',
    ]);
  });

  it('when the address is unknown to PDOK, then its postal code area’s centre is used and called so', async () => {
    const located = await geocoder().locate({ ...address, houseNumber: '9999' });

    expect(located).toEqual({
      coordinates: pc4_1016,
      precision: 'postal_code_area',
      city: null,
      street: null,
    });
  });

  it('when PDOK fails, then the offline answer stands instead of failing', async () => {
    pdok.mode = 'fail';

    const located = await geocoder().locate(address);

    expect(located).toEqual({
      coordinates: pc4_1016,
      precision: 'postal_code_area',
      city: null,
      street: null,
    });
  });

  it('when PDOK does not answer within the timeout, then the offline answer stands', async () => {
    pdok.mode = 'hang';
    const before = pdok.queries.length;

    const located = await geocoder(200).locate(address);

    expect(pdok.queries.length).toBe(before + 1);
    expect(located).toEqual({
      coordinates: pc4_1016,
      precision: 'postal_code_area',
      city: null,
      street: null,
    });
  });

  it('when the address is not Dutch, then PDOK is not asked', async () => {
    const before = pdok.queries.length;

    const located = await geocoder().locate({
      ...address,
      countryCode: 'GB',
      postalCode: 'WC2N 5BW',
      city: 'London',
    });

    expect(pdok.queries.length).toBe(before);
    expect(located?.precision).toBe('city');
  });

  describe('through the service with GEOCODER=pdok', () => {
    let server: TestServer;

    beforeAll(async () => {
      server = await startTestServer({ env: { GEOCODER: 'pdok', PDOK_LOCATIESERVER_URL: pdok.url } });
    });
    afterAll(() => server.close());

    it('when a field address and a coordinate pair are requested, then each record tells its real precision', async () => {
      const tenant = await server.tenant();
      const created = await tenant.api.post('/availability-requests', [
        { address: { country_code: 'NL', postal_code: '1016 XA', house_number: '206' } },
        { address: { country_code: 'NL', postal_code: '1017AB', house_number: '1', city: 'Amsterdam' } },
        { address: { coordinates: { latitude: 52.36801, longitude: 4.879151 } } },
        {
          address: {
            country_code: 'NL',
            postal_code: '1016XA',
            house_number: '206',
            street: 'Prinsengracht',
          },
        },
      ]);
      const ids: string[] = created.body.data.map((entry: { id: string }) => entry.id);

      const records = await Promise.all(
        ids.map((id) =>
          waitFor(
            () =>
              tenant.api.graphql(
                `query ($id: ID!) { availabilityRequest(id: $id) { address { street city postalCode coordinatesPrecision coordinates { latitude longitude } } } }`,
                { id },
              ),
            (result) => result.data?.availabilityRequest != null,
          ),
        ),
      );

      const [completedByBag, unknownToBag, given, ownStreet] = records.map(
        (record) => record.data.availabilityRequest.address,
      );
      expect(completedByBag).toEqual({
        street: 'Lijnbaansgracht',
        city: 'Amsterdam',
        postalCode: '1016XA',
        coordinatesPrecision: 'address',
        coordinates: { latitude: 52.37198765, longitude: 4.88012345 },
      });
      expect(unknownToBag).toEqual({
        street: '',
        city: 'Amsterdam',
        postalCode: '1017AB',
        coordinatesPrecision: 'postal_code_area',
        coordinates: postalCodeAreaCentre('NL', '1017AB'),
      });
      expect(given).toEqual({
        street: '',
        city: 'Amsterdam',
        postalCode: '',
        coordinatesPrecision: 'given',
        coordinates: { latitude: 52.36801, longitude: 4.879151 },
      });
      // What the caller gave stays as given; only the empty fields are completed.
      expect(ownStreet).toEqual({ ...completedByBag, street: 'Prinsengracht' });
    });
  });
});

describe('configuration', () => {
  it('when GEOCODER=pdok has no Locatieserver URL, then the start is refused naming the variable', async () => {
    const { loadConfig } = await import('../../src/config.js');

    expect(() => loadConfig({ GEOCODER: 'pdok' })).toThrow(
      /PDOK_LOCATIESERVER_URL: is required when GEOCODER=pdok/,
    );
  });
});
