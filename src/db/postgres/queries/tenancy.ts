/** The PostgreSQL store's tenancy operations, as `contract/tenancy.ts` states them. */
import { asc, eq, or, sql } from 'drizzle-orm';
import { newApplicationRows, newInstanceRow } from '../../shared/tenancy.js';
import type { Op } from '../operation.js';
import { applications, instances, serviceSettings, users } from '../schema/index.js';

export const insertInstance: Op<'insertInstance'> = async (db, input) => {
  const row = newInstanceRow(input);
  await db.insert(instances).values(row);
  return row;
};

export const findInstance: Op<'findInstance'> = async (db, idOrCode) => {
  const [row] = await db
    .select()
    .from(instances)
    .where(or(eq(instances.id, idOrCode), eq(instances.code, idOrCode)))
    .limit(1);
  return row;
};

export const listInstanceIds: Op<'listInstanceIds'> = async (db) => {
  // `collate "C"`: the contract's bytewise ties, whatever the database's default collation.
  const rows = await db
    .select({ id: instances.id })
    .from(instances)
    .orderBy(asc(instances.createdAt), sql`${instances.id} collate "C"`);
  return rows.map((row) => row.id);
};

export const countInstances: Op<'countInstances'> = async (db) => {
  return db.$count(instances);
};

export const insertApplication: Op<'insertApplication'> = async (db, input) => {
  const { user, application } = newApplicationRows(input);
  await db.transaction(async (tx) => {
    await tx.insert(users).values(user);
    await tx.insert(applications).values(application);
  });
  return { applicationId: application.id, userId: user.id };
};

/**
 * Atomic without a lock: `INSERT … ON CONFLICT DO NOTHING` waits for a concurrent uncommitted insert of the
 * same key and then does nothing, and the following `SELECT` (a fresh READ COMMITTED snapshot) reads the
 * row that won.
 */
export const getOrCreateSetting: Op<'getOrCreateSetting'> = async (db, key, candidate) => {
  return db.transaction(async (tx) => {
    await tx.insert(serviceSettings).values({ key, value: candidate }).onConflictDoNothing();
    const [row] = await tx.select().from(serviceSettings).where(eq(serviceSettings.key, key));
    if (!row) throw new Error(`setting ${key} vanished`);
    return row.value;
  });
};
