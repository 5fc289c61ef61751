import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distanceKm } from '../../src/geo/coordinates.js';
import { geocodeCity } from '../../src/geo/index.js';
import {
  contractExampleBatch,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
} from '../helpers/app.js';

/*
 * Issue 32 on the embedded default (offline geocoder): every precision an address record can have, as a
 * new user sees it over REST and GraphQL.
 */

/** The centre of PC4 1016 (Amsterdam, Grachtengordel-West) as the BAG-derived data give it. */
const PC4_1016 = { latitude: 52.37085601362856, longitude: 4.881551016519783 };

const ADDRESS = `query ($id: ID!) {
  availabilityRequest(id: $id) {
    address { street city postalCode countryCode coordinatesPrecision coordinates { latitude longitude } }
  }
}`;

describe('addresses located on the embedded default', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false });
    tenant = await server.tenant({ demoCatalog: false });
  });
  afterAll(() => server.close());

  /** Creates one request per address and reads each back over REST (`address`) and GraphQL. */
  async function created(addresses: Json[]): Promise<{ rest: Json; graphql: Json }[]> {
    const response = await tenant.api.post(
      '/availability-requests',
      addresses.map((address) => ({ address })),
    );
    expect(response.status).toBe(201);
    return Promise.all(
      response.body.data.map(async ({ id }: { id: string }) => {
        const rest = await tenant.api.get(`/availability-requests/${id}`);
        const graphql = await tenant.api.graphql(ADDRESS, { id });
        expect(graphql.errors).toBeUndefined();
        return { rest: rest.body.data.address, graphql: graphql.data.availabilityRequest.address };
      }),
    );
  }

  it('when a Dutch address is given by postal code and house number only, then it is placed at its PC4 area', async () => {
    const [located] = await created([{ country_code: 'NL', postal_code: '1016 XA', house_number: '1' }]);

    expect(located?.rest).toEqual({
      id: expect.stringMatching(/^adr_/),
      street: '',
      city: '',
      continent_code: 'EU',
      country_code: 'NL',
      postal_code: '1016XA',
      house_number: '1',
      house_number_addition: '',
      coordinates: PC4_1016,
      _document_type: 'address',
    });
    expect(distanceKm(located?.rest.coordinates, PC4_1016)).toBeLessThan(2);
    expect(located?.graphql).toEqual({
      street: '',
      city: '',
      postalCode: '1016XA',
      countryCode: 'NL',
      coordinatesPrecision: 'postal_code_area',
      coordinates: PC4_1016,
    });
  });

  it('when the contract’s example batch is posted, then the fields are placed at their PC4 area and the point stays its own', async () => {
    const [fields, point] = await created(contractExampleBatch.map((element) => element.address));

    expect(fields?.graphql).toEqual({
      street: 'Lijnbaansgracht',
      city: 'Amsterdam',
      postalCode: '1016XA',
      countryCode: 'NL',
      coordinatesPrecision: 'postal_code_area',
      coordinates: PC4_1016,
    });
    expect(fields?.rest.coordinates).toEqual(PC4_1016);
    expect(point?.graphql).toEqual({
      street: '',
      city: 'Amsterdam',
      postalCode: '',
      countryCode: 'NL',
      coordinatesPrecision: 'given',
      coordinates: { latitude: 52.36801, longitude: 4.879151 },
    });
    expect(point?.rest.coordinates).toEqual({ latitude: 52.36801, longitude: 4.879151 });
  });

  it('when the PC4 is unknown or the country has no postal-code data, then the city places it, or nothing does', async () => {
    const [unknownWithCity, unknownAlone, british, belgianUnknown] = await created([
      { country_code: 'NL', postal_code: '1000 AA', house_number: '1', city: 'Amsterdam' },
      { country_code: 'NL', postal_code: '1000 AA', house_number: '1' },
      { country_code: 'GB', postal_code: 'SW1A 1AA', street: 'The Mall', house_number: '1', city: 'London' },
      {
        country_code: 'BE',
        postal_code: '1000',
        street: 'Grote Markt',
        house_number: '1',
        city: 'Nergensdorp',
      },
    ]);

    expect(unknownWithCity?.graphql).toMatchObject({
      coordinatesPrecision: 'city',
      coordinates: geocodeCity('NL', 'Amsterdam')?.coordinates,
    });
    expect(unknownAlone?.graphql).toMatchObject({ coordinatesPrecision: null, coordinates: null });
    expect(unknownAlone?.rest.coordinates).toBeNull();
    expect(british?.graphql).toMatchObject({
      coordinatesPrecision: 'city',
      coordinates: geocodeCity('GB', 'London')?.coordinates,
    });
    expect(belgianUnknown?.graphql).toMatchObject({ coordinatesPrecision: null, coordinates: null });
    expect(belgianUnknown?.rest.coordinates).toBeNull();
  });
});
