import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { countStoredRows } from '../helpers/store.js';

describe('concurrent writes', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false });
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  it('when 1,000 creates arrive at once, then 1,000 requests exist and none failed', async () => {
    const responses = await Promise.all(
      Array.from({ length: 1000 }, (_, index) =>
        tenant.api.post('/availability-requests', [
          { address: { country_code: 'NL', postal_code: '1016XA', house_number: String(index + 1) } },
        ]),
      ),
    );

    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 201));
    const ids = responses.map((response) => response.body.data[0].id);
    expect(new Set(ids).size).toBe(1000);
    expect(await countStoredRows(server.app.services.db, 'availabilityRequests')).toBe(1000);
  });
});
