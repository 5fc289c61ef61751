import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SourceRow, StoredAvailabilityRequestRecord } from '../../../src/db/rows.js';
import { simulatedOffers } from '../../../src/gathering/simulator/offers.js';
import { type SupplierSimulator, startSupplierSimulator } from '../../../src/gathering/simulator/server.js';
import { demoCatalogPath, readCatalogFile } from '../../../src/gathering/sources/catalog-file.js';
import { createHttpSource } from '../../../src/gathering/sources/http.js';
import type { PolicySettings } from '../../../src/gathering/sources/policies.js';
import type { SupplierRequest } from '../../../src/gathering/sources/supplier-contract.js';
import { SourceError, type SourceOffer, type SourceQuery } from '../../../src/gathering/sources/types.js';
import { listInstanceSources, registerInstanceSource } from '../../../src/resolvers/operator.js';
import { startTestServer, type TestServer, type TestTenant, waitFor } from '../../helpers/app.js';
import { storedRows } from '../../helpers/store.js';

/** Fast backoff, so only a `Retry-After` can make a retry wait long; a breaker that half-opens quickly. */
const settings: PolicySettings = {
  retries: 2,
  baseDelayMs: 5,
  maxDelayMs: 5_000,
  breakerThreshold: 5,
  halfOpenAfterMs: 300,
  queueSize: 1_000,
};

const catalog = readCatalogFile(demoCatalogPath);
let server: TestServer;
let tenant: TestTenant;
let record: StoredAvailabilityRequestRecord;
let sourceCount = 0;

// The request is created while the instance has no source, so nothing but the test ever calls a supplier.
beforeAll(async () => {
  server = await startTestServer({ startWorker: false });
  tenant = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
  const created = await tenant.api.post('/availability-requests', [
    {
      address: {
        country_code: 'NL',
        postal_code: '1016 XA',
        house_number: '206',
        house_number_addition: 'H',
      },
    },
  ]);
  expect(created.status).toBe(201);
  // A source is given whole rows (as the worker claims them), not what the API shows.
  const { db } = server.app.services;
  const [request] = (await storedRows(db, 'availabilityRequests', {
    id: created.body.data[0].id,
  })) as StoredAvailabilityRequestRecord['request'][];
  if (!request) throw new Error('the request was not stored');
  const [address] = (await storedRows(db, 'addresses', {
    id: request.addressId,
  })) as StoredAvailabilityRequestRecord['address'][];
  if (!address) throw new Error('the address was not stored');
  record = { request, address };
});
afterAll(() => server.close());

/** Registers an http source in the tenant as an operator would and reads its row back. */
async function registerSource(endpointUrl: string, fields: Record<string, unknown> = {}): Promise<SourceRow> {
  sourceCount += 1;
  const { id } = await registerInstanceSource(server.app.services, tenant.instanceId, {
    key: `supplier-${sourceCount}`,
    name: `Supplier ${sourceCount}`,
    network: 'KPN',
    countryCodes: ['NL'],
    endpointUrl,
    timeoutMs: 5_000,
    concurrency: 4,
    ...fields,
  });
  const row = (await listInstanceSources(server.app.services, tenant.instanceId)).find((s) => s.id === id);
  if (!row) throw new Error(`source ${id} was not listed`);
  return row;
}

function queryFor(source: SourceRow): SourceQuery {
  return { source, request: record.request, address: record.address, signal: new AbortController().signal };
}

/** What a source failure looks like once the adapter gave up on it. */
function failure(code: string, message: string | RegExp) {
  return expect.objectContaining({
    name: 'SourceError',
    code,
    message: typeof message === 'string' ? message : expect.stringMatching(message),
    retryable: false,
  });
}

/** The simulator's offers for a supplier at the request's address, as the adapter returns them. */
function expectedOffers(supplierKey: string): SourceOffer[] {
  const asked: SupplierRequest = {
    request_id: record.request.id,
    address: {
      country_code: 'NL',
      postal_code: record.address.postalCode,
      house_number: record.address.houseNumber,
      house_number_addition: record.address.houseNumberAddition,
      street: record.address.street,
      city: record.address.city,
      coordinates: null,
    },
    filters: { bandwidths: [], networks: [], contract_terms: [], connection_types: [], technology_types: [] },
  };
  return simulatedOffers(catalog, supplierKey, asked).map((offer) => ({
    network: offer.network,
    technologyType: offer.technology_type,
    connectionType: offer.connection_type,
    downloadKbps: offer.bandwidth.download,
    uploadKbps: offer.bandwidth.upload,
    contractTermMonths: offer.contract_term,
    // The catalogue holds cents; the simulator divided them by 100.
    purchaseMrcMinor: Math.round(offer.mrc * 100),
    purchaseNrcMinor: Math.round(offer.nrc * 100),
    currency: 'EUR',
  }));
}

describe('http source against the supplier simulator', () => {
  let sim: SupplierSimulator;
  const calls = (key = 'kpn-wba') => sim.stats.get(key)?.calls ?? 0;

  beforeEach(async () => {
    sim = await startSupplierSimulator();
  });
  afterEach(() => sim.stop());

  it('when the supplier answers 503, 503, 200, then it is called exactly three times and its offers come back', async () => {
    const source = await registerSource(sim.endpoint('kpn-wba', { script: '503,503,200' }));

    const offers = await createHttpSource({ settings }).fetchOffers(queryFor(source));

    expect(calls()).toBe(3);
    expect(expectedOffers('kpn-wba').length).toBeGreaterThan(0);
    expect(offers).toEqual(expectedOffers('kpn-wba'));
  });

  it('when the supplier hangs, then each call is cut off at timeoutMs and it fails with TIMEOUT after three calls', async () => {
    const timeoutMs = 300;
    const source = await registerSource(sim.endpoint('kpn-wba', { mode: 'hang' }), { timeoutMs });
    const started = performance.now();

    const result = createHttpSource({ settings }).fetchOffers(queryFor(source));

    await expect(result).rejects.toEqual(failure('TIMEOUT', 'The source did not answer in time.'));
    expect(performance.now() - started).toBeLessThan(3 * timeoutMs + 2 * settings.maxDelayMs + 5_000);
    expect(calls()).toBe(3);
    // Every abandoned call closed its connection: nothing is left hanging at the supplier.
    await waitFor(
      async () => sim.stats.get('kpn-wba')?.inFlight,
      (inFlight) => inFlight === 0,
    );
  });

  // Only timeouts and 5xx are retried: never a 4xx (not even a 429 with Retry-After) nor a broken answer.
  it.each([
    ['400', 'UPSTREAM_4XX', 'The source answered 400.'],
    ['429', 'UPSTREAM_4XX', 'The source answered 429.'],
    ['malformed', 'MALFORMED_RESPONSE', 'The source answered with malformed JSON.'],
    [
      'invalid',
      'INVALID_RESPONSE',
      /^The source’s answer breaks the supplier contract at \/offers\/0\/\w+: /,
    ],
    ['huge', 'RESPONSE_TOO_LARGE', 'The answer exceeds 2097152 bytes.'],
  ] as const)(
    'when the supplier answers %s, then it is called once and fails with %s',
    async (mode, code, message) => {
      const source = await registerSource(sim.endpoint('kpn-wba', { mode, retry_after: '1' }));

      const result = createHttpSource({ settings }).fetchOffers(queryFor(source));

      await expect(result).rejects.toBeInstanceOf(SourceError);
      await expect(result).rejects.toEqual(failure(code, message));
      expect(calls()).toBe(1);
    },
  );

  it('when a 503 carries Retry-After: 1, then the retry waits for it instead of the short backoff', async () => {
    const source = await registerSource(sim.endpoint('kpn-wba', { script: '503,200', retry_after: '1' }));
    const started = performance.now();

    const offers = await createHttpSource({ settings }).fetchOffers(queryFor(source));

    // A behaviour check, not a timing one: with baseDelayMs 5 only the header can explain a 1 s gap.
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    expect(calls()).toBe(2);
    expect(offers).toEqual(expectedOffers('kpn-wba'));
  });

  it('when five calls in a row fail, then the breaker opens: no call until it half-opens, then one trial call', async () => {
    const source = await registerSource(sim.endpoint('kpn-wba', { mode: '400' }));
    const adapter = createHttpSource({ settings });
    for (let n = 1; n <= 5; n += 1) {
      await expect(adapter.fetchOffers(queryFor(source))).rejects.toEqual(
        failure('UPSTREAM_4XX', 'The source answered 400.'),
      );
    }
    expect(calls()).toBe(5);

    const whileOpen = adapter.fetchOffers(queryFor(source));

    await expect(whileOpen).rejects.toEqual(
      failure('CIRCUIT_OPEN', 'The source failed repeatedly; calls to it are paused.'),
    );
    expect(calls()).toBe(5);

    await new Promise((resolve) => setTimeout(resolve, settings.halfOpenAfterMs + 100));
    const trial = adapter.fetchOffers(queryFor(source));
    await expect(trial).rejects.toEqual(failure('UPSTREAM_4XX', 'The source answered 400.'));
    expect(calls()).toBe(6);
    // The trial failed, so the breaker is open again at once.
    await expect(adapter.fetchOffers(queryFor(source))).rejects.toEqual(
      failure('CIRCUIT_OPEN', 'The source failed repeatedly; calls to it are paused.'),
    );
    expect(calls()).toBe(6);
  });

  it('when the half-open trial call succeeds, then the breaker closes and calls flow again', async () => {
    const source = await registerSource(sim.endpoint('kpn-wba', { script: '400,400,400,400,400,200' }));
    const adapter = createHttpSource({ settings });
    for (let n = 1; n <= 5; n += 1) await expect(adapter.fetchOffers(queryFor(source))).rejects.toThrow();
    await expect(adapter.fetchOffers(queryFor(source))).rejects.toEqual(
      failure('CIRCUIT_OPEN', 'The source failed repeatedly; calls to it are paused.'),
    );

    await new Promise((resolve) => setTimeout(resolve, settings.halfOpenAfterMs + 100));
    const trial = await adapter.fetchOffers(queryFor(source));
    const next = await adapter.fetchOffers(queryFor(source));

    expect(trial).toEqual(expectedOffers('kpn-wba'));
    expect(next).toEqual(expectedOffers('kpn-wba'));
    expect(calls()).toBe(7);
  });

  it('when ten calls are made at once to a source of concurrency 2, then never more than two are in flight', async () => {
    const source = await registerSource(sim.endpoint('kpn-wba', { latency: '100' }), { concurrency: 2 });
    const adapter = createHttpSource({ settings });

    const results = await Promise.all(
      Array.from({ length: 10 }, () => adapter.fetchOffers(queryFor(source))),
    );

    expect(results).toEqual(Array.from({ length: 10 }, () => expectedOffers('kpn-wba')));
    expect(sim.stats.get('kpn-wba')).toEqual({ calls: 10, inFlight: 0, maxInFlight: 2 });
  });
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
        coordinates:
          record.address.latitude === null
            ? null
            : { latitude: record.address.latitude, longitude: record.address.longitude },
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
