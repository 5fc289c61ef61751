import Database from 'better-sqlite3';
import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { copiedTables } from '../../../src/db/copy/sqlite-to-postgres.js';
import * as postgresSchema from '../../../src/db/postgres/schema/index.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import { startApp } from '../../../src/server/app.js';
import {
  contractExampleBatch,
  type Json,
  startTestServer,
  tempSqlitePath,
  testConfig,
  waitFor,
} from '../../helpers/app.js';
import { runCli } from '../../helpers/cli.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';

const tableNames = (schema: Record<string, unknown>, kind: typeof PgTable | typeof SQLiteTable) =>
  Object.values(schema)
    .filter((value) => is(value, kind))
    .map((table) => getTableName(table as PgTable))
    .sort();

/** Rows per table of a SQLite file, read directly. */
function sqliteCounts(path: string): Record<string, number> {
  const sqlite = new Database(path, { readonly: true });
  try {
    return Object.fromEntries(
      copiedTables.map(({ sqlite: table }) => {
        const name = getTableName(table);
        return [name, sqlite.prepare(`SELECT count(*) FROM "${name}"`).pluck().get() as number];
      }),
    );
  } finally {
    sqlite.close();
  }
}

async function postgresCounts(pool: pg.Pool): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { postgres } of copiedTables) {
    const name = getTableName(postgres);
    counts[name] = (await pool.query(`SELECT count(*)::int AS count FROM "${name}"`)).rows[0].count;
  }
  return counts;
}

const NODE_PAGE = `
  id status createdAt updatedAt networksProgressPercentage
  address { id street city houseNumber houseNumberAddition postalCode countryCode continentCode coordinatesPrecision coordinates { latitude longitude } }
  filters { bandwidths { download upload } connectionTypes contractTerms networks technologyTypes }
  products { id network technologyType connectionType bandwidth { download upload } contractTerm mrc nrc currency }
  sources { sourceId name network status attempts productCount errorCode errorMessage }`;
/** The GraphQL lists, with their counts, cursors and nested fields; `$after` pages on. */
const LISTS = `query ($first: Int, $after: String, $name: String) {
  availabilityRequests(first: $first, after: $after) {
    totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { ${NODE_PAGE} } }
  }
  customers(first: $first, filter: { name: $name }) {
    totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node {
      id name autoNumber createdAt applyVat interconnected legalName preferredCurrency
      accountManager { id firstName lastName }
      financialDetails { email countryCode applyVat name street city }
      pricePlan { id name isDefault mrcMarkupPercent nrcMarkupPercent rules { network technologyType connectionType mrcMarkupPercent nrcMarkupPercent } }
      projects(first: 5) { pageInfo { hasNextPage endCursor } edges { cursor node { id name createdAt customer { id name } } } }
      availabilityRequests(first: 3) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id status filters { bandwidths { download upload } } } } }
    } }
  }
  quotes(first: $first) {
    totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node {
      id quoteNumber name referenceNumber createdAt expirationDate validityDays currency totalMrc totalNrc totalProducts
      customer { id name }
      products { id kind productId name network technologyType connectionType bandwidth { download upload } contractTerm mrc nrc currency }
    } }
  }
  pricePlans { id name isDefault rules { network mrcMarkupPercent } }
  instanceProducts { id name mandatory mrc nrc currency }
  sources { id key name network type countryCodes enabled }
}`;

/** The rows whose detail pages are read. */
interface PageIds {
  request: string;
  filteredRequest: string;
  customer: string;
  quote: string;
}

/** A response as the client receives it: status, content type and the body's exact text. */
interface RawResponse {
  status: number;
  type: string | null;
  text: string;
}

/**
 * Serves `databasePath` with the clock stopped at `at` and no worker, and reads every list and detail
 * page of the deployment as raw text. A stopped clock makes the time-dependent parts (the `sse_jwt`'s
 * `iat` and `exp`) the same on every run.
 */
async function readPages(
  databasePath: string,
  at: Date,
  token: string,
  ids: PageIds,
): Promise<Record<string, RawResponse>> {
  const clock: Clock = { now: () => at };
  const app = await startApp(testConfig(databasePath), { clock, startWorker: false });
  try {
    const read = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<RawResponse> => {
      const response = await fetch(`${app.url}${path}`, {
        method,
        headers: {
          'x-auth-token': token,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        text: await response.text(),
      };
    };
    const pages: Record<string, RawResponse> = {};
    for (const path of [
      '/availability-requests?page_size=20',
      '/availability-requests?page=2&page_size=20',
      '/availability-requests',
      `/availability-requests/${ids.request}`,
      `/availability-requests/${ids.filteredRequest}`,
      '/customers',
      '/customers?page=2&page_size=3',
      `/customers?filter[name]=${encodeURIComponent('e')}`,
      `/customers?filter[name]=${encodeURIComponent('ÉB')}`,
      '/projects',
      `/projects?customer_id=${ids.customer}`,
      `/quotes/${ids.quote}`,
      '/instance-products',
      '/mandatory-products',
    ])
      pages[`GET ${path}`] = await read('GET', path);
    const first = await read('POST', '/graphql', { query: LISTS, variables: { first: 20 } });
    pages['graphql first page'] = first;
    const after = JSON.parse(first.text).data.availabilityRequests.pageInfo.endCursor;
    pages['graphql second page'] = await read('POST', '/graphql', {
      query: LISTS,
      variables: { first: 20, after, name: 'a' },
    });
    return pages;
  } finally {
    await app.stop();
  }
}

describe('copying a SQLite deployment into PostgreSQL (cli database copy-to-postgres)', () => {
  const source = tempSqlitePath();
  let target: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  let requestId: string;
  let token: string;
  let ids: PageIds;
  let servedAt: Date;
  let servedBySqlite: Record<string, RawResponse>;

  beforeAll(async () => {
    // A deployment with every kind of row: gathered requests for customers and projects, over two list pages,
    // with filters; customers whose names sort differently bytewise and linguistically; quotes; an idempotency key.
    const server = await startTestServer({ databasePath: source.path });
    try {
      const tenant = await server.tenant({ roles: ['instance_admin', 'connectivity_check'] });
      token = tenant.api.token ?? '';
      const customer = await tenant.api.post('/customers', {
        name: 'Copy B.V.',
        financial_details: { email: 'billing@copy.example', country_code: 'NL', apply_vat: true },
      });
      const customerIds = [customer.body.data.id];
      for (const name of ['alpha', 'Zeta', 'Ébène', '_under', 'eta', 'Beta'])
        customerIds.push((await tenant.api.post('/customers', { name })).body.data.id);
      const project = await tenant.api.post('/projects', {
        customer_id: customer.body.data.id,
        name: 'Head office',
      });
      await tenant.api.post('/projects', { customer_id: customer.body.data.id, name: 'branch' });
      await tenant.api.post('/projects', { customer_id: customerIds[3], name: 'Église' });
      const created = await tenant.api.request('POST', '/availability-requests', {
        body: [{ ...contractExampleBatch[0], customer_id: customer.body.data.id }],
        headers: { 'idempotency-key': 'copy-1' },
      });
      requestId = created.body.data[0].id;
      const batch = await tenant.api.post(
        '/availability-requests',
        Array.from({ length: 30 }, (_, index) => ({
          ...contractExampleBatch[index % 2],
          customer_id: customerIds[index % customerIds.length],
          ...(index % 5 === 0
            ? { project_id: project.body.data.id, customer_id: customer.body.data.id }
            : {}),
          ...(index % 3 === 0
            ? {
                bandwidths: [
                  { download: 1000000, upload: 1000000 },
                  { download: 20000, upload: 1000 },
                ],
                contract_terms: [36, 12],
                networks: ['KPN'],
                technology_types: ['FIBER', 'VDSL'],
                connection_types: ['SHARED'],
              }
            : {}),
        })),
      );
      expect(batch.status).toBe(201);
      await waitFor(
        () => tenant.api.get('/availability-requests?page_size=100'),
        (response) => response.body.data.every(({ status }: Json) => status === 'completed'),
      );
      const completed = await tenant.api.get(`/availability-requests/${requestId}`);
      const quote = await tenant.api.post('/quotes', {
        name: 'Copy quote',
        customer_id: customer.body.data.id,
        availability_request_product_ids: [completed.body.data.products[0].id],
      });
      await tenant.api.post('/quotes', {
        name: 'Second quote',
        reference_number: 'REF-2',
        customer_id: customerIds[3],
        availability_request_product_ids: completed.body.data.products.slice(1, 3).map(({ id }: Json) => id),
      });
      ids = {
        request: requestId,
        filteredRequest: batch.body.data[0].id,
        customer: customer.body.data.id,
        quote: quote.body.data.id,
      };
    } finally {
      await server.app.stop();
    }
    servedAt = new Date();
    servedBySqlite = await readPages(source.path, servedAt, token, ids);
    target = await createTestDatabase(inject('postgresAdminUrl'));
    pool = new pg.Pool({ connectionString: target.url, max: 2 });
  });
  afterAll(async () => {
    await pool.end();
    await target.drop();
    source.remove();
  });

  it('when the copy’s table list is compared with both schemas, then every table is copied', () => {
    const copied = copiedTables.map(({ sqlite, postgres }) => [getTableName(sqlite), getTableName(postgres)]);

    expect(copied.every(([sqlite, postgres]) => sqlite === postgres)).toBe(true);
    // list_totals is rebuilt by the target's triggers as the rows arrive, then compared with the source's.
    const derived = (name: string) => name !== 'list_totals';
    expect(copied.map(([name]) => name).sort()).toEqual(
      tableNames(sqliteSchema, SQLiteTable).filter(derived),
    );
    expect(copied.map(([name]) => name).sort()).toEqual(tableNames(postgresSchema, PgTable).filter(derived));
  });

  it('when copied into an empty database, then every row is there with its ids and times, counts and checksums agree, and new ids continue after the copied ones', async () => {
    const counts = sqliteCounts(source.path);

    const result = await runCli(source.path, ['database', 'copy-to-postgres', '--to', target.url]);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output.tables.map(({ table, rows }: Json) => [table, rows])).toEqual(Object.entries(counts));
    expect(output.tables.every(({ checksum }: Json) => /^[0-9a-f]{64}$/.test(checksum))).toBe(true);
    expect(output.total_rows).toBe(Object.values(counts).reduce((sum, count) => sum + count, 0));
    expect(await postgresCounts(pool)).toEqual(counts);
    const totalsQuery = 'SELECT instance_id, list, total FROM list_totals ORDER BY instance_id, list';
    const sqliteTotals = new Database(source.path, { readonly: true });
    const expectedTotals = sqliteTotals.prepare(totalsQuery).all();
    sqliteTotals.close();
    expect(expectedTotals).toEqual(
      expect.arrayContaining([expect.objectContaining({ list: 'availability_requests', total: 31 })]),
    );
    const copiedTotals = await pool.query(
      `SELECT instance_id, list, sum(total)::integer AS total FROM list_totals GROUP BY instance_id, list
        ORDER BY instance_id COLLATE "C", list COLLATE "C"`,
    );
    expect(copiedTotals.rows).toEqual(expectedTotals);
    for (const table of [
      'availability_requests',
      'gathering_tasks',
      'availability_request_products',
      'quote_lines',
    ])
      expect(counts[table]).toBeGreaterThan(0);

    const sqlite = new Database(source.path, { readonly: true });
    const before = sqlite
      .prepare('SELECT id, created_at, updated_at, status, filters FROM availability_requests WHERE id = ?')
      .get(requestId) as Json;
    const maxTask = sqlite.prepare('SELECT max(id) FROM gathering_tasks').pluck().get() as number;
    sqlite.close();
    const after = (
      await pool.query(
        'SELECT id, created_at, updated_at, status, filters FROM availability_requests WHERE id = $1',
        [requestId],
      )
    ).rows[0];
    expect({
      ...after,
      created_at: after.created_at.getTime(),
      updated_at: after.updated_at.getTime(),
    }).toEqual({ ...before, filters: JSON.parse(before.filters) });
    const next = await pool.query(
      `INSERT INTO gathering_tasks (instance_id, availability_request_id, source_id, status, available_at, created_at, updated_at)
         SELECT instance_id, availability_request_id, source_id, 'queued', now(), now(), now()
           FROM gathering_tasks WHERE id = $1
         ON CONFLICT DO NOTHING RETURNING id`,
      [maxTask],
    );
    // The copied task's (request, source) pair is taken, so nothing is inserted, yet the identity moved on:
    const nextId = (
      await pool.query(`SELECT nextval(pg_get_serial_sequence('gathering_tasks', 'id'))::int AS id`)
    ).rows[0].id;
    expect(next.rowCount).toBe(0);
    expect(nextId).toBeGreaterThan(maxTask);
  });

  it('when the copy is served, then every list and detail page is byte for byte the one the SQLite deployment served', async () => {
    const servedByPostgres = await readPages(target.url, servedAt, token, ids);

    expect(Object.values(servedBySqlite).every(({ status }) => status === 200)).toBe(true);
    expect(
      JSON.parse(servedBySqlite['GET /availability-requests?page=2&page_size=20']?.text ?? '').data,
    ).toHaveLength(11);
    // Stored JSON shown as it is: PostgreSQL's jsonb would hand these keys back as {upload, download}.
    expect(servedBySqlite[`GET /availability-requests/${ids.filteredRequest}`]?.text).toContain(
      '"bandwidths":[{"download":1000000,"upload":1000000},{"download":20000,"upload":1000}]',
    );
    expect(servedByPostgres).toEqual(servedBySqlite);
  });

  it('when the target already holds a deployment, then the copy is refused with CONFLICT and nothing changes', async () => {
    const before = await postgresCounts(pool);

    const result = await runCli(source.path, ['database', 'copy-to-postgres', '--to', target.url]);

    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'CONFLICT',
      message: `The PostgreSQL database is not empty: instances has ${before.instances} rows.`,
      problems: [],
    });
    expect(await postgresCounts(pool)).toEqual(before);
  });

  it('when the target is not a postgres:// URL, then VALIDATION names the option', async () => {
    const result = await runCli(source.path, ['database', 'copy-to-postgres', '--to', 'mysql://db/gateway']);

    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({
      error: 'VALIDATION',
      message: 'The target database is invalid.',
      problems: [{ path: '/to', message: 'must be a postgres:// or postgresql:// URL' }],
    });
  });
});
