import { eq, or } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { SqliteDb } from '../client.js';
import { applications, instances, serviceSettings, users } from '../schema/index.js';

/** An instance (tenant) row. */
export type InstanceRow = typeof instances.$inferSelect;
/** A user row. */
export type UserRow = typeof users.$inferSelect;

/** Inserts an instance. Throws SQLite's UNIQUE error when `code` is taken (callers check first). */
export async function insertInstance(
  db: SqliteDb,
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
  db.insert(instances).values(row).run();
  return row;
}

/** The instance with this id or code, or undefined. */
export async function findInstance(db: SqliteDb, idOrCode: string): Promise<InstanceRow | undefined> {
  return db
    .select()
    .from(instances)
    .where(or(eq(instances.id, idOrCode), eq(instances.code, idOrCode)))
    .get();
}

/** The ids of every instance, oldest first. */
export async function listInstanceIds(db: SqliteDb): Promise<string[]> {
  const rows = db
    .select({ id: instances.id })
    .from(instances)
    .orderBy(instances.createdAt, instances.id)
    .all();
  return rows.map((row) => row.id);
}

/** Number of instances (0 on a fresh database). */
export async function countInstances(db: SqliteDb): Promise<number> {
  return db.$count(instances);
}

/** Input of {@link insertApplication}: a service-account user plus its client credentials. */
export interface NewApplication {
  instanceId: string;
  name: string;
  roles: string[];
  clientId: string;
  /** SHA-256 (hex) of the client secret; the secret itself is never stored. */
  clientSecretHash: string;
  now: Date;
}

/** Creates the application's service-account user and the application in one transaction. */
export async function insertApplication(
  db: SqliteDb,
  input: NewApplication,
): Promise<{ applicationId: string; userId: string }> {
  const userId = newId('user');
  const applicationId = newId('application');
  const stamps = { createdAt: input.now, updatedAt: input.now };
  db.transaction(
    (tx) => {
      tx.insert(users)
        .values({
          id: userId,
          instanceId: input.instanceId,
          email: `${input.clientId}@applications.invalid`,
          firstName: input.name,
          lastName: '',
          roles: input.roles,
          ...stamps,
        })
        .run();
      tx.insert(applications)
        .values({
          id: applicationId,
          instanceId: input.instanceId,
          userId,
          name: input.name,
          clientId: input.clientId,
          clientSecretHash: input.clientSecretHash,
          ...stamps,
        })
        .run();
    },
    { behavior: 'immediate' },
  );
  return { applicationId, userId };
}

/**
 * Returns the stored value of a service setting, storing `candidate` first when none exists yet.
 * Atomic, so two processes starting at once agree on one value.
 */
export async function getOrCreateSetting(db: SqliteDb, key: string, candidate: string): Promise<string> {
  return db.transaction(
    (tx) => {
      tx.insert(serviceSettings).values({ key, value: candidate }).onConflictDoNothing().run();
      const row = tx.select().from(serviceSettings).where(eq(serviceSettings.key, key)).get();
      if (!row) throw new Error(`setting ${key} vanished`);
      return row.value;
    },
    { behavior: 'immediate' },
  );
}
