import { createClient as createSseClient, NetworkError } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApplication, createInstance } from '../../src/resolvers/operator.js';
import { type App, startApp } from '../../src/server/app.js';
import {
  ApiClient,
  contractExampleBatch,
  type Json,
  tempDatabasePath,
  testConfig,
  waitFor,
} from '../helpers/app.js';
import { ShiftedClock } from '../helpers/clock.js';

const UPDATES = 'subscription { availabilityRequestUpdated { id status } }';
const unauthenticated = 'Send a valid auth token in the X-Auth-Token header.';
/** The refusal as the GraphQL error body carries it. */
const refusalBody = {
  errors: [
    {
      message: unauthenticated,
      locations: [{ line: 1, column: 16 }],
      path: ['availabilityRequestUpdated'],
      extensions: { code: 'UNAUTHENTICATED' },
    },
  ],
};
const hourMs = 60 * 60 * 1000;

/** What a graphql-sse or graphql-ws sink saw: its results, and how it ended. */
interface SinkRecord {
  results: Json[];
  ended: Promise<{ error: unknown } | 'complete'>;
}

/** A graphql-sse or graphql-ws client, as far as subscribing goes. */
interface SubscribingClient {
  subscribe(
    request: { query: string },
    sink: { next(value: Json): void; error(error: unknown): void; complete(): void },
  ): () => void;
}

/** Subscribes to {@link UPDATES} with `client` and records what its sink sees. */
function recordUpdates(client: SubscribingClient): SinkRecord {
  const results: Json[] = [];
  const ended = new Promise<{ error: unknown } | 'complete'>((resolve) => {
    client.subscribe(
      { query: UPDATES },
      {
        next: (result) => void results.push(result),
        error: (error) => resolve({ error }),
        complete: () => resolve('complete'),
      },
    );
  });
  return { results, ended };
}

describe('subscriptions refused for authentication', () => {
  const database = tempDatabasePath();
  const logLines: Json[] = [];
  const clock = new ShiftedClock();
  let app: App;
  let token: string;

  beforeAll(async () => {
    const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) });
    app = await startApp(testConfig(database.path, { SOURCE_LATENCY_SCALE: '0.05' }), { logger, clock });
    const { instance } = await createInstance(app.services, {
      name: 'Refusals',
      code: 'REF',
      demoCatalog: true,
    });
    const credentials = await createApplication(app.services, {
      instance: instance.id,
      roles: ['connectivity_check'],
    });
    const signIn = await new ApiClient(app.url).post('/authentication', {
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
    });
    token = signIn.body.data.auth_token;
  });
  afterAll(async () => {
    await app.stop();
    database.remove();
  });

  /** Subscribes with graphql-sse's client (distinct connections, no retries) and records what it sees. */
  const sseSubscribe = (headers: Record<string, string>): SinkRecord & { dispose(): void } => {
    const client = createSseClient({ url: `${app.url}/graphql`, headers, retryAttempts: 0 });
    return { ...recordUpdates(client), dispose: () => client.dispose() };
  };

  const errorLines = () => logLines.filter((line) => line.level >= 50);

  it('when graphql-sse subscribes without a token, then the client gets a 401 whose JSON body carries UNAUTHENTICATED, and nothing is logged as an error', async () => {
    const subscription = sseSubscribe({});

    const ended = await subscription.ended;

    expect(ended).not.toBe('complete');
    const { error } = ended as { error: unknown };
    expect(error).toBeInstanceOf(NetworkError);
    const response = (error as NetworkError<Response>).response as Response;
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(await response.json()).toEqual(refusalBody);
    expect(subscription.results).toEqual([]);
    expect(errorLines()).toEqual([]);
    expect(
      logLines.filter((line) => line.msg === 'request completed' && line.route === '/graphql').at(-1),
    ).toMatchObject({
      level: 30,
      res: { statusCode: 401 },
    });
  });

  it('when graphql-sse subscribes with a valid token, then the same client receives the instance’s events', async () => {
    const listeners = () => Promise.resolve(app.services.events.target.listenerCount);
    const baseline = await listeners();
    const subscription = sseSubscribe({ 'x-auth-token': token });
    await waitFor(listeners, (count) => count === baseline + 1);

    const created = await new ApiClient(app.url, token).post('/availability-requests', [
      contractExampleBatch[0],
    ]);
    const id: string = created.body.data[0].id;
    await waitFor(
      () => Promise.resolve(subscription.results),
      (results) => results.some((result) => result.data.availabilityRequestUpdated.status === 'COMPLETED'),
    );
    subscription.dispose();

    expect(subscription.results[0]).toEqual({
      data: { availabilityRequestUpdated: { id, status: 'PENDING' } },
    });
    expect(subscription.results.at(-1)).toEqual({
      data: { availabilityRequestUpdated: { id, status: 'COMPLETED' } },
    });
    await waitFor(listeners, (count) => count === baseline);
  });

  it.each([
    {
      accept: 'application/graphql-response+json',
      contentType: 'application/graphql-response+json; charset=utf-8',
    },
    { accept: 'application/json', contentType: 'application/json; charset=utf-8' },
    { accept: 'text/event-stream', contentType: 'application/graphql-response+json; charset=utf-8' },
  ])(
    'when a subscription over HTTP accepting $accept carries an unknown token, then 401 with the error body as JSON',
    async ({ accept, contentType }) => {
      const response = await fetch(`${app.url}/graphql`, {
        method: 'POST',
        headers: { accept, 'content-type': 'application/json', 'x-auth-token': 'not-a-token' },
        body: JSON.stringify({ query: UPDATES }),
      });

      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe(contentType);
      expect(await response.json()).toEqual(refusalBody);
      expect(errorLines()).toEqual([]);
    },
  );

  it('when a query is made without a token, then it still answers 200 with data null, as the GraphQL-over-HTTP spec has it', async () => {
    const response = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { accept: 'application/graphql-response+json', 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ availabilityRequests(first: 1) { totalCount } }' }),
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      data: null,
      errors: [
        {
          message: unauthenticated,
          locations: [{ line: 1, column: 3 }],
          path: ['availabilityRequests'],
          extensions: { code: 'UNAUTHENTICATED' },
        },
      ],
    });
  });

  it('when a graphql-ws connection’s token expires, then a new subscription gets an error message with UNAUTHENTICATED and the connection stays open', async () => {
    const closeCodes: number[] = [];
    const client = createWsClient({
      url: `${app.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authToken: token },
      retryAttempts: 0,
      on: { closed: (event) => void closeCodes.push((event as { code: number }).code) },
    });
    try {
      // A query first, so the connection is acknowledged while the token is valid.
      const before = await new Promise<Json>((resolve, reject) => {
        client.subscribe(
          { query: '{ __typename }' },
          { next: resolve, error: reject, complete: () => undefined },
        );
      });
      clock.advance(hourMs + 1_000);
      const refused = recordUpdates(client);
      const ended = await refused.ended;
      const after = await new Promise<Json>((resolve, reject) => {
        client.subscribe(
          { query: '{ __typename }' },
          { next: resolve, error: reject, complete: () => undefined },
        );
      });

      expect(before).toEqual({ data: { __typename: 'Query' } });
      expect(ended).toEqual({
        error: [{ message: unauthenticated, extensions: { code: 'UNAUTHENTICATED' } }],
      });
      expect(refused.results).toEqual([]);
      expect(after).toEqual({ data: { __typename: 'Query' } });
      expect(closeCodes).toEqual([]);
      expect(errorLines()).toEqual([]);
    } finally {
      clock.advance(-(hourMs + 1_000));
      await client.dispose();
    }
  });
});
