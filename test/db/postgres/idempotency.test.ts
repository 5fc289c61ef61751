import { and, eq } from 'drizzle-orm';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import * as idempotency from '../../../src/db/postgres/queries/idempotency.js';
import { insertInstance } from '../../../src/db/postgres/queries/tenancy.js';
import { idempotencyKeys } from '../../../src/db/postgres/schema/index.js';
import { postgresUnavailable } from '../../../src/db/postgres/unavailable.js';
import { bindOperations, type StoreOperations } from '../../../src/db/store.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';

let database: { url: string; drop(): Promise<void> };
let pool: pg.Pool;
let db: PostgresDb;
/** The module bound as the store binds it, typed by the SQLite twin's signatures. */
let store: Pick<StoreOperations, keyof typeof idempotency>;
let instanceId: string;
let otherInstanceId: string;

const now = new Date('2026-11-25T10:00:00.000Z');
const ttlMs = 86_400_000;
const claim = (key: string, requestHash: string, at = now) =>
  store.claimIdempotencyKey({ instanceId, key, requestHash, now: at, ttlMs });

beforeAll(async () => {
  database = await createTestDatabase(inject('postgresAdminUrl'));
  pool = openPostgresPool(database.url, 10);
  // As the store does (it logs them): the database's drop at the end may end a connection still closing.
  pool.on('error', () => undefined);
  await migratePostgres(pool);
  db = postgresDb(pool);
  store = bindOperations(db, idempotency, postgresUnavailable);
  instanceId = (await insertInstance(db, { name: 'Acme', code: 'ACM', now })).id;
  otherInstanceId = (await insertInstance(db, { name: 'Beta', code: 'BET', now })).id;
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

async function storedKey(key: string) {
  return db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.instanceId, instanceId), eq(idempotencyKeys.key, key)));
}

describe('PostgreSQL idempotency queries', () => {
  it('when a key is claimed, used again, completed and replayed, then each call gets the right answer', async () => {
    expect(await claim('k1', 'h1')).toEqual({ kind: 'claimed' });
    expect(await storedKey('k1')).toEqual([
      {
        instanceId,
        key: 'k1',
        requestHash: 'h1',
        state: 'in_progress',
        responseStatus: null,
        responseBody: null,
        expiresAt: new Date(now.getTime() + ttlMs),
      },
    ]);
    expect(await claim('k1', 'h1')).toEqual({ kind: 'in_progress' });
    expect(await claim('k1', 'other')).toEqual({ kind: 'mismatch' });

    await store.completeIdempotencyKey({ instanceId, key: 'k1', status: 201, body: '{"b":1,"a":2}' });

    expect(await claim('k1', 'h1')).toEqual({ kind: 'replay', status: 201, body: '{"b":1,"a":2}' });
    expect(await claim('k1', 'other')).toEqual({ kind: 'mismatch' });
    expect(
      await store.claimIdempotencyKey({
        instanceId: otherInstanceId,
        key: 'k1',
        requestHash: 'x',
        now,
        ttlMs,
      }),
    ).toEqual({ kind: 'claimed' });
  });

  it('when a claimed key is released, then the next request claims it again', async () => {
    expect(await claim('k2', 'h1')).toEqual({ kind: 'claimed' });
    await store.releaseIdempotencyKey({ instanceId, key: 'k2' });
    expect(await storedKey('k2')).toEqual([]);
    expect(await claim('k2', 'h2')).toEqual({ kind: 'claimed' });
  });

  it('when a key has expired, then any request claims it afresh', async () => {
    expect(await claim('k3', 'h1')).toEqual({ kind: 'claimed' });
    await store.completeIdempotencyKey({ instanceId, key: 'k3', status: 200, body: 'done' });
    const expiry = new Date(now.getTime() + ttlMs);

    expect(await claim('k3', 'h1', new Date(expiry.getTime() - 1))).toEqual({
      kind: 'replay',
      status: 200,
      body: 'done',
    });
    expect(await claim('k3', 'h2', expiry)).toEqual({ kind: 'claimed' });
    expect(await storedKey('k3')).toEqual([
      {
        instanceId,
        key: 'k3',
        requestHash: 'h2',
        state: 'in_progress',
        responseStatus: null,
        responseBody: null,
        expiresAt: new Date(expiry.getTime() + ttlMs),
      },
    ]);
  });

  it('when 20 requests claim one key at once, then exactly one claims it and the others see it in progress', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => claim('race', 'h')));

    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'in_progress')).toHaveLength(19);
  });

  it('when 20 requests claim one expired key at once, then exactly one takes it over', async () => {
    expect(await claim('expired-race', 'old')).toEqual({ kind: 'claimed' });
    await store.completeIdempotencyKey({ instanceId, key: 'expired-race', status: 200, body: 'old' });
    const later = new Date(now.getTime() + ttlMs);

    const results = await Promise.all(Array.from({ length: 20 }, () => claim('expired-race', 'new', later)));

    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'in_progress')).toHaveLength(19);
    expect((await storedKey('expired-race'))[0]?.requestHash).toBe('new');
  });
});
