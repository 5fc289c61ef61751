import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';

describe('GET /availability-requests paging', () => {
  let server: TestServer;
  let tenant: TestTenant;
  let createdIds: string[];

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant();
    createdIds = [];
    // Three batches of ten, so creation times differ between batches and tie within one.
    for (let batch = 0; batch < 3; batch += 1) {
      const body = Array.from({ length: 10 }, (_, index) => ({
        address: { country_code: 'NL', postal_code: '1016XA', house_number: String(batch * 10 + index + 1) },
      }));
      const created = await tenant.api.post('/availability-requests', body);
      createdIds.push(...created.body.data.map((entry: { id: string }) => entry.id));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });
  afterAll(() => server.close());

  it('when 30 requests are read 7 at a time, then there are 5 pages and every id comes exactly once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 5; page += 1) {
      const response = await tenant.api.get(`/availability-requests?page=${page}&page_size=7`);
      expect(response.status).toBe(200);
      expect(response.body.pagination).toEqual({
        page_size: 7,
        current_page: page,
        total_items: 30,
        total_pages: 5,
      });
      expect(response.body.data).toHaveLength(page === 5 ? 2 : 7);
      seen.push(...response.body.data.map((record: { id: string }) => record.id));
    }

    expect(seen).toHaveLength(30);
    expect(new Set(seen)).toEqual(new Set(createdIds));
    const beyond = await tenant.api.get('/availability-requests?page=6&page_size=7');
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination).toEqual({
      page_size: 7,
      current_page: 6,
      total_items: 30,
      total_pages: 5,
    });
  });

  it('when read, then the newest batch comes first and ties are ordered by id descending', async () => {
    const response = await tenant.api.get('/availability-requests?page_size=30');

    const ids = response.body.data.map((record: { id: string }) => record.id);
    const byBatch = [createdIds.slice(20), createdIds.slice(10, 20), createdIds.slice(0, 10)];
    expect(ids).toEqual(byBatch.flatMap((batch) => [...batch].sort().reverse()));
  });

  it('when no page is given, then the defaults are page 1 of size 25', async () => {
    const response = await tenant.api.get('/availability-requests');

    expect(response.body.pagination).toEqual({
      page_size: 25,
      current_page: 1,
      total_items: 30,
      total_pages: 2,
    });
    expect(response.body.data).toHaveLength(25);
  });

  it.each([
    ['page=0', '/page'],
    ['page=abc', '/page'],
    ['page_size=101', '/page_size'],
    ['page_size=0', '/page_size'],
    ['page_size=2.5', '/page_size'],
  ])('when the query is %s, then it answers 422 naming %s', async (query, path) => {
    const response = await tenant.api.get(`/availability-requests?${query}`);

    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([{ path, message: expect.any(String) }]);
  });

  it('when another instance lists, then it sees none of these requests', async () => {
    const other = await server.tenant();

    const response = await other.api.get('/availability-requests');

    expect(response.body.data).toEqual([]);
    expect(response.body.pagination).toEqual({
      page_size: 25,
      current_page: 1,
      total_items: 0,
      total_pages: 0,
    });
  });
});
