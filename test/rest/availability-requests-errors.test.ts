import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contractExampleBatch,
  type Json,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';
import { countStoredRows } from '../helpers/store.js';

const problemType = 'application/problem+json; charset=utf-8';
const valid = contractExampleBatch[0];

describe('availability requests: bad input is refused and writes nothing', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  const rowCounts = () =>
    Promise.all(
      (['addresses', 'availabilityRequests', 'gatheringTasks'] as const).map((table) =>
        countStoredRows(server.app.services.db, table),
      ),
    );

  const expectRejected = async (
    response: { status: number; headers: Headers; body: Json },
    status: number,
    before: (number | undefined)[],
  ) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe(problemType);
    expect(response.body.status).toBe(status);
    expect(JSON.stringify(response.body)).not.toMatch(/sqlite|stack|at .*\.ts/i);
    expect(await rowCounts()).toEqual(before);
  };

  it('when one element of a batch has a bad postal code, then the batch is refused naming that element', async () => {
    const before = await rowCounts();

    const response = await tenant.api.post('/availability-requests', [
      valid,
      { address: { ...valid.address, postal_code: '1016 xa' } },
    ]);

    await expectRejected(response, 422, before);
    expect(response.body).toEqual({
      type: 'urn:connectivity-gateway:problem:validation',
      title: 'Invalid input',
      status: 422,
      detail: 'The availability requests are invalid; none was created.',
      errors: [{ path: '/1/address/postal_code', message: 'Postal code must match ^\\d{4}[ ]?[A-Z]{2}$' }],
    });
  });

  it('when a required field is missing, then it names it', async () => {
    const before = await rowCounts();

    const response = await tenant.api.post('/availability-requests', [
      { address: { country_code: 'NL', postal_code: '1016XA' } },
    ]);

    await expectRejected(response, 422, before);
    expect(response.body.errors).toEqual([
      { path: '/0/address/house_number', message: 'House number is required in NL' },
    ]);
  });

  it('when a filter value is unknown, then it names the value’s position', async () => {
    const before = await rowCounts();

    const response = await tenant.api.post('/availability-requests', [
      {
        ...valid,
        networks: ['KPN', 'Nonexistent'],
        contract_terms: [7],
        bandwidths: [{ download: 1, upload: 1 }],
      },
    ]);

    await expectRejected(response, 422, before);
    expect(response.body.errors).toEqual([
      { path: '/0/networks/1', message: 'Nonexistent is not an available value of networks' },
      { path: '/0/contract_terms/0', message: '7 is not an available value of contractTerms' },
      { path: '/0/bandwidths/0', message: 'bandwidth 1/1 kbps is not an available value of bandwidths' },
    ]);
  });

  it.each([
    ['an empty array', [], [{ path: '', message: 'must contain at least one availability request' }]],
    [
      'an object',
      { address: valid.address },
      [{ path: '', message: 'must be a JSON array of availability requests' }],
    ],
    [
      'an unknown field',
      [{ ...valid, colour: 'red' }],
      [{ path: '/0/colour', message: 'is not a known field' }],
    ],
    [
      'a camelCase field',
      [{ address: { ...valid.address, postalCode: '1016XA' } }],
      [{ path: '/0/address/postalCode', message: 'is not a known field' }],
    ],
    [
      'coordinates out of range',
      [{ address: { coordinates: { latitude: 91, longitude: 4 } } }],
      [{ path: '/0/address/coordinates/latitude', message: expect.any(String) }],
    ],
    [
      'an unknown customer',
      [{ ...valid, customer_id: 'cus_unknown' }],
      [{ path: '/0/customer_id', message: 'customer was not found' }],
    ],
  ])('when the body is %s, then it answers 422', async (_name, body, errors) => {
    const before = await rowCounts();

    const response = await tenant.api.post('/availability-requests', body);

    await expectRejected(response, 422, before);
    expect(response.body.errors).toEqual(errors);
  });

  it('when the body is not JSON, then it answers 400', async () => {
    const before = await rowCounts();

    const response = await tenant.api.request('POST', '/availability-requests', {
      raw: '[{"address": ',
      headers: { 'content-type': 'application/json' },
    });

    await expectRejected(response, 400, before);
    expect(response.body.detail).toBe('The body is not valid JSON.');
  });

  it('when the body is not sent as JSON, then it answers 415', async () => {
    const before = await rowCounts();

    const response = await tenant.api.request('POST', '/availability-requests', {
      raw: JSON.stringify([valid]),
      headers: { 'content-type': 'text/plain' },
    });

    await expectRejected(response, 415, before);
  });

  it('when the body is over 1 MiB, then it answers 413', async () => {
    const before = await rowCounts();

    const response = await tenant.api.request('POST', '/availability-requests', {
      raw: JSON.stringify([{ address: { ...valid.address, street: 'x'.repeat(1024 * 1024) } }]),
      headers: { 'content-type': 'application/json' },
    });

    await expectRejected(response, 413, before);
  });

  it('when no token is sent, then it answers 401 and creates nothing', async () => {
    const before = await rowCounts();

    const response = await server.anonymous.post('/availability-requests', [valid]);

    await expectRejected(response, 401, before);
  });

  it('when the token has expired, then it answers 401 and creates nothing', async () => {
    const fresh = await server.tenant();
    server.clock.advance(60 * 60 * 1000 + 1);
    const before = await rowCounts();

    const response = await fresh.api.post('/availability-requests', [valid]);

    await expectRejected(response, 401, before);
    expect(response.body.detail).toBe('The auth token is invalid or expired.');
  });

  it('when another instance’s request id is read, then it answers 404 exactly as for an unknown id', async () => {
    const owner = await server.tenant();
    const stranger = await server.tenant();
    const created = await owner.api.post('/availability-requests', [valid]);
    const id = created.body.data[0].id;
    await waitFor(
      () => owner.api.get(`/availability-requests/${id}`),
      (r) => r.body.data.status === 'completed',
    );

    const foreign = await stranger.api.get(`/availability-requests/${id}`);
    const unknown = await stranger.api.get('/availability-requests/avr_01m81c3718e04ss8zkx0k227dm');

    expect(foreign.status).toBe(404);
    expect(foreign.headers.get('content-type')).toBe(problemType);
    expect(foreign.body).toEqual({
      type: 'urn:connectivity-gateway:problem:not-found',
      title: 'Not found',
      status: 404,
      detail: `Availability request "${id}" was not found.`,
    });
    expect(unknown.status).toBe(404);
    expect(Object.keys(unknown.body)).toEqual(Object.keys(foreign.body));
  });

  it('when a path is unknown or the method is wrong, then it answers 404 or 405 with Allow', async () => {
    const missing = await tenant.api.get('/no-such-thing');
    const wrongMethod = await tenant.api.request('DELETE', '/availability-requests');

    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe(problemType);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
  });

  it("when a path fits two patterns (options and :id), then the method picks the route and a wrong one lists both patterns' methods once", async () => {
    const fresh = await server.tenant();
    const options = await fresh.api.get('/availability-requests/options?country_code=NL');
    const wrongMethod = await fresh.api.request('POST', '/availability-requests/options');
    const emptyId = await fresh.api.get('/availability-requests/');

    expect(options.status).toBe(200);
    expect(Object.keys(options.body as object)).toEqual(['data']);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    expect(wrongMethod.body).toMatchObject({
      status: 405,
      detail: 'Use GET on /availability-requests/options.',
    });
    expect(emptyId.status).toBe(404);
  });
});
