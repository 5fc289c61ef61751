import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from 'graphql-ws';
import relayRuntime, {
  type ConcreteRequest,
  type FragmentType,
  type GraphQLResponse,
  type GraphQLSubscriptionConfig,
} from 'relay-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { graphqlLimits } from '../../src/server/graphql-limits.js';
import { type Json, startTestServer, type TestServer, type TestTenant, waitFor } from '../helpers/app.js';
import CustomerCardFragment from './relay/__generated__/CustomerCard_customer.graphql.js';
import CustomerCardRefetchQuery from './relay/__generated__/CustomerCardRefetchQuery.graphql.js';
import CustomerListFragment from './relay/__generated__/CustomerList_query.graphql.js';
import CustomerListPaginationQuery from './relay/__generated__/CustomerListPaginationQuery.graphql.js';
import CustomersPageQuery from './relay/__generated__/CustomersPageQuery.graphql.js';
import ProjectCycleQuery from './relay/__generated__/ProjectCycleQuery.graphql.js';
import RequestAddressFragment from './relay/__generated__/RequestAddress_availabilityRequest.graphql.js';
import RequestProgressSubscription from './relay/__generated__/RequestProgressSubscription.graphql.js';

// relay-runtime is CommonJS whose exports Node cannot list for an ESM named import.
const {
  Environment,
  Network,
  Observable,
  RecordSource,
  Store,
  fetchQuery,
  getSelector,
  requestSubscription,
} = relayRuntime;

const relayDirectory = fileURLToPath(new URL('./relay', import.meta.url));
const relayCompiler = fileURLToPath(new URL('../../node_modules/.bin/relay-compiler', import.meta.url));

/** What the gateway answered to one operation Relay sent: the HTTP status and the parsed body. */
interface Exchange {
  operation: string;
  text: string;
  status: number;
  body: Json;
}

/**
 * A Relay environment whose network layer is the README's ("Front-end clients"): the compiled operation's
 * text and variables POSTed to `/graphql` with the auth token, subscriptions over graphql-ws. Every HTTP
 * exchange is kept for the test; `dispose()` closes the WebSocket.
 */
function relayEnvironment(baseUrl: string, token: string) {
  const exchanges: Exchange[] = [];
  const wsClient = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket, // browsers have their own
    connectionParams: () => ({ authToken: token }),
    retryAttempts: 0,
  });
  const network = Network.create(
    async (params, variables) => {
      const response = await fetch(`${baseUrl}/graphql`, {
        method: 'POST',
        headers: {
          accept: 'application/graphql-response+json, application/json',
          'content-type': 'application/json',
          'x-auth-token': token,
        },
        body: JSON.stringify({ query: params.text, variables }),
      });
      const body = await response.json();
      exchanges.push({ operation: params.name, text: params.text ?? '', status: response.status, body });
      return body as GraphQLResponse;
    },
    (params, variables) =>
      Observable.create<GraphQLResponse>((sink) =>
        wsClient.subscribe(
          { operationName: params.name, query: params.text ?? '', variables },
          {
            next: (value) => sink.next(value as GraphQLResponse),
            error: (error) => sink.error(error instanceof Error ? error : new Error(JSON.stringify(error))),
            complete: () => sink.complete(),
          },
        ),
      ),
  );
  const environment = new Environment({ network, store: new Store(new RecordSource()) });
  /** Reads a fragment from the store as `useFragment` would. */
  const read = <T>(fragment: Parameters<typeof getSelector>[0], ref: unknown): T => {
    const selector = getSelector(fragment, ref as FragmentType);
    if (!selector || !('dataID' in selector)) throw new Error('no singular selector for the fragment');
    return environment.lookup(selector).data as T;
  };
  return { environment, exchanges, read, dispose: () => wsClient.dispose() };
}

interface CustomerListData {
  customers: {
    totalCount: number;
    edges: { node: { id: string } & Record<string, unknown> }[];
  };
}
interface CustomerCardData {
  id: string;
  name: string;
  availabilityRequests: { edges: { node: { id: string } & Record<string, unknown> }[] };
}
interface RequestAddressData {
  id: string;
  status: string;
  networksProgressPercentage: number;
  address: { postalCode: string; city: string; coordinates: { latitude: number; longitude: number } };
}

describe('a Relay front-end (relay-compiler artifacts, relay-runtime)', () => {
  let server: TestServer;
  let tenant: TestTenant;
  /** Customers in creation order, each with one request at the contract's coordinates. */
  const customers: { id: string; name: string; requestId: string }[] = [];

  beforeAll(async () => {
    server = await startTestServer({ startWorker: false });
    tenant = await server.tenant({ roles: ['instance_admin', 'connectivity_check'] });
    for (const name of ['Fragment B.V.', 'Connection B.V.']) {
      const created = await tenant.api.graphql(
        'mutation ($input: CreateCustomerInput!) { createCustomer(input: $input) { customer { id } } }',
        { input: { name } },
      );
      const id: string = created.data.createCustomer.customer.id;
      const requested = await tenant.api.graphql(
        `mutation ($input: [AvailabilityRequestInput!]!) {
          createAvailabilityRequests(input: $input) { availabilityRequests { id } }
        }`,
        {
          input: [{ customerId: id, address: { coordinates: { latitude: 52.36801, longitude: 4.879151 } } }],
        },
      );
      customers.push({
        id,
        name,
        requestId: requested.data.createAvailabilityRequests.availabilityRequests[0].id,
      });
    }
  });
  afterAll(() => server.close());

  it('when the committed artifacts are compared with the sources and schema.graphql, then relay-compiler finds nothing to change', async () => {
    const { stdout } = await promisify(execFile)(relayCompiler, ['--validate'], { cwd: relayDirectory });

    expect(stdout).toContain('Compilation completed.');
  });

  it(`when a page spreads colocated fragments down to a request's coordinates (depth 9 after inlining), then it passes the limit of ${graphqlLimits.maxDepth} and every fragment reads its data`, async () => {
    const relay = relayEnvironment(server.app.url, tenant.api.token ?? '');

    const page = await fetchQuery(relay.environment, CustomersPageQuery as ConcreteRequest, {
      count: 10,
    }).toPromise();

    expect(relay.exchanges.map(({ status, body }) => ({ status, errors: body.errors }))).toEqual([
      { status: 200, errors: undefined },
    ]);
    // The text Relay sent is the colocated one: the query only spreads, and each component is a fragment.
    expect(relay.exchanges[0]?.text).toMatch(
      /^query CustomersPageQuery\([^)]*\) \{\n {2}\.\.\.CustomerList_query_\w+\n\}/,
    );
    expect(relay.exchanges[0]?.text.match(/^fragment \w+ on \w+/gm)).toEqual([
      'fragment CustomerCard_customer on Customer',
      'fragment CustomerList_query_1G22uz on Query',
      'fragment RequestAddress_availabilityRequest on AvailabilityRequest',
    ]);
    const list = relay.read<CustomerListData>(CustomerListFragment, page);
    expect(list.customers.totalCount).toBe(2);
    const cards = list.customers.edges.map(({ node }) =>
      relay.read<CustomerCardData>(CustomerCardFragment, node),
    );
    expect(cards.map(({ id, name }) => ({ id, name }))).toEqual(
      [...customers].reverse().map(({ id, name }) => ({ id, name })),
    );
    const addresses = cards.flatMap((card) =>
      card.availabilityRequests.edges.map(({ node }) =>
        relay.read<RequestAddressData>(RequestAddressFragment, node),
      ),
    );
    expect(addresses).toEqual(
      [...customers].reverse().map(({ requestId }) => ({
        id: requestId,
        status: 'PENDING',
        networksProgressPercentage: 0,
        address: expect.objectContaining({ coordinates: { latitude: 52.36801, longitude: 4.879151 } }),
      })),
    );
  });

  it('when the @connection is paged forwards with the generated pagination query, then the next page comes after the cursor', async () => {
    const relay = relayEnvironment(server.app.url, tenant.api.token ?? '');

    const first = await fetchQuery(relay.environment, CustomerListPaginationQuery as ConcreteRequest, {
      count: 1,
    }).toPromise();
    const firstPage = relay.read<CustomerListData>(CustomerListFragment, first);
    const cursor = relay.exchanges[0]?.body.data.customers.pageInfo.endCursor;
    const second = await fetchQuery(relay.environment, CustomerListPaginationQuery as ConcreteRequest, {
      count: 1,
      cursor,
    }).toPromise();

    expect(relay.exchanges.map(({ status, body }) => ({ status, errors: body.errors }))).toEqual([
      { status: 200, errors: undefined },
      { status: 200, errors: undefined },
    ]);
    expect(relay.exchanges[1]?.body.data.customers.pageInfo.hasNextPage).toBe(false);
    expect(firstPage.customers.edges.map(({ node }) => node.id)).toEqual([customers[1]?.id]);
    // The second page's records are in the store under the same connection fields Relay reads.
    expect(relay.exchanges[1]?.body.data.customers.edges.map(({ node }: Json) => node.id)).toEqual([
      customers[0]?.id,
    ]);
    expect(second).toEqual({
      __id: 'client:root',
      __fragments: { CustomerList_query: { count: 1, cursor } },
      __fragmentOwner: expect.anything(),
    });
  });

  it('when one card is refetched through node(id:), then the generated refetch query returns it with its requests', async () => {
    const relay = relayEnvironment(server.app.url, tenant.api.token ?? '');
    const customer = customers[0];

    const refetched = await fetchQuery(relay.environment, CustomerCardRefetchQuery as ConcreteRequest, {
      id: customer?.id,
    }).toPromise();

    expect(relay.exchanges.map(({ status, body }) => ({ status, errors: body.errors }))).toEqual([
      { status: 200, errors: undefined },
    ]);
    expect(relay.exchanges[0]?.text).toContain('node(id: $id)');
    const card = relay.read<CustomerCardData>(CustomerCardFragment, (refetched as { node: unknown }).node);
    expect({ id: card.id, name: card.name }).toEqual({ id: customer?.id, name: customer?.name });
    expect(card.availabilityRequests.edges.map(({ node }) => node.id)).toEqual([customer?.requestId]);
  });

  it('when a page subscribes to its requests with the compiled subscription, then each update refreshes the fragment in the store', async () => {
    const relay = relayEnvironment(server.app.url, tenant.api.token ?? '');
    const { requestId } = customers[0] ?? { requestId: '' };
    const seen: { id: string; status: string }[] = [];
    try {
      const disposable = requestSubscription(relay.environment, {
        subscription: RequestProgressSubscription as GraphQLSubscriptionConfig<never>['subscription'],
        variables: { ids: [requestId] },
        onNext: (response) => {
          const update = (response as { availabilityRequestUpdated: { id: string; status: string } })
            .availabilityRequestUpdated;
          seen.push({ id: update.id, status: update.status });
        },
      });
      await waitFor(
        () => Promise.resolve(seen),
        (updates) => updates.length > 0,
      );
      disposable.dispose();

      // The server runs no worker: the request's current state is the one update.
      expect(seen).toEqual([{ id: requestId, status: 'PENDING' }]);
      const record = relay.environment.getStore().getSource().get(requestId);
      expect(record).toMatchObject({ id: requestId, status: 'PENDING', networksProgressPercentage: 0 });
    } finally {
      await relay.dispose();
    }
  });

  it(`when fragments follow the schema's cycle customer → projects → customer 13 levels deep, then the depth limit refuses it with 400 before any resolver runs`, async () => {
    const relay = relayEnvironment(server.app.url, tenant.api.token ?? '');

    const outcome = await fetchQuery(relay.environment, ProjectCycleQuery as ConcreteRequest, {
      id: customers[0]?.id,
    })
      .toPromise()
      .then(
        () => 'resolved',
        (error: Error) => error.message,
      );

    expect(outcome).toContain(`Query depth limit of ${graphqlLimits.maxDepth} exceeded, found 13.`);
    expect(relay.exchanges.map(({ status, body }) => ({ status, body }))).toEqual([
      {
        status: 400,
        body: {
          errors: [
            {
              message: `Query depth limit of ${graphqlLimits.maxDepth} exceeded, found 13.`,
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
            },
          ],
        },
      },
    ]);
  });
});
