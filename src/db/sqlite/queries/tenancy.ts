/** The SQLite store's tenancy operations, as `contract/tenancy.ts` states them. */
import { eq, or } from 'drizzle-orm';
import { newApplicationRows, newInstanceRow } from '../../shared/tenancy.js';
import type { Op } from '../operation.js';
import { applications, instances, serviceSettings, users } from '../schema/index.js';

export const insertInstance: Op<'insertInstance'> = async (db, input) => {
  const row = newInstanceRow(input);
  db.insert(instances).values(row).run();
  return row;
};

export const findInstance: Op<'findInstance'> = async (db, idOrCode) => {
  return db
    .select()
    .from(instances)
    .where(or(eq(instances.id, idOrCode), eq(instances.code, idOrCode)))
    .get();
};

export const listInstanceIds: Op<'listInstanceIds'> = async (db) => {
  const rows = db
    .select({ id: instances.id })
    .from(instances)
    .orderBy(instances.createdAt, instances.id)
    .all();
  return rows.map((row) => row.id);
};

export const countInstances: Op<'countInstances'> = async (db) => {
  return db.$count(instances);
};

export const insertApplication: Op<'insertApplication'> = async (db, input) => {
  const { user, application } = newApplicationRows(input);
  db.transaction(
    (tx) => {
      tx.insert(users).values(user).run();
      tx.insert(applications).values(application).run();
    },
    { behavior: 'immediate' },
  );
  return { applicationId: application.id, userId: user.id };
};

/** `BEGIN IMMEDIATE` makes the insert-if-absent and the read one step for every other process. */
export const getOrCreateSetting: Op<'getOrCreateSetting'> = async (db, key, candidate) => {
  return db.transaction(
    (tx) => {
      tx.insert(serviceSettings).values({ key, value: candidate }).onConflictDoNothing().run();
      const row = tx.select().from(serviceSettings).where(eq(serviceSettings.key, key)).get();
      if (!row) throw new Error(`setting ${key} vanished`);
      return row.value;
    },
    { behavior: 'immediate' },
  );
};
