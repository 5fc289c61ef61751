/** The SQLite store's tenancy operations, as `contract/tenancy.ts` states them. */
import { eq, or } from 'drizzle-orm';
import type { CreatedApplication, InstanceRow, NewApplication, NewInstance } from '../../contract/index.js';
import { newApplicationRows, newInstanceRow } from '../../shared/tenancy.js';
import type { SqliteDb } from '../client.js';
import { applications, instances, serviceSettings, users } from '../schema/index.js';

export async function insertInstance(db: SqliteDb, input: NewInstance): Promise<InstanceRow> {
  const row = newInstanceRow(input);
  db.insert(instances).values(row).run();
  return row;
}

export async function findInstance(db: SqliteDb, idOrCode: string): Promise<InstanceRow | undefined> {
  return db
    .select()
    .from(instances)
    .where(or(eq(instances.id, idOrCode), eq(instances.code, idOrCode)))
    .get();
}

export async function listInstanceIds(db: SqliteDb): Promise<string[]> {
  const rows = db
    .select({ id: instances.id })
    .from(instances)
    .orderBy(instances.createdAt, instances.id)
    .all();
  return rows.map((row) => row.id);
}

export async function countInstances(db: SqliteDb): Promise<number> {
  return db.$count(instances);
}

export async function insertApplication(db: SqliteDb, input: NewApplication): Promise<CreatedApplication> {
  const { user, application } = newApplicationRows(input);
  db.transaction(
    (tx) => {
      tx.insert(users).values(user).run();
      tx.insert(applications).values(application).run();
    },
    { behavior: 'immediate' },
  );
  return { applicationId: application.id, userId: user.id };
}

// `BEGIN IMMEDIATE` makes the insert-if-absent and the read one step for every other process.
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
