import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Json, startTestServer, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';

const REQUEST_FIELDS = gql`
  fragment RequestFields on AvailabilityRequest {
    id
    status
    networksProgressPercentage
  }
`;
const CREATE = gql`
  mutation Create($input: [AvailabilityRequestInput!]!) {
    createAvailabilityRequests(input: $input) {
      availabilityRequests {
        ...RequestFields
      }
    }
  }
  ${REQUEST_FIELDS}
`;
const LIST = gql`
  query List {
    availabilityRequests(first: 10) {
      totalCount
      edges {
        node {
          ...RequestFields
        }
      }
    }
  }
  ${REQUEST_FIELDS}
`;
const UPDATES = gql`
  subscription Updates($ids: [ID!]) {
    availabilityRequestUpdated(ids: $ids) {
      ...RequestFields
    }
  }
  ${REQUEST_FIELDS}
`;

/**
 * The Apollo Client of the README ("Front-end clients"): queries and mutations over HTTP, subscriptions
 * over graphql-ws, both with the auth token.
 */
function apolloClient(baseUrl: string, token: string) {
  const wsClient = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket, // browsers have their own
    connectionParams: () => ({ authToken: token }),
    retryAttempts: 0,
  });
  const http = new HttpLink({ uri: `${baseUrl}/graphql`, headers: { 'x-auth-token': token } });
  const isSubscription = ({ query }: ApolloLink.Operation) => {
    const definition = getMainDefinition(query);
    return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
  };
  const client = new ApolloClient({
    link: ApolloLink.split(isSubscription, new GraphQLWsLink(wsClient), http),
    cache: new InMemoryCache(),
  });
  return { client, wsClient };
}

interface RequestFields {
  id: string;
  status: string;
  networksProgressPercentage: number;
}

describe('an Apollo Client 4 front-end (HTTP + graphql-ws)', () => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer({ env: { SOURCE_LATENCY_SCALE: '0.05' } });
    tenant = await server.tenant();
  });
  afterAll(() => server.close());

  it('when it creates a request, subscribes to it and reads the list, then each answer has the fragment’s fields and the subscription ends at COMPLETED 100', async () => {
    const { client, wsClient } = apolloClient(server.app.url, tenant.api.token ?? '');
    try {
      const created = await client.mutate<{
        createAvailabilityRequests: { availabilityRequests: RequestFields[] };
      }>({
        mutation: CREATE,
        variables: { input: [{ address: { coordinates: { latitude: 52.36801, longitude: 4.879151 } } }] },
      });
      const request = created.data?.createAvailabilityRequests.availabilityRequests[0];
      const updates: RequestFields[] = [];
      const subscription = client
        .subscribe<{ availabilityRequestUpdated: RequestFields }>({
          query: UPDATES,
          variables: { ids: [request?.id] },
        })
        .subscribe({ next: ({ data }) => data && updates.push(data.availabilityRequestUpdated) });
      await waitFor(
        () => Promise.resolve(updates),
        (seen) => seen.some((update) => update.status === 'COMPLETED'),
      );
      subscription.unsubscribe();
      const list = await client.query<Json>({ query: LIST, fetchPolicy: 'network-only' });

      expect(created.error).toBeUndefined();
      expect(request).toEqual({
        __typename: 'AvailabilityRequest',
        id: expect.stringMatching(/^avr_/),
        status: 'PENDING',
        networksProgressPercentage: 0,
      });
      expect(updates.at(-1)).toEqual({
        __typename: 'AvailabilityRequest',
        id: request?.id,
        status: 'COMPLETED',
        networksProgressPercentage: 100,
      });
      expect(list.data.availabilityRequests.edges.map(({ node }: Json) => node)).toEqual([
        {
          __typename: 'AvailabilityRequest',
          id: request?.id,
          status: 'COMPLETED',
          networksProgressPercentage: 100,
        },
      ]);
    } finally {
      await wsClient.dispose();
      client.stop();
    }
  });

  it('when its token is not valid, then the query shows UNAUTHENTICATED and the subscription’s socket closes with 4403', async () => {
    const { client, wsClient } = apolloClient(server.app.url, 'not-a-token');
    try {
      const listed = await client.query({ query: LIST, errorPolicy: 'all' });
      const ended = await new Promise<unknown>((resolve) => {
        client.subscribe({ query: UPDATES }).subscribe({ next: resolve, error: resolve });
      });

      expect(listed.error?.message).toBe('Send a valid auth token in the X-Auth-Token header.');
      expect((listed.error as Json)?.errors?.map((error: Json) => error.extensions.code)).toEqual([
        'UNAUTHENTICATED',
      ]);
      expect((ended as Json).error.message).toBe('Socket closed with event 4403 Forbidden');
    } finally {
      await wsClient.dispose();
      client.stop();
    }
  });
});
