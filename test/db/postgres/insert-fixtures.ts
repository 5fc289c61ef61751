import type pg from 'pg';
import { inject } from 'vitest';
import { type PostgresDb, postgresDb } from '../../../src/db/postgres/client.js';
import { migratePostgres } from '../../../src/db/postgres/migrate.js';
import { openPostgresPool } from '../../../src/db/postgres/pool.js';
import { instances, pricePlans, sources } from '../../../src/db/postgres/schema/index.js';
import { createTestDatabase } from '../../helpers/postgres-server.js';

/** A queued gathering task of instance `ins_a`, available and stamped at `at`. */
export const queuedTask = (availabilityRequestId: string, sourceId: string, at: Date) => ({
  instanceId: 'ins_a',
  availabilityRequestId,
  sourceId,
  status: 'queued' as const,
  attempts: 0,
  availableAt: at,
  createdAt: at,
  updatedAt: at,
});

/** A fresh migrated database of its own, with what the insert tests' rows reference. */
export interface InsertDatabase {
  pool: pg.Pool;
  db: PostgresDb;
  /** Ends the pool and drops the database. */
  close(): Promise<void>;
}

/**
 * Creates and migrates a database on the suite's PostgreSQL server, with instance `ins_a`, its price plan
 * `ppl_a` (no markup) and two catalogue sources `src_b` and `src_a` (KPN, NL), all stamped `at`.
 */
export async function openInsertDatabase(at: Date): Promise<InsertDatabase> {
  const stamps = { createdAt: at, updatedAt: at };
  const database = await createTestDatabase(inject('postgresAdminUrl'));
  const pool = openPostgresPool(database.url, 2);
  await migratePostgres(pool);
  const db = postgresDb(pool);
  await db.insert(instances).values({ id: 'ins_a', name: 'A', code: 'AAA', ...stamps });
  const plan = { id: 'ppl_a', instanceId: 'ins_a', name: 'Standard', mrcMarkupBp: 0, nrcMarkupBp: 0 };
  await db.insert(pricePlans).values({ ...plan, ...stamps });
  await db.insert(sources).values(
    ['src_b', 'src_a'].map((id) => ({
      id,
      instanceId: 'ins_a',
      key: id,
      name: id,
      network: 'KPN',
      type: 'catalog' as const,
      countryCodes: ['NL'],
      ...stamps,
    })),
  );
  return {
    pool,
    db,
    close: async () => {
      await pool.end();
      await database.drop();
    },
  };
}
