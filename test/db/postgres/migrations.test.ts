import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { is } from 'drizzle-orm';
import { PgTable, getTableConfig as pgTableConfig } from 'drizzle-orm/pg-core';
import { SQLiteTable, getTableConfig as sqliteTableConfig } from 'drizzle-orm/sqlite-core';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migratePostgres, postgresMigrationsFolder } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as postgresSchema from '../../../src/db/postgres/schema/index.js';
import * as sqliteSchema from '../../../src/db/sqlite/schema/index.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';

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

    expect(shapeOf(postgresTables)).toEqual(shapeOf(sqliteTables));
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

    it('when 20,000 customers and requests are seeded, then the name filter and the newest-first list page use their indexes', async () => {
      await migratePostgres(pool);
      await seed(pool);

      const nameFilter = await explain(
        pool,
        `SELECT id FROM customers WHERE instance_id = 'ins_seed' AND name_folded LIKE '%acme 1234%'
          ORDER BY name_folded, id LIMIT 25`,
      );
      const listPage = await explain(
        pool,
        `SELECT id, status, sources_finished FROM availability_requests WHERE instance_id = 'ins_seed'
          ORDER BY created_at DESC, id DESC LIMIT 25`,
      );

      expect(nameFilter).toContain('customers_name_trigram_idx');
      expect(nameFilter).not.toContain('Seq Scan');
      expect(listPage).toContain('Index Scan Backward using availability_requests_list_idx');
      expect(listPage).not.toContain('Seq Scan');
    });
  });
});

async function explain(pool: pg.Pool, query: string): Promise<string> {
  const plan = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query}`);
  return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
}

/** One instance with 20,000 customers and 20,000 requests, inserted by the server itself, then analysed. */
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
    INSERT INTO availability_requests (id, instance_id, address_id, price_plan_id, filters, status, sources_total,
                                       created_at, updated_at)
      SELECT 'avr_' || lpad(n::text, 6, '0'), 'ins_seed', 'adr_' || n, 'ppl_seed', '{}'::jsonb, 'pending', 0,
             now() - make_interval(secs => n), now()
        FROM generate_series(1, 20000) AS n;
    ANALYZE;
  `);
}
