import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErrorCode, errorCodes } from '../../src/errors.js';
import {
  IDEMPOTENCY_CLAIM_MS,
  IDEMPOTENCY_TTL_MS,
  idempotencyFingerprint,
} from '../../src/http/idempotency.js';
import { AUTH_TOKEN_TTL_MS } from '../../src/resolvers/authentication.js';
import {
  type ApiClient,
  type Json,
  type JsonResponse,
  startTestServer,
  type TestServer,
  type TestTenant,
} from '../helpers/app.js';
import { countStoredRows, executeSql } from '../helpers/store.js';

/** A refusal in the terms REST's problems and GraphQL's errors share. */
interface Refusal {
  status: number;
  code: string;
  message: string;
  paths: string[];
}

/** One way in: how it creates a customer, and how its answers read. */
interface Entry {
  name: string;
  /** The status of a customer created. */
  createdStatus: number;
  create(api: ApiClient, name: string, headers: Record<string, string>): Promise<JsonResponse>;
  /** The id of the customer an answer created, if it did. */
  createdId(response: JsonResponse): string | undefined;
  refusal(response: JsonResponse): Refusal;
  /** How the entry names an error code. */
  code(code: ErrorCode): string;
  /** The fingerprint the rule gives this entry's request for `name`. */
  fingerprint(name: string): string;
}

const createCustomer =
  'mutation ($name: String!) { createCustomer(input: { name: $name }) { customer { id name } } }';

const rest: Entry = {
  name: 'REST',
  createdStatus: 201,
  create: (api, name, headers) => api.request('POST', '/customers', { body: { name }, headers }),
  createdId: (response) => (response.status === 201 ? response.body.data.id : undefined),
  refusal: ({ status, body }) => ({
    status,
    code: body.type,
    message: body.detail,
    paths: (body.errors ?? []).map((problem: Json) => problem.path),
  }),
  code: (code) => `urn:connectivity-gateway:problem:${code.toLowerCase().replaceAll('_', '-')}`,
  fingerprint: (name) => idempotencyFingerprint(['POST', '/customers'], { name }),
};

const graphql: Entry = {
  name: 'GraphQL',
  createdStatus: 200,
  create: (api, name, headers) =>
    api.request('POST', '/graphql', { body: { query: createCustomer, variables: { name } }, headers }),
  createdId: (response) => response.body.data?.createCustomer?.customer?.id,
  refusal: ({ status, body }) => ({
    status,
    code: body.errors[0].extensions.code,
    message: body.errors[0].message,
    paths: (body.errors[0].extensions.problems ?? []).map((problem: Json) => problem.path),
  }),
  code: (code) => errorCodes[code].graphql,
  fingerprint: (name) => idempotencyFingerprint([createCustomer, null], { name }),
};

const entries = [rest, graphql];

describe.each(entries)('Idempotency-Key through $name', (entry) => {
  let server: TestServer;
  let tenant: TestTenant;

  beforeAll(async () => {
    server = await startTestServer();
    tenant = await server.tenant({ demoCatalog: false });
  });
  afterAll(() => server.close());

  const customers = () => countStoredRows(server.app.services.db, 'customers');
  const send = (name: string, key: string, api: ApiClient = tenant.api) =>
    entry.create(api, name, { 'idempotency-key': key });

  it('when a create is sent again with its key, then the first answer comes back marked replayed and nothing new is created', async () => {
    const before = await customers();

    const first = await send('Once BV', `${entry.name}-once`);
    const again = await send('Once BV', `${entry.name}-once`);

    expect(first.status).toBe(entry.createdStatus);
    expect(entry.createdId(first)).toEqual(expect.any(String));
    expect([again.status, again.body]).toEqual([first.status, first.body]);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await customers()).toBe(before + 1);
  });

  it('when the key comes with another request, then it answers 422 and creates nothing', async () => {
    await send('First BV', `${entry.name}-reused`);
    const before = await customers();

    const other = await send('Second BV', `${entry.name}-reused`);

    expect(entry.refusal(other)).toEqual({
      status: 422,
      code: entry.code('VALIDATION'),
      message: 'This Idempotency-Key was used for a different request.',
      paths: ['/headers/idempotency-key'],
    });
    expect(await customers()).toBe(before);
  });

  it('when the key is 256 characters, then it answers 422 and creates nothing', async () => {
    const before = await customers();

    const refused = await send('Long key BV', 'k'.repeat(256));

    expect(entry.refusal(refused)).toEqual({
      status: 422,
      code: entry.code('VALIDATION'),
      message: 'Idempotency-Key must be 1–255 visible ASCII characters.',
      paths: ['/headers/idempotency-key'],
    });
    expect(await customers()).toBe(before);
  });

  it('when the key is 255 visible characters, then the create runs', async () => {
    const created = await send('Longest key BV', `${entry.name}-~!`.padEnd(255, 'k'));

    expect(created.status).toBe(entry.createdStatus);
    expect(entry.createdId(created)).toEqual(expect.any(String));
  });

  it('when the key holds a space, then it answers 422', async () => {
    const refused = await send('Spaced key BV', `${entry.name} spaced`);

    expect(entry.refusal(refused).paths).toEqual(['/headers/idempotency-key']);
  });

  it('when the first answer was an expected error, then the same request gets it again, marked replayed', async () => {
    const first = await send('', `${entry.name}-invalid`);
    const again = await send('', `${entry.name}-invalid`);

    expect(entry.refusal(first).code).toBe(entry.code('VALIDATION'));
    expect([again.status, again.body]).toEqual([first.status, first.body]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it.each([
    ['an unknown token', 'not-a-token', 'The auth token is invalid or expired.'],
    ['no token', null, 'Send a valid auth token in the X-Auth-Token header.'],
  ])(
    'when a create with a key comes with %s, then it answers 401 UNAUTHENTICATED and creates nothing',
    async (_, token, message) => {
      const before = await customers();

      const refused = await send('Unsigned BV', `${entry.name}-unsigned`, tenant.api.withToken(token));

      expect(entry.refusal(refused)).toEqual({
        status: 401,
        code: entry.code('UNAUTHENTICATED'),
        message,
        paths: [],
      });
      expect(await customers()).toBe(before);
    },
  );

  it('when the first request with the key is still running, then it answers 409 CONFLICT and creates nothing', async () => {
    const key = `${entry.name}-running`;
    await server.app.services.db.claimIdempotencyKey({
      instanceId: tenant.instanceId,
      key,
      requestHash: entry.fingerprint('Running BV'),
      now: server.clock.now(),
      ttlMs: IDEMPOTENCY_TTL_MS,
    });
    const before = await customers();

    const refused = await send('Running BV', key);

    expect(entry.refusal(refused)).toEqual({
      status: 409,
      code: entry.code('CONFLICT'),
      message: 'A request with this Idempotency-Key is still being processed.',
      paths: [],
    });
    expect(await customers()).toBe(before);
  });

  it('when the first request with the key never finished (its process died, or the store was down as it ended), then its claim holds the key 5 minutes and no longer', async () => {
    const key = `${entry.name}-abandoned`;
    await server.app.services.db.claimIdempotencyKey({
      instanceId: tenant.instanceId,
      key,
      requestHash: entry.fingerprint('Abandoned BV'),
      now: server.clock.now(),
      ttlMs: IDEMPOTENCY_CLAIM_MS,
    });

    const held = await send('Abandoned BV', key);
    server.clock.advance(IDEMPOTENCY_CLAIM_MS);
    const taken = await send('Abandoned BV', key);

    expect(entry.refusal(held).status).toBe(409);
    expect(taken.status).toBe(entry.createdStatus);
    expect(entry.createdId(taken)).toMatch(/^cus_/);
  });

  it('when 20 creates with one key arrive at once, then one creates and the others are its replays or 409', async () => {
    const before = await customers();

    const answers = await Promise.all(
      Array.from({ length: 20 }, () => send('Parallel BV', `${entry.name}-parallel`)),
    );

    expect(await customers()).toBe(before + 1);
    const created = answers.filter((answer) => answer.status === entry.createdStatus);
    expect(new Set(created.map((answer) => entry.createdId(answer))).size).toBe(1);
    for (const refused of answers.filter((answer) => answer.status !== entry.createdStatus)) {
      expect(entry.refusal(refused).status).toBe(409);
    }
  });

  it('when the create fails with a server error, then the key is freed and a retry with it creates', async () => {
    const { db } = server.app.services;
    const key = `${entry.name}-retried`;
    await executeSql(db, 'ALTER TABLE customers RENAME TO customers_away');
    let failed: JsonResponse;
    try {
      failed = await send('Retried BV', key);
    } finally {
      await executeSql(db, 'ALTER TABLE customers_away RENAME TO customers');
    }
    const before = await customers();

    const retried = await send('Retried BV', key);

    expect(entry.createdId(failed)).toBeUndefined();
    expect(entry.refusal(failed).code).toBe(entry.code('INTERNAL'));
    expect(retried.status).toBe(entry.createdStatus);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await customers()).toBe(before + 1);
  });

  it('when the key was used by the other entry, then it answers 422: one key stands for one request', async () => {
    const other = entries.find((candidate) => candidate !== entry) as Entry;
    await other.create(tenant.api, 'Crossed BV', { 'idempotency-key': `${entry.name}-crossed` });

    const refused = await send('Crossed BV', `${entry.name}-crossed`);

    expect(entry.refusal(refused).message).toBe('This Idempotency-Key was used for a different request.');
  });
});

describe.each(entries)('Idempotency-Key through $name with an expired token', (entry) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('when a create with a key comes with an expired token, then it answers 401 UNAUTHENTICATED and creates nothing', async () => {
    const tenant = await server.tenant({ demoCatalog: false });
    const before = await countStoredRows(server.app.services.db, 'customers');
    server.clock.advance(AUTH_TOKEN_TTL_MS + 1000);

    const refused = await entry.create(tenant.api, 'Expired BV', { 'idempotency-key': 'expired' });

    expect(entry.refusal(refused)).toEqual({
      status: 401,
      code: entry.code('UNAUTHENTICATED'),
      message: 'The auth token is invalid or expired.',
      paths: [],
    });
    expect(await countStoredRows(server.app.services.db, 'customers')).toBe(before);
  });
});

describe.each(entries)('Idempotency-Key through $name once the token has used up its rate limit', (entry) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_PER_TOKEN: '2', RATE_LIMIT_WINDOW_SECONDS: '3600' } });
  });
  afterAll(() => server.close());

  it('when a keyed create is refused 429, then the key is not spent: with a new token the create runs', async () => {
    const tenant = await server.tenant({ demoCatalog: false });
    await tenant.api.get('/customers');
    await tenant.api.get('/customers');

    const limited = await entry.create(tenant.api, 'Limited BV', { 'idempotency-key': 'limited' });
    const signIn = await server.anonymous.post('/authentication', {
      client_id: tenant.clientId,
      client_secret: tenant.clientSecret,
    });
    const retried = await entry.create(tenant.api.withToken(signIn.body.data.auth_token), 'Limited BV', {
      'idempotency-key': 'limited',
    });

    expect(entry.refusal(limited)).toEqual({
      status: 429,
      code: entry.code('LIMIT_EXCEEDED'),
      message: expect.stringMatching(/^Too many requests; try again in \d+ s\.$/),
      paths: [],
    });
    expect(retried.status).toBe(entry.createdStatus);
    expect(entry.createdId(retried)).toEqual(expect.any(String));
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});
