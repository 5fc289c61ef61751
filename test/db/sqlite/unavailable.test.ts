import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type Json, startTestServer, type TestServer, tempSqlitePath, waitFor } from '../../helpers/app.js';
import { countStoredRows, storedRows } from '../../helpers/store.js';

/*
 * Issue 48, item 4: SQLite errors that are not the caller's fault — the file busy beyond the busy timeout,
 * the file full — are a 503 problem+json with `Retry-After` and a log line, never a 500 or an exit. Produced
 * for real: `PRAGMA max_page_count` on the gateway's own connection keeps the file from growing, and a
 * second connection holding the write lock makes it busy.
 */

/** SQLite's largest `max_page_count` (https://sqlite.org/pragma.html#pragma_max_page_count). */
const UNLIMITED_PAGES = 4_294_967_294;

const unavailableProblem = {
  type: 'urn:connectivity-gateway:problem:unavailable',
  title: 'Service unavailable',
  status: 503,
  detail: 'The database is unavailable; try again in a few seconds.',
};

const CREATE = `mutation ($input: [AvailabilityRequestInput!]!) {
  createAvailabilityRequests(input: $input) { availabilityRequests { id } }
}`;

/** `count` distinct addresses in Amsterdam's 1016 area: a batch whose rows need pages the file has not got. */
const batch = (count: number, from = 1) =>
  Array.from({ length: count }, (_, index) => ({
    address: { country_code: 'NL', postal_code: '1016XA', house_number: String(from + index) },
  }));

const servers: { server: TestServer; remove(): void }[] = [];

/** A gateway on an SQLite file of its own (whatever the project), logging warnings into memory. */
async function start(options: { startWorker?: boolean } = {}) {
  const temp = tempSqlitePath();
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
  const server = await startTestServer({ databasePath: temp.path, logger, ...options });
  servers.push({ server, remove: temp.remove });
  const tenant = await server.tenant();
  const { connection } = server.app.services.db;
  if (connection.dialect !== 'sqlite') throw new Error('unreachable: an SQLite file was given');
  const logs = (): Json[] => lines.map((line) => JSON.parse(line));
  return { server, tenant, sqlite: connection.db.$client, path: temp.path, logs };
}

afterEach(async () => {
  for (const { server, remove } of servers.splice(0)) {
    await server.close();
    remove();
  }
});

/** Keeps the gateway's connection from growing the file past the pages it has now. */
function fill(sqlite: Database.Database): void {
  const pages = sqlite.pragma('page_count', { simple: true }) as number;
  sqlite.pragma(`max_page_count = ${pages}`);
}

async function healthy(server: TestServer): Promise<number> {
  return (await fetch(`${server.app.url}/healthz`)).status;
}

describe('the SQLite store busy or full (issue 48)', () => {
  it('when the file is full, then a create is 503 with Retry-After 5 over REST and GraphQL, writes nothing, frees its Idempotency-Key and is logged; once it may grow, the same key creates', async () => {
    const { server, tenant, sqlite, logs } = await start();
    const requestsBefore = await countStoredRows(server.app.services.db, 'availabilityRequests');
    fill(sqlite);

    const refused = await tenant.api.request('POST', '/availability-requests', {
      body: batch(150),
      headers: { 'idempotency-key': 'full-1', 'x-request-id': 'full-rest' },
    });
    const input = batch(150, 200).map(({ address }) => ({
      address: { countryCode: 'NL', postalCode: address.postal_code, houseNumber: address.house_number },
    }));
    const graphql = await tenant.api.request('POST', '/graphql', {
      body: { query: CREATE, variables: { input } },
    });

    expect([refused.status, refused.headers.get('retry-after'), refused.body]).toEqual([
      503,
      '5',
      unavailableProblem,
    ]);
    expect([graphql.status, graphql.headers.get('retry-after')]).toEqual([503, '5']);
    expect(graphql.body).toEqual({
      data: null,
      errors: [
        {
          message: 'The database is unavailable; try again in a few seconds.',
          locations: [{ line: 2, column: 3 }],
          path: ['createAvailabilityRequests'],
          extensions: { code: 'UNAVAILABLE' },
        },
      ],
    });
    expect(await countStoredRows(server.app.services.db, 'availabilityRequests')).toBe(requestsBefore);
    expect(await countStoredRows(server.app.services.db, 'idempotencyKeys')).toBe(0);
    expect(await healthy(server)).toBe(200);
    const warning = logs().find(
      (line) => line.reqId === 'full-rest' && line.msg === 'dependency unavailable',
    );
    expect([warning?.level, warning?.dependency, warning?.err?.code]).toEqual([40, 'store', 'SQLITE_FULL']);

    sqlite.pragma(`max_page_count = ${UNLIMITED_PAGES}`);
    const created = await tenant.api.request('POST', '/availability-requests', {
      body: batch(150),
      headers: { 'idempotency-key': 'full-1' },
    });

    expect([created.status, created.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expect(created.body.data).toHaveLength(150);
    expect(await countStoredRows(server.app.services.db, 'availabilityRequests')).toBe(requestsBefore + 150);
  });

  it('when another connection holds the write lock past the busy timeout, then a create is 503 with Retry-After 5 and the instance goes on once the lock is let go', async () => {
    const { server, tenant, path } = await start();
    const other = new Database(path);
    other.exec('BEGIN IMMEDIATE');

    const refused = await tenant.api.request('POST', '/customers', { body: { name: 'Busy BV' } });
    const read = await tenant.api.request('GET', '/customers');

    other.exec('ROLLBACK');
    other.close();
    const created = await tenant.api.request('POST', '/customers', { body: { name: 'Busy BV' } });

    expect([refused.status, refused.headers.get('retry-after'), refused.body]).toEqual([
      503,
      '5',
      unavailableProblem,
    ]);
    // Readers are not blocked by a writer in WAL mode.
    expect([read.status, read.body.data]).toEqual([200, []]);
    expect([created.status, created.body.data.name]).toEqual([201, 'Busy BV']);
    expect(await healthy(server)).toBe(200);
  });

  it('when the file is full while the worker gathers, then no task fails: the worker pauses and stores every answer once the file may grow', async () => {
    const { server, tenant, sqlite, logs } = await start({ startWorker: false });
    const created = await tenant.api.post('/availability-requests', batch(20));
    expect(created.status).toBe(201);
    const ids: string[] = created.body.data.map((request: Json) => request.id);
    fill(sqlite);

    server.app.worker.start();
    // The claims and the supplier answers go on; what the file cannot take waits in the worker.
    await waitFor(
      () => Promise.resolve(logs()),
      (lines) =>
        lines.some((line) => line.msg === 'the store is unavailable; gathering paused until it answers'),
      20_000,
    );
    const whileFull = (await storedRows(server.app.services.db, 'gatheringTasks')) as Json[];
    sqlite.pragma(`max_page_count = ${UNLIMITED_PAGES}`);
    const tasks = (await waitFor(
      () => storedRows(server.app.services.db, 'gatheringTasks'),
      (rows) => (rows as Json[]).every((task) => task.status === 'succeeded'),
      30_000,
    )) as Json[];

    expect(whileFull.filter((task) => task.status === 'failed' || task.errorCode !== null)).toEqual([]);
    expect(tasks.map((task) => [task.status, task.attempts, task.errorCode])).toEqual(
      tasks.map(() => ['succeeded', 1, null]),
    );
    for (const id of ids) {
      const request = await tenant.api.get(`/availability-requests/${id}`);
      expect(request.body.data.status).toBe('completed');
    }
    expect(await healthy(server)).toBe(200);
  });
});
