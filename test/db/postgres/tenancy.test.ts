import { eq } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as tenancy from '../../../src/db/postgres/queries/tenancy.js';
import { applications, serviceSettings, users } from '../../../src/db/postgres/schema/index.js';
import { postgresUnavailable } from '../../../src/db/postgres/unavailable.js';
import { bindOperations, type StoreOperations } from '../../../src/db/store.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';

let database: { url: string; drop(): Promise<void> };
let pool: pg.Pool;
let db: PostgresDb;
/** The module bound as the store binds it, typed by the SQLite twin's signatures. */
let store: Pick<StoreOperations, keyof typeof tenancy>;

beforeAll(async () => {
  database = await createTestDatabase(inject('postgresAdminUrl'));
  pool = openPostgresPool(database.url, 10);
  // As the store does (it logs them): the database's drop at the end may end a connection still closing.
  pool.on('error', () => undefined);
  await migratePostgres(pool);
  db = postgresDb(pool);
  store = bindOperations(db, tenancy, postgresUnavailable);
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const now = new Date('2026-11-25T10:00:00.123Z');

describe('PostgreSQL tenancy queries', () => {
  it('when a fresh database is counted, then it has 0 instances', async () => {
    expect(await store.countInstances()).toBe(0);
    expect(await store.listInstanceIds()).toEqual([]);
  });

  it('when instances are inserted, then they are found by id or code, counted and listed oldest first', async () => {
    const later = await store.insertInstance({
      name: 'Later',
      code: 'LAT',
      now: new Date(now.getTime() + 1),
    });
    const first = await store.insertInstance({ name: 'Acme', code: 'ACM', now });
    const second = await store.insertInstance({ name: 'Beta', code: 'BET', now });

    expect(first).toEqual({
      id: expect.stringMatching(/^ins_/),
      name: 'Acme',
      code: 'ACM',
      defaultCurrency: 'EUR',
      quoteValidityDays: 30,
      createdAt: now,
      updatedAt: now,
    });
    expect(await store.findInstance(first.id)).toEqual(first);
    expect(await store.findInstance('ACM')).toEqual(first);
    expect(await store.findInstance('NOPE')).toBeUndefined();
    expect(await store.countInstances()).toBe(3);
    const sameTime = [first.id, second.id].sort();
    expect(await store.listInstanceIds()).toEqual([...sameTime, later.id]);
  });

  it('when an instance code is taken, then the insert throws a unique violation', async () => {
    const error = await store.insertInstance({ name: 'Dup', code: 'ACM', now }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(((error as Error).cause as pg.DatabaseError).code).toBe('23505');
    expect(await store.countInstances()).toBe(3);
  });

  it('when an application is inserted, then its service-account user and the application are stored', async () => {
    const instance = await store.insertInstance({ name: 'Apps', code: 'APP', now });
    const ids = await store.insertApplication({
      instanceId: instance.id,
      name: 'Checker',
      roles: ['connectivity_check'],
      clientId: 'client-1',
      clientSecretHash: 'hash-1',
      now,
    });

    expect(ids).toEqual({
      applicationId: expect.stringMatching(/^app_/),
      userId: expect.stringMatching(/^usr_/),
    });
    expect(await db.select().from(users).where(eq(users.id, ids.userId))).toEqual([
      {
        id: ids.userId,
        instanceId: instance.id,
        email: 'client-1@applications.invalid',
        firstName: 'Checker',
        lastName: '',
        locale: 'en',
        roles: ['connectivity_check'],
        createdAt: now,
        updatedAt: now,
      },
    ]);
    expect(await db.select().from(applications).where(eq(applications.id, ids.applicationId))).toEqual([
      {
        id: ids.applicationId,
        instanceId: instance.id,
        userId: ids.userId,
        name: 'Checker',
        clientId: 'client-1',
        clientSecretHash: 'hash-1',
        disabledAt: null,
        createdAt: now,
        updatedAt: now,
      },
    ]);
  });

  it('when the application’s client id is taken, then nothing is written, not even its user', async () => {
    const instance = await store.findInstance('APP');
    const usersBefore = await db.$count(users);
    await expect(
      store.insertApplication({
        instanceId: instance?.id ?? '',
        name: 'Again',
        roles: [],
        clientId: 'client-1',
        clientSecretHash: 'hash-2',
        now,
      }),
    ).rejects.toThrow();
    expect(await db.$count(users)).toBe(usersBefore);
  });

  it('when a setting is read twice, then the first candidate is kept', async () => {
    expect(await store.getOrCreateSetting('plain', 'first')).toBe('first');
    expect(await store.getOrCreateSetting('plain', 'second')).toBe('first');
  });

  it('when 20 processes create the same setting at once, then all get the one value that was stored', async () => {
    const values = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.getOrCreateSetting('token_signing_secret', `candidate-${i}`),
      ),
    );

    const stored = await db
      .select()
      .from(serviceSettings)
      .where(eq(serviceSettings.key, 'token_signing_secret'));
    expect(stored).toHaveLength(1);
    expect(new Set(values)).toEqual(new Set([stored[0]?.value]));
  });
});
