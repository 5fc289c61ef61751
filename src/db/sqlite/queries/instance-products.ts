/*
 * The instance-product operations on SQLite; each function implements the operation of its name
 * documented in `CatalogOperations` (src/db/contract/catalog.ts).
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import { newInstanceProductRows } from '../../shared/catalog.js';
import type { Op } from '../operation.js';
import { instanceProducts } from '../schema/index.js';

const ofInstance = (instanceId: string) => eq(instanceProducts.instanceId, instanceId);

/** One multi-row insert, in a write transaction of its own. */
export const insertInstanceProducts: Op<'insertInstanceProducts'> = async (db, instanceId, products, now) => {
  const rows = newInstanceProductRows(instanceId, products, now);
  if (rows.length > 0)
    db.transaction((tx) => tx.insert(instanceProducts).values(rows).run(), { behavior: 'immediate' });
  return rows;
};

export const updateInstanceProduct: Op<'updateInstanceProduct'> = async (
  db,
  instanceId,
  id,
  changes,
  now,
) => {
  return db
    .update(instanceProducts)
    .set({ ...changes, updatedAt: now })
    .where(and(ofInstance(instanceId), eq(instanceProducts.id, id)))
    .returning()
    .get();
};

export const listInstanceProducts: Op<'listInstanceProducts'> = async (db, instanceId, mandatory) => {
  const p = instanceProducts;
  return db
    .select()
    .from(p)
    .where(and(ofInstance(instanceId), eq(p.mandatory, mandatory)))
    .orderBy(asc(p.name), asc(p.id))
    .all();
};

export const findInstanceProducts: Op<'findInstanceProducts'> = async (db, instanceId, ids) => {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(instanceProducts)
    .where(and(ofInstance(instanceId), inArray(instanceProducts.id, [...ids])))
    .orderBy(asc(instanceProducts.id))
    .all();
};
