import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { is } from 'drizzle-orm';
import { PgTable, getTableConfig as pgTableConfig } from 'drizzle-orm/pg-core';
import { SQLiteTable, getTableConfig as sqliteTableConfig } from 'drizzle-orm/sqlite-core';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres, postgresMigrationsFolder } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as queries from '../../../src/db/postgres/queries/index.js';
import * as postgresSchema from '../../../src/db/postgres/schema/index.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import { createLinguisticDatabase, createTestDatabase } from '../../helpers/postgres-server.js';
import { statementsOf } from '../../helpers/store.js';

/** Each table of a schema module as names: its columns (with NOT NULL), indexes (with UNIQUE) and keys. */
function shapeOf(tables: { name: string; columns: { name: string; notNull: boolean }[] }[]) {
  return Object.fromEntries(
    tables.map((table) => [
      table.name,
      table.columns.map((column) => `${column.name}${column.notNull ? '!' : ''}`).sort(),
    ]),
  );
}

const sqliteTables = Object.values(sqliteSchema)
  .filter((value) => is(value, SQLiteTable))
  .map((table) => sqliteTableConfig(table as SQLiteTable));
const postgresTables = Object.values(postgresSchema)
  .filter((value) => is(value, PgTable))
  .map((table) => pgTableConfig(table as PgTable));

const journal: { entries: { tag: string }[] } = JSON.parse(
  readFileSync(join(postgresMigrationsFolder, 'meta/_journal.json'), 'utf8'),
);

describe('the PostgreSQL schema and its migrations', () => {
  it('when the two stores’ schemas are compared, then they have the same tables, columns, NOT NULLs, indexes and foreign keys', () => {
    const indexesOf = (tables: typeof postgresTables | typeof sqliteTables) =>
      Object.fromEntries(
        tables.map((table) => [
          table.name,
          table.indexes.map((index) => `${index.config.name}${index.config.unique ? ' unique' : ''}`).sort(),
        ]),
      );
    const keysOf = (tables: typeof postgresTables | typeof sqliteTables) =>
      Object.fromEntries(
        tables.map((table) => [
          table.name,
          table.foreignKeys
            .map((key) =>
              key
                .reference()
                .foreignColumns.map((column) => column.name)
                .join(','),
            )
            .sort(),
        ]),
      );
    const postgresIndexes = indexesOf(postgresTables);

    const postgresShape = shapeOf(postgresTables);
    // PostgreSQL spreads each list total over slot rows (migration 0005), so that concurrent creates do not
    // queue for one row lock; SQLite has one writer at a time and one row per total.
    expect(postgresShape.list_totals).toEqual(['instanceId!', 'list!', 'slot!', 'total!']);
    expect({
      ...postgresShape,
      list_totals: postgresShape.list_totals?.filter((column) => column !== 'slot!'),
    }).toEqual(shapeOf(sqliteTables));
    expect(keysOf(postgresTables)).toEqual(keysOf(sqliteTables));
    // PostgreSQL has one index more: trigrams for the customer name filter.
    expect(postgresIndexes.customers).toContain('customers_name_trigram_idx');
    expect({
      ...postgresIndexes,
      customers: postgresIndexes.customers?.filter((name) => name !== 'customers_name_trigram_idx'),
    }).toEqual(indexesOf(sqliteTables));
  });

  describe('on a real server', () => {
    let database: { url: string; drop(): Promise<void> };
    let pool: pg.Pool;

    beforeAll(async () => {
      database = await createTestDatabase(inject('postgresAdminUrl'));
      pool = openPostgresPool(database.url, 4);
    });
    afterAll(async () => {
      await pool.end();
      await database.drop();
    });

    it('when five gateway instances start at once on an empty database, then each migration is applied exactly once', async () => {
      const pools = Array.from({ length: 5 }, () => openPostgresPool(database.url, 1));
      try {
        const outcomes = await Promise.allSettled(pools.map((instance) => migratePostgres(instance)));

        expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(5).fill('fulfilled'));
        const applied = await pool.query('SELECT count(*)::int AS count FROM drizzle.__drizzle_migrations');
        expect(applied.rows[0].count).toBe(journal.entries.length);
      } finally {
        await Promise.all(pools.map((instance) => instance.end()));
      }
    });

    it('when migrated, then every table is there with PostgreSQL types: timestamptz, jsonb, integer minor units, text ids', async () => {
      await migratePostgres(pool);
      const columns = await pool.query<{ table_name: string; column_name: string; data_type: string }>(
        `SELECT table_name, column_name, data_type FROM information_schema.columns
          WHERE table_schema = 'public' ORDER BY table_name, column_name`,
      );
      const typeOf = (table: string, column: string) =>
        columns.rows.find((row) => row.table_name === table && row.column_name === column)?.data_type;

      expect([...new Set(columns.rows.map((row) => row.table_name))].sort()).toEqual(
        sqliteTables.map((table) => table.name).sort(),
      );
      expect({
        id: typeOf('availability_requests', 'id'),
        createdAt: typeOf('availability_requests', 'created_at'),
        filters: typeOf('availability_requests', 'filters'),
        roles: typeOf('users', 'roles'),
        countryCodes: typeOf('sources', 'country_codes'),
        mrc: typeOf('availability_request_products', 'mrc_minor'),
        latitude: typeOf('addresses', 'latitude'),
        enabled: typeOf('sources', 'enabled'),
        taskId: typeOf('gathering_tasks', 'id'),
        responseBody: typeOf('idempotency_keys', 'response_body'),
      }).toEqual({
        id: 'text',
        createdAt: 'timestamp with time zone',
        filters: 'jsonb',
        roles: 'jsonb',
        countryCodes: 'jsonb',
        mrc: 'integer',
        latitude: 'double precision',
        enabled: 'boolean',
        taskId: 'bigint',
        responseBody: 'text',
      });
    });
  });

  describe('on a database whose default collation is linguistic (ICU en-US), with 20,000 rows per list', () => {
    let database: { url: string; drop(): Promise<void> };
    let pool: pg.Pool;
    let db: PostgresDb;

    beforeAll(async () => {
      database = await createLinguisticDatabase(inject('postgresAdminUrl'));
      pool = openPostgresPool(database.url, 4);
      db = postgresDb(pool);
      await migratePostgres(pool);
      await seed(pool);
    });
    afterAll(async () => {
      await pool.end();
      await database.drop();
    });

    it('when the default collation is asked to order text, then it is not byte order (the premise of the plans below)', async () => {
      const order = await pool.query<{ linguistic: boolean }>(`SELECT 'a' < 'B' AS linguistic`);

      expect(order.rows[0]?.linguistic).toBe(true);
    });

    // The position of the 10,000th seeded request (and quote): n seconds before `seededAt`.
    const after = new Date(Date.parse(seededAt) - 10_000 * 1000);
    it.each([
      {
        list: 'an instance’s requests, first page',
        cursor: false,
        table: 'availability_requests',
        index: 'availability_requests_list_idx',
        scan: 'Index Scan Backward',
        read: (db: PostgresDb) =>
          queries.listAvailabilityRequestsPage(db, 'ins_seed', { offset: 0, limit: 25 }),
      },
      {
        list: 'an instance’s requests, older than a cursor',
        cursor: true,
        table: 'availability_requests',
        index: 'availability_requests_list_idx',
        scan: 'Index Scan Backward',
        read: (db: PostgresDb) =>
          queries.sliceAvailabilityRequests(db, 'ins_seed', {
            from: { createdAt: after, id: 'avr_010000' },
            direction: 'older',
            limit: 26,
          }),
      },
      {
        list: 'an instance’s requests, newer than a cursor',
        cursor: true,
        table: 'availability_requests',
        index: 'availability_requests_list_idx',
        scan: 'Index Scan',
        read: (db: PostgresDb) =>
          queries.sliceAvailabilityRequests(db, 'ins_seed', {
            from: { createdAt: after, id: 'avr_010000' },
            direction: 'newer',
            limit: 26,
          }),
      },
      {
        list: 'a customer’s requests, older than a cursor',
        cursor: true,
        table: 'availability_requests',
        index: 'availability_requests_customer_idx',
        scan: 'Index Scan Backward',
        read: (db: PostgresDb) =>
          queries.sliceAvailabilityRequests(db, 'ins_seed', {
            from: { createdAt: after, id: 'avr_010000' },
            direction: 'older',
            limit: 26,
            customerId: 'cus_1',
          }),
      },
      {
        list: 'an instance’s customers, first page',
        cursor: false,
        table: 'customers',
        index: 'customers_list_idx',
        scan: 'Index Scan',
        read: (db: PostgresDb) =>
          queries.listCustomersPage(db, 'ins_seed', { nameFolded: null, offset: 0, limit: 25 }),
      },
      {
        list: 'an instance’s customers, after a cursor',
        cursor: true,
        table: 'customers',
        index: 'customers_list_idx',
        scan: 'Index Scan',
        read: (db: PostgresDb) =>
          queries.sliceCustomers(db, 'ins_seed', {
            nameFolded: null,
            after: { nameFolded: 'acme 5000', id: 'cus_5000' },
            limit: 26,
          }),
      },
      {
        list: 'an instance’s quotes, older than a cursor',
        cursor: true,
        table: 'quotes',
        index: 'quotes_list_idx',
        scan: 'Index Scan Backward',
        read: (db: PostgresDb) =>
          queries.sliceQuotes(db, 'ins_seed', { after: { createdAt: after, id: 'quo_010000' }, limit: 26 }),
      },
      {
        list: 'a customer’s projects, first page',
        cursor: false,
        table: 'projects',
        index: 'projects_customer_idx',
        scan: 'Index Scan',
        read: (db: PostgresDb) =>
          queries.listProjectsPage(db, 'ins_seed', { customerId: 'cus_1', offset: 0, limit: 25 }),
      },
    ])(
      'when the store reads $list, then its query reads $index in order, with no Sort',
      async ({ table, index, scan, cursor, read }) => {
        const [statement] = await statementsOf(() => read(db));

        const plan = await explain(pool, statement?.text ?? '', statement?.values);

        expect(plan.split('\n')[0]).toMatch(/^Limit /);
        expect(plan).toContain(`${scan} using ${index} on ${table}`);
        expect(plan).not.toContain('Sort');
        expect(plan).not.toMatch(new RegExp(`(Seq Scan|Bitmap Heap Scan) on ${table}\\b`));
        // A cursor bounds the scan itself (a row comparison in the Index Cond), not a filter on every row before it.
        if (cursor) expect(plan).toMatch(/Index Cond: .*ROW\(/);
      },
    );

    it('when a worker claims tasks, then the lease statement finds them through the claim index', async () => {
      const statements = await statementsOf(() =>
        queries.claimTasks(db, {
          owner: 'worker-a',
          now: new Date(),
          leaseMs: 30_000,
          limit: 8,
          maxAttempts: 3,
        }),
      );
      const lease = statements.find((statement) => statement.text.includes('expired as materialized'));

      const plan = await explain(pool, lease?.text ?? '', lease?.values);

      // Queued tasks come in claim order straight from the index (the LIMIT stops the scan); running ones
      // with an expired lease are the few the index finds by status.
      expect(plan).toMatch(
        /Index Scan using gathering_tasks_claim_idx on gathering_tasks \w+ .*\n\s+Index Cond: \(\(status = 'queued'::text\) AND \(available_at <= /,
      );
      expect(plan).toMatch(
        /Index Scan on gathering_tasks_claim_idx .*\n\s+Index Cond: \(status = 'running'::text\)/,
      );
      expect(plan).not.toMatch(/Seq Scan on gathering_tasks\b/);
    });

    it('when the store filters customers by a name fragment, then the trigram index finds them', async () => {
      const [statement] = await statementsOf(() =>
        queries.listCustomersPage(db, 'ins_seed', { nameFolded: 'acme 1234', offset: 0, limit: 25 }),
      );

      const plan = await explain(pool, statement?.text ?? '', statement?.values);

      expect(plan).toContain('customers_name_trigram_idx');
      expect(plan).not.toContain('Seq Scan on customers');
    });
  });
});

/** The plan PostgreSQL would run for `query` with `values` (a custom plan for these parameters). */
async function explain(pool: pg.Pool, query: string, values: unknown[] = []): Promise<string> {
  const plan = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query}`, values);
  return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
}

/** When the seeded rows were created: request, quote and project n is n seconds older. */
const seededAt = '2026-11-25T10:00:00.000Z';

/**
 * One instance with 20,000 customers, requests (100 for each of `cus_1` … `cus_200`), quotes and projects
 * (likewise), inserted by the server itself, then analysed.
 */
async function seed(pool: pg.Pool): Promise<void> {
  await pool.query(`
    INSERT INTO instances (id, name, code, created_at, updated_at) VALUES ('ins_seed', 'Seed', 'SEED', now(), now());
    INSERT INTO users (id, instance_id, email, first_name, last_name, created_at, updated_at)
      VALUES ('usr_seed', 'ins_seed', 'seed@example.com', 'Seed', 'User', now(), now());
    INSERT INTO price_plans (id, instance_id, name, is_default, mrc_markup_bp, nrc_markup_bp, created_at, updated_at)
      VALUES ('ppl_seed', 'ins_seed', 'Standard', true, 0, 0, now(), now());
    INSERT INTO customers (id, instance_id, auto_sequence, name, name_folded, price_plan_id, account_manager_user_id,
                           created_at, updated_at)
      SELECT 'cus_' || n, 'ins_seed', n, 'Acme ' || n, 'acme ' || n, 'ppl_seed', 'usr_seed', now(), now()
        FROM generate_series(1, 20000) AS n;
    INSERT INTO addresses (id, instance_id, input_kind, street, city, house_number, house_number_addition,
                           postal_code, country_code, continent_code, created_at, updated_at)
      SELECT 'adr_' || n, 'ins_seed', 'fields', 'Straat', 'Amsterdam', n::text, '', '1016XA', 'NL', 'EU', now(), now()
        FROM generate_series(1, 20000) AS n;
    INSERT INTO availability_requests (id, instance_id, address_id, customer_id, price_plan_id, filters, status,
                                       sources_total, created_at, updated_at)
      SELECT 'avr_' || lpad(n::text, 6, '0'), 'ins_seed', 'adr_' || n, 'cus_' || (1 + n % 200), 'ppl_seed',
             '{"bandwidths":[],"networks":[],"contractTerms":[],"connectionTypes":[],"technologyTypes":[]}'::jsonb,
             'pending', 0, '${seededAt}'::timestamptz - make_interval(secs => n), now()
        FROM generate_series(1, 20000) AS n;
    INSERT INTO quotes (id, instance_id, customer_id, name, year, sequence, quote_number, currency, validity_days,
                        expiration_date, created_at, updated_at)
      SELECT 'quo_' || lpad(n::text, 6, '0'), 'ins_seed', 'cus_' || (1 + n % 200), 'Quote ' || n, 2026, n,
             '2026-' || lpad(n::text, 5, '0') || '-SEED', 'EUR', 30, '2026-12-25',
             '${seededAt}'::timestamptz - make_interval(secs => n), now()
        FROM generate_series(1, 20000) AS n;
    INSERT INTO projects (id, instance_id, customer_id, name, created_at, updated_at)
      SELECT 'prj_' || lpad(n::text, 6, '0'), 'ins_seed', 'cus_' || (1 + n % 200), 'Project ' || n,
             '${seededAt}'::timestamptz - make_interval(secs => n), now()
        FROM generate_series(1, 20000) AS n;
    INSERT INTO sources (id, instance_id, key, name, network, type, country_codes, created_at, updated_at)
      VALUES ('src_seed', 'ins_seed', 'seed', 'Seed', 'KPN', 'catalog', '["NL"]'::jsonb, now(), now());
    -- The queue as it looks after a while: most tasks done, some running, a few queued.
    INSERT INTO gathering_tasks (id, instance_id, availability_request_id, source_id, status, attempts, available_at,
                                 lease_owner, lease_expires_at, created_at, updated_at)
      SELECT n, 'ins_seed', 'avr_' || lpad(n::text, 6, '0'), 'src_seed',
             CASE WHEN n % 100 = 0 THEN 'queued' WHEN n % 100 = 1 THEN 'running' ELSE 'succeeded' END,
             CASE WHEN n % 100 = 0 THEN 0 ELSE 1 END, now() - make_interval(secs => n),
             CASE WHEN n % 100 = 1 THEN 'worker-seed' END,
             CASE WHEN n % 100 = 1 THEN now() + interval '1 hour' END, now(), now()
        FROM generate_series(1, 20000) AS n;
    ANALYZE;
  `);
}
