import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedOffers } from '../../src/gathering/simulator/offers.js';
import { type SupplierSimulator, startSupplierSimulator } from '../../src/gathering/simulator/server.js';
import { demoCatalogPath, readCatalogFile } from '../../src/gathering/sources/catalog-file.js';
import { defaultPolicySettings } from '../../src/gathering/sources/policies.js';
import { type Json, startTestServer, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';

const catalog = readCatalogFile(demoCatalogPath);
const sourceId = expect.stringMatching(/^src_[0-9a-z]{26}$/);
const secret = 'kpn-wba-bearer-2c9e41f7';
const hangTimeoutMs = 400;

/** Six suppliers of the demo catalogue: three answer, one hangs, one always answers 503, one breaks JSON. */
const suppliers: { key: string; mode?: string; timeoutMs?: number; credentials?: string }[] = [
  { key: 'kpn-wba', credentials: secret },
  { key: 'eurofiber' },
  { key: 'colt', mode: 'hang', timeoutMs: hangTimeoutMs },
  { key: 'ziggo', mode: '503' },
  { key: 'tele2', mode: 'malformed' },
  { key: 'kpn-weas' },
];

const sourceFields =
  'id key name network type countryCodes enabled endpointUrl hasCredentials timeoutMs concurrency';
const registerMutation = `mutation Register($input: RegisterSourceInput!) {
  registerSource(input: $input) { source { ${sourceFields} } }
}`;
const enableMutation = `mutation Enable($id: ID!, $enabled: Boolean!) {
  setSourceEnabled(id: $id, enabled: $enabled) { source { key enabled } }
}`;

function catalogSource(key: string) {
  const found = catalog.sources.find((source) => source.key === key);
  if (!found) throw new Error(`no source ${key} in the demo catalogue`);
  return found;
}

/** A product as REST shows it, without its id, so gathered products compare with the simulator's offers. */
const comparable = (offer: Json) =>
  JSON.stringify({
    network: offer.network,
    technology_type: offer.technology_type,
    connection_type: offer.connection_type,
    bandwidth: { download: offer.bandwidth.download, upload: offer.bandwidth.upload },
    contract_term: offer.contract_term,
    mrc: offer.mrc,
    nrc: offer.nrc,
    currency: offer.currency,
  });

/** The simulator's offers of a supplier at 1016XA, in REST product form, sorted. */
function offersAt1016XA(key: string): string[] {
  const offers = simulatedOffers(catalog, key, {
    request_id: 'avr_test',
    address: {
      country_code: 'NL',
      postal_code: '1016XA',
      house_number: '206',
      house_number_addition: '',
      street: '',
      city: 'Amsterdam',
      coordinates: null,
    },
    filters: { bandwidths: [], networks: [], contract_terms: [], connection_types: [], technology_types: [] },
  });
  return offers.map(comparable).sort();
}

describe('gathering from http sources through the whole service', () => {
  let sim: SupplierSimulator;
  let server: TestServer;
  let admin: TestTenant;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    sim = await startSupplierSimulator();
    server = await startTestServer();
    admin = await server.tenant({ demoCatalog: false, roles: ['instance_admin', 'connectivity_check'] });
    for (const supplier of suppliers) {
      const { name, network } = catalogSource(supplier.key);
      const result = await admin.api.graphql(registerMutation, {
        input: {
          key: supplier.key,
          name,
          network,
          countryCodes: ['NL'],
          endpointUrl: sim.endpoint(supplier.key, supplier.mode ? { mode: supplier.mode } : {}),
          ...(supplier.credentials ? { credentials: supplier.credentials } : {}),
          ...(supplier.timeoutMs ? { timeoutMs: supplier.timeoutMs } : {}),
        },
      });
      if (result.errors) throw new Error(`registerSource failed: ${JSON.stringify(result.errors)}`);
      ids.set(supplier.key, result.data.registerSource.source.id);
    }
  });
  afterAll(async () => {
    await server.close();
    await sim.stop();
  });

  const networks = async () => {
    const response = await admin.api.get('/availability-requests/options?country_code=NL');
    expect(response.status).toBe(200);
    return response.body.data.filters.filters.networks;
  };

  it('when six suppliers are registered, then sources lists them with their settings and never a credential', async () => {
    const listed = await admin.api.graphql(`{ sources { ${sourceFields} } }`);

    expect(listed.errors).toBeUndefined();
    expect(listed.data.sources).toEqual(
      ['colt', 'eurofiber', 'kpn-wba', 'kpn-weas', 'tele2', 'ziggo'].map((key) => {
        const supplier = suppliers.find((s) => s.key === key);
        return {
          id: sourceId,
          key,
          name: catalogSource(key).name,
          network: catalogSource(key).network,
          type: 'http',
          countryCodes: ['NL'],
          enabled: true,
          endpointUrl: sim.endpoint(key, supplier?.mode ? { mode: supplier.mode } : {}),
          hasCredentials: key === 'kpn-wba',
          timeoutMs: supplier?.timeoutMs ?? 10_000,
          concurrency: 4,
        };
      }),
    );
    expect(JSON.stringify(listed)).not.toContain(secret);
  });

  it('when one source hangs, one answers 503 and one breaks JSON, then the request completes with the others’ products and three failures', async () => {
    const started = performance.now();
    const created = await admin.api.post('/availability-requests', [
      { address: { country_code: 'NL', postal_code: '1016 XA', house_number: '206' } },
    ]);
    expect(created.status).toBe(201);
    const id: string = created.body.data[0].id;

    const done = await waitFor(
      () => admin.api.get(`/availability-requests/${id}`),
      (response) => response.body.data.status === 'completed',
      30_000,
    );

    // Each failing source gives up within its three attempts and their backoff.
    const bound = 3 * hangTimeoutMs + defaultPolicySettings.maxDelayMs + 5_000;
    expect(performance.now() - started).toBeLessThan(bound);
    const { products, sources, networks_progress_percentage } = done.body.data;
    expect(networks_progress_percentage).toBe('100.00');
    const outcome = (key: string, error: { code: string; message: string } | null) => ({
      source_id: ids.get(key),
      name: catalogSource(key).name,
      network: catalogSource(key).network,
      status: error ? 'failed' : 'succeeded',
      attempts: 1,
      product_count: error ? 0 : offersAt1016XA(key).length,
      error,
      _document_type: 'availability_request_source',
    });
    expect(sources).toEqual([
      outcome('colt', { code: 'TIMEOUT', message: 'The source did not answer in time.' }),
      outcome('eurofiber', null),
      outcome('kpn-wba', null),
      outcome('kpn-weas', null),
      outcome('tele2', { code: 'MALFORMED_RESPONSE', message: 'The source answered with malformed JSON.' }),
      outcome('ziggo', { code: 'UPSTREAM_5XX', message: 'The source answered 503.' }),
    ]);
    // A non-demo instance's default plan adds 0 %, so sale prices equal the suppliers' purchase prices.
    const expected = ['eurofiber', 'kpn-wba', 'kpn-weas'].flatMap(offersAt1016XA).sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(products.map(comparable).sort()).toEqual(expected);
    expect(
      products.every((p: Json) => /^prd_/.test(p.id) && p._document_type === 'availability_request_product'),
    ).toBe(true);
    expect(Object.fromEntries([...sim.stats].map(([key, stats]) => [key, stats.calls]))).toEqual({
      'kpn-wba': 1,
      eurofiber: 1,
      colt: 3,
      ziggo: 3,
      tele2: 1,
      'kpn-weas': 1,
    });

    const graphql = await admin.api.graphql(
      'query ($id: ID!) { availabilityRequest(id: $id) { status sources { name status errorCode } } }',
      { id },
    );
    expect(graphql.data.availabilityRequest.sources.filter((s: Json) => s.status === 'FAILED')).toEqual([
      { name: 'Colt', status: 'FAILED', errorCode: 'TIMEOUT' },
      { name: 'Tele2', status: 'FAILED', errorCode: 'MALFORMED_RESPONSE' },
      { name: 'Ziggo', status: 'FAILED', errorCode: 'UPSTREAM_5XX' },
    ]);
  });

  it('when sources are disabled, then the options’ networks follow the enabled ones', async () => {
    expect(await networks()).toEqual(['Colt', 'Eurofiber', 'KPN', 'Tele2', 'Ziggo']);

    const eurofiber = await admin.api.graphql(enableMutation, { id: ids.get('eurofiber'), enabled: false });
    const weas = await admin.api.graphql(enableMutation, { id: ids.get('kpn-weas'), enabled: false });

    expect(eurofiber).toEqual({
      data: { setSourceEnabled: { source: { key: 'eurofiber', enabled: false } } },
    });
    expect(weas).toEqual({ data: { setSourceEnabled: { source: { key: 'kpn-weas', enabled: false } } } });
    // KPN stays: KPN WBA still offers it.
    expect(await networks()).toEqual(['Colt', 'KPN', 'Tele2', 'Ziggo']);

    await admin.api.graphql(enableMutation, { id: ids.get('eurofiber'), enabled: true });
    await admin.api.graphql(enableMutation, { id: ids.get('kpn-weas'), enabled: true });
    expect(await networks()).toEqual(['Colt', 'Eurofiber', 'KPN', 'Tele2', 'Ziggo']);
  });

  it('when a key is taken, then registerSource answers CONFLICT and adds nothing', async () => {
    const result = await admin.api.graphql(registerMutation, {
      input: { key: 'colt', name: 'Colt again', network: 'Colt', countryCodes: ['NL'], endpointUrl: sim.url },
    });

    expect(result.data).toBeNull();
    expect(result.errors).toEqual([
      expect.objectContaining({
        message: 'A source with key colt exists already.',
        extensions: { code: 'CONFLICT' },
      }),
    ]);
    expect((await admin.api.graphql('{ sources { id } }')).data.sources.length).toBe(6);
  });

  it.each(['not a url', 'ftp://127.0.0.1/availability'])(
    'when the endpoint URL is %j, then registerSource answers BAD_USER_INPUT',
    async (endpointUrl) => {
      const result = await admin.api.graphql(registerMutation, {
        input: { key: 'broken', name: 'Broken', network: 'KPN', countryCodes: ['NL'], endpointUrl },
      });

      expect(result.data).toBeNull();
      expect(result.errors).toEqual([
        expect.objectContaining({
          message: 'The source is invalid.',
          extensions: {
            code: 'BAD_USER_INPUT',
            problems: [{ path: '/endpointUrl', message: 'must be an http(s) URL' }],
          },
        }),
      ]);
    },
  );

  it('when the caller is only a connectivity_check user, then every source operation is FORBIDDEN', async () => {
    const checker = await server.tenant({ demoCatalog: false, roles: ['connectivity_check'] });
    const input = { key: 'x', name: 'X', network: 'X', countryCodes: ['NL'], endpointUrl: sim.url };

    const results = [
      await checker.api.graphql('{ sources { id } }'),
      await checker.api.graphql(registerMutation, { input }),
      await checker.api.graphql(enableMutation, { id: ids.get('colt'), enabled: false }),
    ];

    expect(
      results.map((result) => [result.data, result.errors?.map((e: Json) => e.extensions.code)]),
    ).toEqual([
      [null, ['FORBIDDEN']],
      [null, ['FORBIDDEN']],
      [null, ['FORBIDDEN']],
    ]);
  });

  it('when another instance’s admin toggles this instance’s source, then it is NOT_FOUND and nothing changes', async () => {
    const stranger = await server.tenant({ demoCatalog: false, roles: ['instance_admin'] });

    const result = await stranger.api.graphql(enableMutation, { id: ids.get('colt'), enabled: false });

    expect(result.errors?.map((e: Json) => [e.message, e.extensions.code])).toEqual([
      [`Source "${ids.get('colt')}" was not found.`, 'NOT_FOUND'],
    ]);
    expect(await networks()).toContain('Colt');
  });
});
