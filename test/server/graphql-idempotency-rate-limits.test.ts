import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer, type TestTenant } from '../helpers/app.js';
import { countStoredRows } from '../helpers/store.js';

const createCustomer =
  'mutation ($name: String!) { createCustomer(input: { name: $name }) { customer { id name } } }';

async function graphql(tenant: TestTenant, query: string, variables: Record<string, unknown>, key?: string) {
  const response = await fetch(`${tenant.api.baseUrl}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-auth-token': tenant.api.token ?? '',
      ...(key ? { 'idempotency-key': key } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('GraphQL idempotency and rate limits', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_TOKEN: '30', RATE_LIMIT_WINDOW_SECONDS: '60' } });
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  const rows = () => countStoredRows(server.app.services.db, 'customers');

  it('when a mutation is sent twice with one Idempotency-Key, then the first result is replayed and one row is written', async () => {
    const before = await rows();

    const first = await graphql(tenant, createCustomer, { name: 'Idempotent GQL BV' }, 'gql-key-1');
    const second = await graphql(tenant, createCustomer, { name: 'Idempotent GQL BV' }, 'gql-key-1');

    expect(first.body.data.createCustomer.customer.name).toBe('Idempotent GQL BV');
    expect(second.body).toEqual(first.body);
    expect(await rows()).toBe(before + 1);
  });

  it('when the key comes with other variables, then it is BAD_USER_INPUT and nothing is written', async () => {
    await graphql(tenant, createCustomer, { name: 'First GQL BV' }, 'gql-key-2');
    const before = await rows();

    const other = await graphql(tenant, createCustomer, { name: 'Second GQL BV' }, 'gql-key-2');

    expect(other.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(other.body.errors[0].message).toBe('This Idempotency-Key was used for a different request.');
    expect(await rows()).toBe(before);
  });

  it('when a token passes its limit, then GraphQL answers LIMIT_EXCEEDED with 429 and Retry-After', async () => {
    const busy = await server.tenant();
    let last = await graphql(busy, '{ availabilityRequests(first: 1) { totalCount } }', {});
    for (let call = 1; call < 31; call += 1)
      last = await graphql(busy, '{ availabilityRequests(first: 1) { totalCount } }', {});

    expect(last.status).toBe(429);
    expect(last.body.errors[0].extensions.code).toBe('LIMIT_EXCEEDED');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('when a token passes its limit, then a subscription and a query over WebSocket get LIMIT_EXCEEDED and the socket stays open', async () => {
    const busy = await server.tenant();
    for (let call = 0; call < 30; call += 1)
      await graphql(busy, '{ availabilityRequests(first: 1) { totalCount } }', {});
    const closed: number[] = [];
    const client = createClient({
      url: `${busy.api.baseUrl.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authToken: busy.api.token ?? '' },
      retryAttempts: 0,
      on: { closed: (event) => void closed.push((event as { code: number }).code) },
    });
    const outcome = (query: string) =>
      new Promise<unknown>((resolve) => {
        client.subscribe({ query }, { next: resolve, error: resolve, complete: () => resolve('complete') });
      });

    const subscription = await outcome('subscription { availabilityRequestUpdated { id } }');
    const query = await outcome('{ availabilityRequests(first: 1) { totalCount } }');

    for (const errors of [subscription, query]) {
      expect(errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/^Too many requests; try again in \d+ s\.$/),
          extensions: expect.objectContaining({ code: 'LIMIT_EXCEEDED' }),
        }),
      ]);
    }
    expect(closed).toEqual([]);
    await client.dispose();
  });
});
