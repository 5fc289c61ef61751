import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineGeocoder, createPdokGeocoder } from '../../src/geo/index.js';
import { startTestServer, type TestServer, waitFor } from '../helpers/app.js';

/** A local stand-in for the PDOK Locatieserver `free` endpoint, answering in its documented format. */
function locatieserver(): Promise<{
  url: string;
  queries: URLSearchParams[];
  server: Server;
  failNext: { count: number };
}> {
  const queries: URLSearchParams[] = [];
  const failNext = { count: 0 };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://pdok.test');
    queries.push(url.searchParams);
    if (failNext.count > 0) {
      failNext.count -= 1;
      res.writeHead(503).end();
      return;
    }
    const found =
      url.pathname === '/free' && url.searchParams.get('q') === 'postcode:1016XA and huisnummer:206';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        response: {
          numFound: found ? 1 : 0,
          start: 0,
          maxScore: 17.5,
          docs: found
            ? [
                {
                  type: 'adres',
                  weergavenaam: 'Lijnbaansgracht 206H, 1016XA Amsterdam',
                  woonplaatsnaam: 'Amsterdam',
                  postcode: '1016XA',
                  huisnummer: 206,
                  centroide_ll: 'POINT(4.88012345 52.37198765)',
                },
              ]
            : [],
        },
      }),
    );
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        queries,
        server,
        failNext,
      }),
    ),
  );
}

const address = {
  countryCode: 'NL',
  postalCode: '1016XA',
  houseNumber: '206',
  houseNumberAddition: 'H',
  street: 'Lijnbaansgracht',
  city: 'Amsterdam',
};

describe('PDOK Locatieserver geocoder', () => {
  let pdok: Awaited<ReturnType<typeof locatieserver>>;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    pdok = await locatieserver();
  });
  afterAll(() => new Promise<void>((resolve) => pdok.server.close(() => resolve())));

  const geocoder = () => createPdokGeocoder({ baseUrl: pdok.url, fallback: createOfflineGeocoder(), logger });

  it('when a Dutch address is found, then it answers its own coordinates at address precision', async () => {
    const located = await geocoder().locate(address);

    expect(located).toEqual({
      coordinates: { latitude: 52.37198765, longitude: 4.88012345 },
      precision: 'address',
      city: 'Amsterdam',
    });
    const query = pdok.queries.at(-1);
    expect([query?.get('q'), query?.get('fq'), query?.get('rows')]).toEqual([
      'postcode:1016XA and huisnummer:206',
      'type:adres',
      '1',
    ]);
  });

  it('when the address is unknown to PDOK, then the city centre is used and called city precision', async () => {
    const located = await geocoder().locate({ ...address, houseNumber: '9999' });

    expect(located?.precision).toBe('city');
    expect(located?.coordinates.latitude).toBeCloseTo(52.37, 1);
  });

  it('when PDOK fails, then it falls back to city precision instead of failing', async () => {
    pdok.failNext.count = 1;

    const located = await geocoder().locate(address);

    expect(located?.precision).toBe('city');
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
      ]);
      const ids: string[] = created.body.data.map((entry: { id: string }) => entry.id);

      const records = await Promise.all(
        ids.map((id) =>
          waitFor(
            () =>
              tenant.api.graphql(
                `query ($id: ID!) { availabilityRequest(id: $id) { address { city postalCode coordinatesPrecision coordinates { latitude longitude } } } }`,
                { id },
              ),
            (result) => result.data?.availabilityRequest != null,
          ),
        ),
      );

      const address0 = records[0]?.data.availabilityRequest.address;
      expect(address0).toEqual({
        city: 'Amsterdam',
        postalCode: '1016XA',
        coordinatesPrecision: 'address',
        coordinates: { latitude: 52.37198765, longitude: 4.88012345 },
      });
      expect(records[1]?.data.availabilityRequest.address.coordinatesPrecision).toBe('city');
      expect(records[2]?.data.availabilityRequest.address).toEqual({
        city: 'Amsterdam',
        postalCode: '',
        coordinatesPrecision: 'given',
        coordinates: { latitude: 52.36801, longitude: 4.879151 },
      });
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
