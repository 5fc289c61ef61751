import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as instanceProductQueries from '../../../src/db/postgres/queries/instance-products.js';
import { insertInstance } from '../../../src/db/postgres/queries/tenancy.js';
import { instanceProducts } from '../../../src/db/postgres/schema/index.js';
import { postgresUnavailable } from '../../../src/db/postgres/unavailable.js';
import type { InstanceProductRow, NewInstanceProduct } from '../../../src/db/rows.js';
import { openSqliteStore } from '../../../src/db/sqlite/store.js';
import { bindOperations, type Store, type StoreOperations } from '../../../src/db/store.js';
import { createLogger } from '../../../src/logger.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';

let database: { url: string; drop(): Promise<void> };
let pool: pg.Pool;
let db: PostgresDb;
/** The module bound as the store binds it, typed by the SQLite twin's signatures. */
let store: Pick<StoreOperations, keyof typeof instanceProductQueries>;
let sqlite: Store;
let instanceId: string;
let otherInstanceId: string;

const now = new Date('2026-11-25T10:00:00.000Z');
const later = new Date('2026-11-25T11:00:00.000Z');

const product = (name: string, mandatory = false): NewInstanceProduct => ({
  mandatory,
  fulfilment: mandatory ? 'none' : 'manual',
  name,
  description: `${name} description`,
  mrcMinor: 1500,
  nrcMinor: 9900,
  currency: 'EUR',
});

const withoutIds = (rows: InstanceProductRow[]) => rows.map(({ id: _, instanceId: __, ...rest }) => rest);

beforeAll(async () => {
  database = await createTestDatabase(inject('postgresAdminUrl'));
  pool = openPostgresPool(database.url, 5);
  // As the store does (it logs them): the database's drop at the end may end a connection still closing.
  pool.on('error', () => undefined);
  await migratePostgres(pool);
  db = postgresDb(pool);
  store = bindOperations(db, instanceProductQueries, postgresUnavailable);
  sqlite = await openSqliteStore(':memory:', { logger: createLogger('silent') });
  instanceId = (await insertInstance(db, { name: 'Acme', code: 'ACM', now })).id;
  otherInstanceId = (await insertInstance(db, { name: 'Beta', code: 'BET', now })).id;
});

afterAll(async () => {
  await sqlite?.close();
  await pool?.end();
  await database?.drop();
});

describe('PostgreSQL instance-product queries', () => {
  it('when products are inserted, then each kind gets its prefix and lists by byte-order name then id, as SQLite does', async () => {
    const input = [
      product('router'),
      product('SLA', true),
      product('Router'),
      product('router'),
      product('install', true),
      product('Managed Wi-Fi'),
    ];

    const created = await store.insertInstanceProducts(instanceId, input, now);

    expect(created).toEqual(
      input.map((p) => ({
        ...p,
        id: expect.stringMatching(p.mandatory ? /^mpr_/ : /^ipr_/),
        instanceId,
        createdAt: now,
        updatedAt: now,
      })),
    );
    const regular = await store.listInstanceProducts(instanceId, false);
    expect(regular.map((p) => p.name)).toEqual(['Managed Wi-Fi', 'Router', 'router', 'router']);
    expect(regular.slice(2).map((p) => p.id)).toEqual([created[0]?.id, created[3]?.id]);
    expect(regular[0]).toEqual(created[5]);
    const mandatory = await store.listInstanceProducts(instanceId, true);
    expect(mandatory.map((p) => p.name)).toEqual(['SLA', 'install']);

    const sqliteInstanceId = (await sqlite.insertInstance({ name: 'Acme', code: 'ACM', now })).id;
    await sqlite.insertInstanceProducts(sqliteInstanceId, input, now);
    expect(withoutIds(regular)).toEqual(
      withoutIds(await sqlite.listInstanceProducts(sqliteInstanceId, false)),
    );
    expect(withoutIds(mandatory)).toEqual(
      withoutIds(await sqlite.listInstanceProducts(sqliteInstanceId, true)),
    );
    expect(await store.listInstanceProducts(otherInstanceId, false)).toEqual([]);
  });

  it('when nothing is inserted, then nothing is written', async () => {
    const before = await db.$count(instanceProducts);
    expect(await store.insertInstanceProducts(instanceId, [], now)).toEqual([]);
    expect(await db.$count(instanceProducts)).toBe(before);
  });

  it('when products are found by id, then only the instance’s ones come back, in id order', async () => {
    const [a, b] = await store.insertInstanceProducts(instanceId, [product('a'), product('b', true)], now);
    const [foreign] = await store.insertInstanceProducts(otherInstanceId, [product('x')], now);

    const found = await store.findInstanceProducts(instanceId, [
      b?.id ?? '',
      foreign?.id ?? '',
      a?.id ?? '',
      'ipr_none',
    ]);

    expect(found).toEqual([a, b].sort((x, y) => ((x?.id ?? '') < (y?.id ?? '') ? -1 : 1)));
    expect(await store.findInstanceProducts(instanceId, [])).toEqual([]);
  });

  it('when a product is updated, then only the given fields and the change time change', async () => {
    const [row] = await store.insertInstanceProducts(instanceId, [product('Old')], now);
    const id = row?.id ?? '';

    const updated = await store.updateInstanceProduct(instanceId, id, { name: 'New', nrcMinor: 0 }, later);

    expect(updated).toEqual({ ...row, name: 'New', nrcMinor: 0, updatedAt: later });
    expect(await store.findInstanceProducts(instanceId, [id])).toEqual([updated]);
    expect(await store.updateInstanceProduct(otherInstanceId, id, { name: 'Stolen' }, later)).toBeUndefined();
    expect(await store.updateInstanceProduct(instanceId, 'ipr_none', { name: 'X' }, later)).toBeUndefined();
    expect(await store.updateInstanceProduct(instanceId, id, {}, now)).toEqual({
      ...updated,
      updatedAt: now,
    });
  });
});
