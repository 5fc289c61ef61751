import Database from 'better-sqlite3';
import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { copiedTables } from '../../../src/db/postgres/copy-from-sqlite.js';
import * as postgresSchema from '../../../src/db/postgres/schema/index.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import {
  contractExampleBatch,
  type Json,
  startTestServer,
  tempSqlitePath,
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

describe('copying a SQLite deployment into PostgreSQL (cli database copy-to-postgres)', () => {
  const source = tempSqlitePath();
  let target: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  let requestId: string;

  beforeAll(async () => {
    // A deployment with every kind of row: a gathered request for a customer, a quote, an idempotency key.
    const server = await startTestServer({ databasePath: source.path });
    try {
      const tenant = await server.tenant({ roles: ['instance_admin', 'connectivity_check'] });
      const customer = await tenant.api.post('/customers', {
        name: 'Copy B.V.',
        financial_details: { email: 'billing@copy.example', country_code: 'NL', apply_vat: true },
      });
      await tenant.api.post('/projects', { customer_id: customer.body.data.id, name: 'Head office' });
      const created = await tenant.api.request('POST', '/availability-requests', {
        body: [{ ...contractExampleBatch[0], customer_id: customer.body.data.id }],
        headers: { 'idempotency-key': 'copy-1' },
      });
      requestId = created.body.data[0].id;
      const completed = await waitFor(
        () => tenant.api.get(`/availability-requests/${requestId}`),
        (response) => response.body.data.status === 'completed',
      );
      await tenant.api.post('/quotes', {
        name: 'Copy quote',
        customer_id: customer.body.data.id,
        availability_request_product_ids: [completed.body.data.products[0].id],
      });
    } finally {
      await server.app.stop();
    }
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
    expect(copied.map(([name]) => name).sort()).toEqual(tableNames(sqliteSchema, SQLiteTable));
    expect(copied.map(([name]) => name).sort()).toEqual(tableNames(postgresSchema, PgTable));
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
