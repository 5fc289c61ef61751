import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';

describe('GET /availability-requests/options', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  it('when asked for NL, then it answers the contract shape with the demo catalogue’s values', async () => {
    const response = await tenant.api.get('/availability-requests/options?country_code=NL');

    expect(response.status).toBe(200);
    const { fields, filters } = response.body.data.filters;
    expect(fields.map((field: { key: string }) => field.key)).toEqual([
      'country_code',
      'street',
      'city',
      'house_number',
      'house_number_addition',
      'postal_code',
    ]);
    expect(fields.find((field: { key: string }) => field.key === 'postal_code')).toEqual({
      country_code: 'NL',
      required: true,
      name: 'Postal code',
      key: 'postal_code',
      regex: '^\\d{4}[ ]?[A-Z]{2}$',
    });
    expect(fields.find((field: { key: string }) => field.key === 'house_number')).toEqual({
      country_code: 'NL',
      required: true,
      name: 'House number',
      key: 'house_number',
      regex: '^[0-9]{1,5}$',
    });
    expect(fields.filter((field: { required: boolean }) => field.required).length).toBe(2);
    expect(Object.keys(filters)).toEqual([
      'technology_types',
      'connection_types',
      'networks',
      'bandwidths',
      'contract_terms',
    ]);
    expect(filters.technology_types).toEqual(['ADSL', 'BVDSL', 'COPPER', 'FIBER', 'FTTH', 'VDSL', 'VPLUS']);
    expect(filters.connection_types).toEqual(['DIA', 'SHARED']);
    expect(filters.networks).toEqual(['Colt', 'Eurofiber', 'KPN', 'Tele2', 'Zayo', 'Ziggo']);
    expect(filters.contract_terms).toEqual([12, 24, 36, 48, 60]);
    expect(filters.bandwidths).toContainEqual({ download: 20000, upload: 1000 });
    expect(filters.bandwidths).toContainEqual({ download: 1000000, upload: 1000000 });
    for (const bandwidth of filters.bandwidths) {
      expect(Object.keys(bandwidth)).toEqual(['download', 'upload']);
      expect(Number.isInteger(bandwidth.download) && Number.isInteger(bandwidth.upload)).toBe(true);
    }
  });

  it('when asked for GB, then it answers GB field descriptors and no filter values (no GB source)', async () => {
    const response = await tenant.api.get('/availability-requests/options?country_code=GB');

    expect(response.status).toBe(200);
    const postalCode = response.body.data.filters.fields.find(
      (field: { key: string }) => field.key === 'postal_code',
    );
    expect(postalCode.country_code).toBe('GB');
    expect(postalCode.required).toBe(true);
    expect(new RegExp(postalCode.regex).test('WC2N5BW')).toBe(true);
    expect(response.body.data.filters.filters).toEqual({
      technology_types: [],
      connection_types: [],
      networks: [],
      bandwidths: [],
      contract_terms: [],
    });
  });

  it('when the instance has no source, then NL has descriptors but empty filter values', async () => {
    const bare = await server.tenant({ demoCatalog: false });

    const response = await bare.api.get('/availability-requests/options?country_code=NL');

    expect(response.status).toBe(200);
    expect(response.body.data.filters.fields).toHaveLength(6);
    expect(response.body.data.filters.filters.networks).toEqual([]);
  });

  it.each([
    ['nl', 'must be an ISO 3166-1 alpha-2 code in upper case, e.g. NL'],
    ['NLD', 'must be an ISO 3166-1 alpha-2 code in upper case, e.g. NL'],
    ['XX', 'is not an assigned ISO 3166-1 alpha-2 country code'],
  ])('when the country code is %s, then it answers 422 problem+json', async (code, message) => {
    const response = await tenant.api.get(`/availability-requests/options?country_code=${code}`);

    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(response.body).toEqual({
      type: 'urn:connectivity-gateway:problem:validation',
      title: 'Invalid input',
      status: 422,
      detail: 'The country code is invalid.',
      errors: [{ path: '/country_code', message }],
    });
  });

  it('when the country code is missing, then it answers 422 naming country_code', async () => {
    const response = await tenant.api.get('/availability-requests/options');

    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([{ path: '/country_code', message: expect.any(String) }]);
  });
});
