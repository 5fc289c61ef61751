import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  contractExampleBatch,
  startTestServer,
  type TestServer,
  type TestTenant,
  waitFor,
} from '../helpers/app.js';

const timestamp = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
const emptyFilters = {
  contract_terms: [],
  connection_types: [],
  bandwidths: [],
  technology_types: [],
  networks: [],
};

describe('availability requests over REST', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '0.02' } });
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  const read = (id: string) => tenant.api.get(`/availability-requests/${id}`);

  it('when the contract’s example batch is posted, then both requests are created in order and complete', async () => {
    const created = await tenant.api.post('/availability-requests', contractExampleBatch);

    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      data: [{ id: expect.stringMatching(/^avr_/) }, { id: expect.stringMatching(/^avr_/) }],
      message: '2 availability requests created; gathering started.',
    });
    const [fieldsId, coordinatesId] = created.body.data.map((entry: { id: string }) => entry.id);
    const fields = await waitFor(
      () => read(fieldsId),
      (r) => r.body.data.status === 'completed',
    );
    const coordinates = await waitFor(
      () => read(coordinatesId),
      (r) => r.body.data.status === 'completed',
    );

    const { products, sources, ...record } = fields.body.data;
    expect(record).toEqual({
      id: fieldsId,
      address: {
        id: expect.stringMatching(/^adr_/),
        street: 'Lijnbaansgracht',
        city: 'Amsterdam',
        continent_code: 'EU',
        country_code: 'NL',
        postal_code: '1016XA',
        house_number: '206',
        house_number_addition: 'H',
        coordinates: { latitude: expect.closeTo(52.374, 1), longitude: expect.closeTo(4.89, 1) },
        _document_type: 'address',
      },
      created_at: timestamp,
      updated_at: timestamp,
      filters: emptyFilters,
      networks_progress_percentage: '100.00',
      status: 'completed',
      _document_type: 'availability_request',
    });
    expect(fields.body.sse_jwt).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sources.map((source: { name: string }) => source.name)).toEqual([
      'Colt',
      'Eurofiber',
      'KPN WBA',
      'KPN WEAS',
      'Tele2',
      'Zayo',
      'Ziggo',
    ]);
    expect(
      sources.every(
        (source: { status: string; error: null }) => source.status === 'succeeded' && source.error === null,
      ),
    ).toBe(true);
    expect(sources.find((source: { name: string }) => source.name === 'Zayo').product_count).toBe(0);
    expect(products.length).toBe(
      sources.reduce((sum: number, s: { product_count: number }) => sum + s.product_count, 0),
    );
    const colt = sources.find((source: { name: string }) => source.name === 'Colt');
    expect(colt.source_id).toMatch(/^src_[0-9a-z]{26}$/);
    expect(products[0]).toEqual({
      id: expect.stringMatching(/^prd_/),
      source: { id: colt.source_id, name: 'Colt', type: 'catalog', _document_type: 'source' },
      network: 'Colt',
      technology_type: expect.any(String),
      connection_type: expect.any(String),
      bandwidth: { download: expect.any(Number), upload: expect.any(Number) },
      contract_term: expect.any(Number),
      mrc: expect.any(Number),
      nrc: expect.any(Number),
      currency: 'EUR',
      _document_type: 'availability_request_product',
    });
    // Every product names the source that offered it: the source of its network (one per network but KPN).
    const byId = new Map(sources.map((source: { source_id: string }) => [source.source_id, source]));
    for (const product of products) {
      const source = byId.get(product.source.id) as { name: string; network: string };
      expect(product.source).toEqual({
        id: product.source.id,
        name: source.name,
        type: 'catalog',
        _document_type: 'source',
      });
      expect(source.network).toBe(product.network);
    }
    expect(new Set(products.map((p: { network: string }) => p.network))).toEqual(
      new Set(['Colt', 'Eurofiber', 'KPN', 'Tele2', 'Ziggo']),
    );

    expect(coordinates.body.data.address).toEqual({
      id: expect.stringMatching(/^adr_/),
      street: '',
      city: 'Amsterdam',
      continent_code: 'EU',
      country_code: 'NL',
      postal_code: '',
      house_number: '',
      house_number_addition: '',
      coordinates: { latitude: 52.36801, longitude: 4.879151 },
      _document_type: 'address',
    });
    expect(coordinates.body.data.networks_progress_percentage).toBe('100.00');
    expect(coordinates.body.data.products.length).toBeGreaterThan(0);
  });

  it('when a request is filtered on KPN and 36 months, then only such products are gathered', async () => {
    const created = await tenant.api.post('/availability-requests', [
      {
        address: { country_code: 'NL', postal_code: '1016XA', house_number: '206' },
        networks: ['KPN'],
        contract_terms: [36],
      },
    ]);
    const id = created.body.data[0].id;

    const done = await waitFor(
      () => read(id),
      (r) => r.body.data.status === 'completed',
    );

    const { products, sources, filters } = done.body.data;
    expect(filters).toEqual({ ...emptyFilters, networks: ['KPN'], contract_terms: [36] });
    expect(sources.map((source: { name: string }) => source.name)).toEqual(['KPN WBA', 'KPN WEAS']);
    expect(products.length).toBeGreaterThan(0);
    for (const product of products) {
      expect(product.network).toBe('KPN');
      expect(product.contract_term).toBe(36);
    }
  });

  it('when a request is filtered on bandwidth and connection type, then every product matches both', async () => {
    const created = await tenant.api.post('/availability-requests', [
      {
        address: { country_code: 'NL', postal_code: '1016XA', house_number: '1' },
        bandwidths: [{ download: 100000, upload: 100000 }],
        connection_types: ['DIA'],
        technology_types: ['FIBER'],
      },
    ]);

    const done = await waitFor(
      () => read(created.body.data[0].id),
      (r) => r.body.data.status === 'completed',
    );

    expect(done.body.data.products.length).toBeGreaterThan(0);
    for (const product of done.body.data.products) {
      expect([product.bandwidth, product.connection_type, product.technology_type]).toEqual([
        { download: 100000, upload: 100000 },
        'DIA',
        'FIBER',
      ]);
    }
  });

  it('when two addresses lie in different areas, then they get different answers', async () => {
    const created = await tenant.api.post('/availability-requests', [
      { address: { country_code: 'NL', postal_code: '1016XA', house_number: '206' } },
      { address: { country_code: 'NL', postal_code: '7101AA', house_number: '1' } },
    ]);
    const [city, rural] = await Promise.all(
      created.body.data.map(({ id }: { id: string }) =>
        waitFor(
          () => read(id),
          (r) => r.body.data.status === 'completed',
        ),
      ),
    );

    const networks = (r: typeof city) =>
      [...new Set(r.body.data.products.map((p: { network: string }) => p.network))].sort();
    expect(networks(city)).toEqual(['Colt', 'Eurofiber', 'KPN', 'Tele2', 'Ziggo']);
    expect(networks(rural)).toEqual(['KPN', 'Tele2']);
  });
});

describe('when the worker has not started yet', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false, env: { SOURCE_LATENCY_SCALE: '0.2' } });
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  it('then a request is pending at 0.00, then in progress, then completed, and progress never goes back', async () => {
    const created = await tenant.api.post('/availability-requests', [contractExampleBatch[0]]);
    const id = created.body.data[0].id;
    const pending = await tenant.api.get(`/availability-requests/${id}`);
    expect([pending.body.data.status, pending.body.data.networks_progress_percentage]).toEqual([
      'pending',
      '0.00',
    ]);

    server.app.worker.start();
    const seen: [string, string][] = [
      [pending.body.data.status, pending.body.data.networks_progress_percentage],
    ];
    await waitFor(
      async () => {
        const list = await tenant.api.get('/availability-requests');
        const record = list.body.data[0];
        const last = seen.at(-1);
        if (!last || last[0] !== record.status || last[1] !== record.networks_progress_percentage) {
          seen.push([record.status, record.networks_progress_percentage]);
        }
        return record.status;
      },
      (status) => status === 'completed',
    );

    expect(seen[0]).toEqual(['pending', '0.00']);
    expect(seen.at(-1)).toEqual(['completed', '100.00']);
    const inProgress = seen.filter(([status]) => status === 'in_progress');
    expect(inProgress.length).toBeGreaterThan(0);
    const percentages = seen.map(([, percentage]) => Number(percentage));
    expect([...percentages].sort((a, b) => a - b)).toEqual(percentages);
    // 7 matching sources: every value is k/7 rounded to two decimals.
    for (const percentage of percentages) {
      expect(percentage.toFixed(2)).toBe(((Math.round((percentage / 100) * 7) * 10000) / 7 / 100).toFixed(2));
    }
  });
});
