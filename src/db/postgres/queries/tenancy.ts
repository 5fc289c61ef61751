import { asc, eq, or, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { InstanceRow, NewApplication } from '../../rows.js';
import type { PostgresDb } from '../client.js';
import { applications, instances, serviceSettings, users } from '../schema/index.js';

/**
 * Inserts an instance. Throws PostgreSQL's unique violation (SQLSTATE 23505, wrapped by drizzle) when
 * `code` is taken (callers check first).
 */
export async function insertInstance(
  db: PostgresDb,
  input: { name: string; code: string; now: Date },
): Promise<InstanceRow> {
  const row: InstanceRow = {
    id: newId('instance'),
    name: input.name,
    code: input.code,
    defaultCurrency: 'EUR',
    quoteValidityDays: 30,
    createdAt: input.now,
    updatedAt: input.now,
  };
  await db.insert(instances).values(row);
  return row;
}

/** The instance with this id or code, or undefined. */
export async function findInstance(db: PostgresDb, idOrCode: string): Promise<InstanceRow | undefined> {
  const [row] = await db
    .select()
    .from(instances)
    .where(or(eq(instances.id, idOrCode), eq(instances.code, idOrCode)))
    .limit(1);
  return row;
}

/** The ids of every instance, oldest first (ties by id, byte order as in SQLite). */
export async function listInstanceIds(db: PostgresDb): Promise<string[]> {
  const rows = await db
    .select({ id: instances.id })
    .from(instances)
    .orderBy(asc(instances.createdAt), sql`${instances.id} collate "C"`);
  return rows.map((row) => row.id);
}

/** Number of instances (0 on a fresh database). */
export async function countInstances(db: PostgresDb): Promise<number> {
  return db.$count(instances);
}

/** Creates the application's service-account user and the application in one transaction. */
export async function insertApplication(
  db: PostgresDb,
  input: NewApplication,
): Promise<{ applicationId: string; userId: string }> {
  const userId = newId('user');
  const applicationId = newId('application');
  const stamps = { createdAt: input.now, updatedAt: input.now };
  await db.transaction(async (tx) => {
    await tx.insert(users).values({
      id: userId,
      instanceId: input.instanceId,
      email: `${input.clientId}@applications.invalid`,
      firstName: input.name,
      lastName: '',
      roles: input.roles,
      ...stamps,
    });
    await tx.insert(applications).values({
      id: applicationId,
      instanceId: input.instanceId,
      userId,
      name: input.name,
      clientId: input.clientId,
      clientSecretHash: input.clientSecretHash,
      ...stamps,
    });
  });
  return { applicationId, userId };
}

/**
 * Returns the stored value of a service setting, storing `candidate` first when none exists yet.
 * Race-free on PostgreSQL: `INSERT ... ON CONFLICT DO NOTHING` waits for a concurrent uncommitted insert of
 * the same key and then does nothing, and the following `SELECT` (a fresh READ COMMITTED snapshot) reads
 * the row that won, so processes starting at once all return the same value.
 *
 * @throws Error when the row vanished in between (a setting is never deleted).
 */
export async function getOrCreateSetting(db: PostgresDb, key: string, candidate: string): Promise<string> {
  return db.transaction(async (tx) => {
    await tx.insert(serviceSettings).values({ key, value: candidate }).onConflictDoNothing();
    const [row] = await tx.select().from(serviceSettings).where(eq(serviceSettings.key, key));
    if (!row) throw new Error(`setting ${key} vanished`);
    return row.value;
  });
}
