import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { countStoredRows } from '../helpers/store.js';

const element = { address: { country_code: 'NL', postal_code: '1016XA', house_number: '206' } };

describe('Idempotency-Key on REST POSTs', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  const rows = (table: 'availabilityRequests' | 'customers') =>
    countStoredRows(server.app.services.db, table);
  const post = (path: string, body: unknown, key: string) =>
    tenant.api.request('POST', path, { body, headers: { 'idempotency-key': key } });

  it('when the same key and body are sent again, then the first response is replayed and nothing new is written', async () => {
    const before = await rows('availabilityRequests');

    const first = await post('/availability-requests', [element], 'key-replay-1');
    const second = await post('/availability-requests', [element], 'key-replay-1');

    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await rows('availabilityRequests')).toBe(before + 1);
  });

  it('when the same key comes with another body, then it answers 422 and writes nothing', async () => {
    await post('/customers', { name: 'Keyed BV' }, 'key-mismatch-1');
    const before = await rows('customers');

    const other = await post('/customers', { name: 'Other BV' }, 'key-mismatch-1');

    expect(other.status).toBe(422);
    expect(other.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(other.body.errors).toEqual([
      { path: '/headers/idempotency-key', message: 'was used for a different request' },
    ]);
    expect(await rows('customers')).toBe(before);
  });

  it('when 50 requests with one key arrive at once, then exactly one writes and the others get 201 replays or 409', async () => {
    const before = await rows('customers');

    const responses = await Promise.all(
      Array.from({ length: 50 }, () => post('/customers', { name: 'Parallel BV' }, 'key-parallel-1')),
    );

    expect(await rows('customers')).toBe(before + 1);
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    const created = responses.filter((response) => response.status === 201);
    expect(new Set(created.map((response) => response.body.data.id)).size).toBe(1);
    for (const conflict of responses.filter((response) => response.status === 409)) {
      expect(conflict.body.detail).toBe('A request with this Idempotency-Key is still being processed.');
    }
  });

  it('when the first request was refused, then its problem is replayed for the same key', async () => {
    const first = await post('/customers', { name: '' }, 'key-invalid-1');
    const second = await post('/customers', { name: '' }, 'key-invalid-1');

    expect(first.status).toBe(422);
    expect(second.status).toBe(422);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  });

  it('when another instance uses the same key, then it is a different key', async () => {
    const other = await server.tenant();
    await post('/customers', { name: 'Shared key BV' }, 'key-shared-1');

    const response = await other.api.request('POST', '/customers', {
      body: { name: 'Shared key BV' },
      headers: { 'idempotency-key': 'key-shared-1' },
    });

    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
  });

  it('when 24 hours have passed, then the key is forgotten and the request runs again', async () => {
    const fresh = await server.tenant();
    const send = () =>
      fresh.api.request('POST', '/customers', {
        body: { name: 'Expiring BV' },
        headers: { 'idempotency-key': 'key-ttl' },
      });
    const first = await send();
    server.clock.advance(24 * 60 * 60 * 1000 + 1000);
    const signIn = await server.anonymous.post('/authentication', {
      client_id: fresh.clientId,
      client_secret: fresh.clientSecret,
    });
    const again = await fresh.api.withToken(signIn.body.data.auth_token).request('POST', '/customers', {
      body: { name: 'Expiring BV' },
      headers: { 'idempotency-key': 'key-ttl' },
    });

    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data.id).not.toBe(first.body.data.id);
  });
});
