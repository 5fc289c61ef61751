import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { countStoredRows, recordStatements, storedRows } from '../helpers/store.js';

/** `count` calls of `make`, all at once. */
const all = <T>(count: number, make: (index: number) => Promise<T>) =>
  Promise.all(Array.from({ length: count }, (_, index) => make(index)));

const address = { country_code: 'NL', postal_code: '1016XA', house_number: '206' };

describe('list totals kept beside the rows (issue 16, item 8)', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let other: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false, env: { EVENT_RELAY: 'off' } });
    tenant = await server.tenant();
    other = await server.tenant({ code: 'OTH' });
  });
  afterAll(() => server.close());

  it('when requests, customers and quotes are created concurrently, then every total is exact and per instance', async () => {
    const customer = await tenant.api.post('/customers', { name: 'Totals B.V.' });
    await all(60, (index) =>
      tenant.api.post('/availability-requests', [
        { address: { ...address, house_number: String(index + 1) } },
        { address: { ...address, house_number: String(index + 101) } },
      ]),
    );
    await all(40, (index) => tenant.api.post('/customers', { name: `Concurrent ${index}` }));
    await all(30, (index) =>
      tenant.api.post('/quotes', { name: `Quote ${index}`, customer_id: customer.body.data.id }),
    );
    await other.api.post('/availability-requests', [{ address }]);

    const requests = await tenant.api.get('/availability-requests?page_size=1');
    const customers = await tenant.api.get('/customers?page_size=1');
    const quotes = await tenant.api.graphql('{ quotes(first: 1) { totalCount } }');
    expect([
      requests.body.pagination.total_items,
      customers.body.pagination.total_items,
      quotes.data.quotes.totalCount,
    ]).toEqual([120, 41, 30]);
    expect((await other.api.get('/availability-requests')).body.pagination.total_items).toBe(1);
    const { db } = server.app.services;
    expect(await countStoredRows(db, 'availabilityRequests', { instanceId: tenant.instanceId })).toBe(120);
    // PostgreSQL spreads a total over slot rows (migration 0005); their sum is the total.
    const kept = (await storedRows(db, 'listTotals', { instanceId: tenant.instanceId })) as {
      list: string;
      total: number;
    }[];
    const totals: Record<string, number> = {};
    for (const row of kept) totals[row.list] = (totals[row.list] ?? 0) + row.total;
    expect(totals).toEqual({ availability_requests: 120, customers: 41, quotes: 30 });
  });

  it('when an unfiltered list page is read, then no statement counts rows; a name filter still counts', async () => {
    const { db } = server.app.services;
    const count = /count\(/i;

    const requests = await recordStatements(db, () => tenant.api.get('/availability-requests'));
    const customers = await recordStatements(db, () => tenant.api.get('/customers'));
    const filtered = await recordStatements(db, () =>
      tenant.api.get('/customers?filter%5Bname%5D=concurrent'),
    );

    expect(requests.result.status).toBe(200);
    expect(requests.sql.filter((statement) => count.test(statement))).toEqual([]);
    expect(customers.sql.filter((statement) => count.test(statement))).toEqual([]);
    expect(filtered.result.body.pagination.total_items).toBe(40);
    expect(filtered.sql.filter((statement) => count.test(statement))).toHaveLength(1);
  });

  it('when a batch is refused, then the total stays as it was', async () => {
    const before = (await tenant.api.get('/availability-requests')).body.pagination.total_items;

    const refused = await tenant.api.post('/availability-requests', [
      { address },
      { address: { ...address, postal_code: 'not a code' } },
    ]);

    expect(refused.status).toBe(422);
    expect((await tenant.api.get('/availability-requests')).body.pagination.total_items).toBe(before);
  });
});
