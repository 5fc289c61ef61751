import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { listTotal } from '../../../src/db/postgres/list-totals.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as pgSchema from '../../../src/db/postgres/schema/index.js';
import { LIST_TOTAL_SLOTS } from '../../../src/db/postgres/schema/list-totals.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';

const at = new Date('2026-11-26T10:00:00.000Z');
const stamps = { createdAt: at, updatedAt: at };

/** Inserts availability requests `ids` of instance `ins_1` (at address `adr_1`) in one statement on `client`. */
const insertRequests = (client: pg.PoolClient, ids: string[]) =>
  client.query(
    `INSERT INTO availability_requests (id, instance_id, address_id, price_plan_id, filters, status,
       sources_total, created_at, updated_at)
     SELECT id, 'ins_1', 'adr_1', 'ppl_1', '{}'::jsonb, 'completed', 0, $2, $2 FROM unnest($1::text[]) AS t(id)`,
    [ids, at],
  );

describe('list_totals on PostgreSQL: one total in slots (migration 0005)', () => {
  let database: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  let db: PostgresDb;
  const total = () => listTotal(db, 'ins_1', 'availability_requests');
  const slots = async () =>
    (
      await pool.query<{ slot: number; total: number }>(
        `SELECT slot, total FROM list_totals WHERE instance_id = 'ins_1' AND list = 'availability_requests'`,
      )
    ).rows;

  beforeAll(async () => {
    database = await createTestDatabase(inject('postgresAdminUrl'));
    pool = openPostgresPool(database.url, 4);
    await migratePostgres(pool);
    db = postgresDb(pool);
    await db.insert(pgSchema.instances).values({ id: 'ins_1', name: 'Totals', code: 'TOT', ...stamps });
    await db.insert(pgSchema.pricePlans).values({
      id: 'ppl_1',
      instanceId: 'ins_1',
      name: 'Standard',
      mrcMarkupBp: 0,
      nrcMarkupBp: 0,
      ...stamps,
    });
    await db.insert(pgSchema.addresses).values({
      id: 'adr_1',
      instanceId: 'ins_1',
      inputKind: 'fields',
      street: 'Singel',
      city: 'Amsterdam',
      houseNumber: '206',
      houseNumberAddition: '',
      postalCode: '1016 XA',
      countryCode: 'NL',
      continentCode: 'EU',
      ...stamps,
    });
  });
  afterAll(async () => {
    await pool?.end();
    await database?.drop();
  });

  it('when two transactions insert requests of one instance at once, then neither waits for the other and the total counts both', async () => {
    const [first, second] = [await pool.connect(), await pool.connect()];
    try {
      await first.query('BEGIN');
      await second.query('BEGIN');
      // With one row per total, the second insert would wait for the first transaction's row lock until it
      // ends — here, until the lock timeout fails it, since the first commits only after the second inserted.
      await second.query(`SET LOCAL lock_timeout = '5s'`);
      await insertRequests(first, ['avr_a1', 'avr_a2']);
      await insertRequests(second, ['avr_b1']);
      await insertRequests(first, ['avr_a3']);
      await first.query('COMMIT');
      await second.query('COMMIT');
    } finally {
      first.release();
      second.release();
    }

    expect(await total()).toBe(4);
    const kept = await slots();
    // Each transaction added all its rows to its one slot.
    expect(kept.map((row) => row.total).sort()).toEqual([1, 3]);
    expect(kept.every((row) => row.slot >= 0 && row.slot < LIST_TOTAL_SLOTS)).toBe(true);
  });

  it('when a transaction that inserted rows rolls back, then the total is as it was', async () => {
    const before = await total();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await insertRequests(client, ['avr_r1', 'avr_r2']);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }

    expect(await total()).toBe(before);
  });

  it('when many transactions insert at once, then the total is exact and spread over at most the slots', async () => {
    const before = await total();
    await Promise.all(
      Array.from({ length: 40 }, async (_, index) => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await insertRequests(client, [`avr_m${index}a`, `avr_m${index}b`]);
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      }),
    );

    expect(await total()).toBe(before + 80);
    expect((await slots()).length).toBeLessThanOrEqual(LIST_TOTAL_SLOTS);
  });
});
