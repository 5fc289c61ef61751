import { Client, cacheExchange, fetchExchange, gql, subscriptionExchange } from '@urql/core';
import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipe, subscribe } from 'wonka';
import { type Json, startTestServer, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';

const UPDATES = gql`
  subscription Updates {
    availabilityRequestUpdated {
      id
      status
      networksProgressPercentage
    }
  }
`;
const OPTIONS = gql`
  query Options($countryCode: String!) {
    availabilityOptions(countryCode: $countryCode) {
      filters {
        contractTerms
      }
    }
  }
`;

/**
 * The urql client of the README ("Front-end clients"): queries over HTTP, subscriptions over SSE through
 * graphql-sse, both with the auth token.
 */
function urqlClient(baseUrl: string, token: string) {
  const sse = createSseClient({
    url: `${baseUrl}/graphql`,
    headers: () => ({ 'x-auth-token': token }),
    retryAttempts: 0,
  });
  const client = new Client({
    url: `${baseUrl}/graphql`,
    fetchOptions: () => ({ headers: { 'x-auth-token': token } }),
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({
            unsubscribe: sse.subscribe({ ...request, query: request.query ?? '' }, sink),
          }),
        }),
      }),
    ],
  });
  return { client, sse };
}

describe('a urql front-end (HTTP + graphql-sse)', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '0.05' } });
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  const listeners = () => Promise.resolve(server.app.services.events.target.listenerCount);

  it('when it queries and subscribes over SSE, then the query answers and the subscription sees a new request up to COMPLETED 100', async () => {
    const { client, sse } = urqlClient(server.app.url, tenant.api.token ?? '');
    const baseline = await listeners();
    const updates: Json[] = [];
    const { unsubscribe } = pipe(
      client.subscription(UPDATES, {}),
      subscribe((result) => void updates.push(result.data?.availabilityRequestUpdated ?? result.error)),
    );
    try {
      const options = await client.query(OPTIONS, { countryCode: 'NL' }).toPromise();
      await waitFor(listeners, (count) => count === baseline + 1);
      const created = await tenant.api.post('/availability-requests', [
        { address: { coordinates: { latitude: 52.36801, longitude: 4.879151 } } },
      ]);
      const id: string = created.body.data[0].id;
      await waitFor(
        () => Promise.resolve(updates),
        (seen) => seen.some((update) => update.status === 'COMPLETED'),
      );

      expect(options.error).toBeUndefined();
      expect(options.data.availabilityOptions.filters.contractTerms).toEqual([12, 24, 36, 48, 60]);
      expect(updates[0]).toEqual({
        id,
        status: 'PENDING',
        networksProgressPercentage: 0,
      });
      expect(updates.at(-1)).toEqual({
        id,
        status: 'COMPLETED',
        networksProgressPercentage: 100,
      });
    } finally {
      unsubscribe();
      sse.dispose();
    }
    await waitFor(listeners, (count) => count === baseline);
  });

  it('when its token is not valid, then the subscription ends with a network error of status 401', async () => {
    const { client, sse } = urqlClient(server.app.url, 'not-a-token');
    try {
      const result = await client.subscription(UPDATES, {}).toPromise();

      // urql ends the subscription on the error, which aborts the response before its body can be read;
      // graphql-sse's own client reads the body's UNAUTHENTICATED (test/server/graphql-subscription-refusals).
      const networkError = result.error?.networkError as (Error & { response?: Response }) | undefined;
      expect(result.data).toBeUndefined();
      expect(networkError?.message).toBe('Server responded with 401: Unauthorized');
      expect(networkError?.response?.status).toBe(401);
    } finally {
      sse.dispose();
    }
  });
});
