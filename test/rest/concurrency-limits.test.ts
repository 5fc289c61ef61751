import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/app.js';
import { countStoredRows, storedRows } from '../helpers/store.js';

const problemType = 'application/problem+json; charset=utf-8';
const address = { country_code: 'NL', postal_code: '1016XA', house_number: '206' };

/** Runs `count` calls of `call` at once and answers their responses in call order. */
const all = <T>(count: number, call: (index: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, index) => call(index)));

describe('concurrent writes against per-customer and per-instance counters', () => {
  let server: TestServer;

  beforeAll(async () => {
    // Gathering is not under test: without a worker the store serves only the creates.
    server = await startTestServer({ startWorker: false });
  });
  afterAll(() => server.close());

  it('when 200 single-element creates for a customer with a monthly limit of 50 arrive at once, then exactly 50 get 201, 150 get 429 and 50 are stored', async () => {
    const tenant = await server.tenant();
    const customer = await tenant.api.post('/customers', {
      name: 'Capped B.V.',
      monthly_availability_request_limit: 50,
    });
    expect(customer.status).toBe(201);
    const customerId: string = customer.body.data.id;

    const responses = await all(200, () =>
      tenant.api.post('/availability-requests', [{ address, customer_id: customerId }]),
    );

    const created = responses.filter((response) => response.status === 201);
    const refused = responses.filter((response) => response.status === 429);
    expect([created.length, refused.length]).toEqual([50, 150]);
    // The limit is checked inside the write transaction, so every refusal saw all 50 already stored.
    for (const refusal of refused) {
      expect(refusal.headers.get('content-type')).toBe(problemType);
      expect(refusal.body).toEqual({
        type: 'urn:connectivity-gateway:problem:limit-exceeded',
        title: 'Limit exceeded',
        status: 429,
        detail:
          'Customer "Capped B.V." may have 50 availability requests per calendar month (UTC); ' +
          '0 remain this month and this call asks for 1. Nothing was created.',
      });
    }
    const createdIds = created.map((response) => response.body.data[0].id as string).sort();
    expect(new Set(createdIds).size).toBe(50);
    const { db } = server.app.services;
    expect(await countStoredRows(db, 'availabilityRequests', { customerId })).toBe(50);
    const stored = (await storedRows(db, 'availabilityRequests', { customerId })) as { id: string }[];
    expect(stored.map((row) => row.id).sort()).toEqual(createdIds);
  });

  it('when 100 quotes for one instance are created at once, then all get 201 with 100 distinct consecutive quote numbers', async () => {
    const tenant = await server.tenant({ code: 'CQN' });
    const customer = await tenant.api.post('/customers', { name: 'Quoted B.V.' });
    expect(customer.status).toBe(201);
    const year = server.clock.now().getUTCFullYear();

    const responses = await all(100, (index) =>
      tenant.api.post('/quotes', { name: `Quote ${index + 1}`, customer_id: customer.body.data.id }),
    );

    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 201));
    const numbers = responses.map((response) => response.body.data.quote_number as string).sort();
    // Sequences start at 1 per instance and year: 2026-0001-CQN … 2026-0100-CQN, none missing or repeated.
    expect(numbers).toEqual(
      Array.from({ length: 100 }, (_, index) => `${year}-${String(index + 1).padStart(4, '0')}-CQN`),
    );
    expect(await countStoredRows(server.app.services.db, 'quotes', { instanceId: tenant.instanceId })).toBe(
      100,
    );
  });
});
