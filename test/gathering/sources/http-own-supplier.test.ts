import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AddressRow, StoredAvailabilityRequestRecord } from '../../../src/db/rows.js';
import { createHttpSource } from '../../../src/gathering/sources/http.js';
import type { TestTenant } from '../../helpers/app.js';
import { failure, settings, storedRequestPerFile } from './http-fixtures.js';

/*
 * The http source against a supplier of the test's own: the request it sends (and the credentials it keeps
 * to itself), the prices it converts, and how redirects, a closed port and a stalled body fail. Its retry,
 * timeout, breaker and concurrency policies are in http.test.ts.
 */

let tenant: TestTenant;
let record: StoredAvailabilityRequestRecord;
const { registerSource, queryFor } = storedRequestPerFile((started) => {
  ({ tenant, record } = started);
});

describe('http source against a supplier of the test’s own', () => {
  interface Received {
    path: string;
    headers: IncomingHttpHeaders;
    body: string;
  }
  let supplier: Server;
  let supplierUrl: string;
  let received: Received[];
  /** `stall`: send the head and the body so far, then never finish it. */
  let answer: (path: string) => {
    status: number;
    headers?: Record<string, string>;
    body: string;
    stall?: boolean;
  };

  beforeAll(async () => {
    supplier = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        const { status, headers, body, stall } = answer(path);
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        if (stall) res.write(body);
        else res.end(body);
      });
    });
    await new Promise<void>((resolve) => supplier.listen(0, '127.0.0.1', resolve));
    supplierUrl = `http://127.0.0.1:${(supplier.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    supplier.closeAllConnections();
    await new Promise<void>((resolve) => supplier.close(() => resolve()));
  });
  beforeEach(() => {
    received = [];
  });

  const offer = (mrc: number, nrc: number) => ({
    network: 'KPN',
    technology_type: 'FIBER',
    connection_type: 'DIA',
    bandwidth: { download: 100_000, upload: 100_000 },
    contract_term: 36,
    mrc,
    nrc,
    currency: 'EUR',
  });
  const answerOffers = (offers: unknown[]) => {
    answer = () => ({ status: 200, body: JSON.stringify({ offers }) });
  };

  it('when the source has credentials, then they are sent as a bearer token with the contract’s request, and GraphQL only says they exist', async () => {
    answerOffers([]);
    const secret = 'sk-live-7f3a9c0d2e1b';
    const withSecret = await registerSource(`${supplierUrl}/availability`, { credentials: secret });
    const without = await registerSource(`${supplierUrl}/availability`);

    await createHttpSource({ settings }).fetchOffers(queryFor(withSecret));
    await createHttpSource({ settings }).fetchOffers(queryFor(without));

    expect(received.map((r) => [r.path, r.headers.authorization, r.headers['content-type']])).toEqual([
      ['/availability', `Bearer ${secret}`, 'application/json'],
      ['/availability', undefined, 'application/json'],
    ]);
    expect(JSON.parse(received[0]?.body ?? '')).toEqual({
      request_id: record.request.id,
      address: {
        country_code: 'NL',
        postal_code: '1016XA',
        house_number: '206',
        house_number_addition: 'H',
        street: record.address.street,
        city: record.address.city,
        // Located at its PC4 area's centre: an approximate place, which suppliers are not sent.
        coordinates: null,
      },
      filters: {
        bandwidths: [],
        networks: [],
        contract_terms: [],
        connection_types: [],
        technology_types: [],
      },
    });
    const listed = await tenant.api.graphql('{ sources { id endpointUrl hasCredentials } }');
    expect(listed.errors).toBeUndefined();
    expect(listed.data.sources).toEqual(
      expect.arrayContaining([
        { id: withSecret.id, endpointUrl: `${supplierUrl}/availability`, hasCredentials: true },
        { id: without.id, endpointUrl: `${supplierUrl}/availability`, hasCredentials: false },
      ]),
    );
    expect(JSON.stringify(listed)).not.toContain(secret);
    const asked = await tenant.api.graphql('{ sources { credentials } }');
    expect(asked.errors?.[0]?.message).toMatch(/Cannot query field "credentials" on type "Source"/);
  });

  it('when the address is located only approximately, then no coordinates are sent; a given or BAG point is', async () => {
    answerOffers([]);
    const source = await registerSource(`${supplierUrl}/availability`);
    const at = (coordinatesPrecision: AddressRow['coordinatesPrecision']) => ({
      ...queryFor(source),
      address: { ...record.address, latitude: 52.37403, longitude: 4.88969, coordinatesPrecision },
    });

    for (const precision of ['given', 'address', 'postal_code_area', 'city'] as const) {
      await createHttpSource({ settings }).fetchOffers(at(precision));
    }

    expect(record.address.coordinatesPrecision).toBe('postal_code_area');
    expect(received.map((r) => JSON.parse(r.body).address.coordinates)).toEqual([
      { latitude: 52.37403, longitude: 4.88969 },
      { latitude: 52.37403, longitude: 4.88969 },
      null,
      null,
    ]);
  });

  it('when offers carry prices in euros with cents, then they become exact integer cents', async () => {
    answerOffers([offer(12.34, 99.9), offer(19.99, 0), { ...offer(0.07, 1250), lead_time_days: 10 }]);
    const source = await registerSource(`${supplierUrl}/availability`);

    const offers = await createHttpSource({ settings }).fetchOffers(queryFor(source));

    const converted = {
      network: 'KPN',
      technologyType: 'FIBER',
      connectionType: 'DIA',
      downloadKbps: 100_000,
      uploadKbps: 100_000,
      contractTermMonths: 36,
      currency: 'EUR',
    };
    expect(offers).toEqual([
      { ...converted, purchaseMrcMinor: 1234, purchaseNrcMinor: 9990 },
      { ...converted, purchaseMrcMinor: 1999, purchaseNrcMinor: 0 },
      { ...converted, purchaseMrcMinor: 7, purchaseNrcMinor: 125_000 },
    ]);
  });

  it('when a price has three decimals, then the answer is INVALID_RESPONSE and nothing is returned', async () => {
    answerOffers([offer(12.34, 0), offer(12.345, 0)]);
    const source = await registerSource(`${supplierUrl}/availability`);

    const result = createHttpSource({ settings }).fetchOffers(queryFor(source));

    await expect(result).rejects.toEqual(
      failure('INVALID_RESPONSE', 'A price has more decimals than EUR allows.'),
    );
    expect(received.length).toBe(1);
  });

  it('when the supplier redirects, then the failure is REDIRECT and the target is never called', async () => {
    answer = (path) =>
      path === '/availability'
        ? { status: 302, headers: { location: `${supplierUrl}/moved` }, body: '' }
        : { status: 200, body: JSON.stringify({ offers: [offer(1, 1)] }) };
    const source = await registerSource(`${supplierUrl}/availability`);

    const result = createHttpSource({ settings }).fetchOffers(queryFor(source));

    await expect(result).rejects.toEqual(
      failure('REDIRECT', 'The source answered 302 (redirects are not followed).'),
    );
    expect(received.map((r) => r.path)).toEqual(['/availability']);
  });

  it('when nothing listens at the endpoint, then the calls fail to connect and it fails with UNREACHABLE', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const source = await registerSource(`http://127.0.0.1:${port}/availability`);

    const result = createHttpSource({ settings }).fetchOffers(queryFor(source));

    await expect(result).rejects.toEqual(failure('UNREACHABLE', 'The source could not be reached.'));
  });

  it('when the supplier sends its head but stalls in the body, then each call is cut off and it fails with TIMEOUT after three calls', async () => {
    answer = () => ({ status: 200, body: '{"offers": [', stall: true });
    const source = await registerSource(`${supplierUrl}/availability`, { timeoutMs: 300 });

    const result = createHttpSource({ settings }).fetchOffers(queryFor(source));

    await expect(result).rejects.toEqual(failure('TIMEOUT', 'The source did not answer in time.'));
    expect(received.length).toBe(3);
  });
});
