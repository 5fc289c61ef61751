/*
 * The instance-product operations on PostgreSQL; each function implements the operation of its name
 * documented in `CatalogOperations` (src/db/contract/catalog.ts).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { newInstanceProductRows } from '../../shared/catalog.js';
import type { Op } from '../operation.js';
import { instanceProducts } from '../schema/index.js';

const ofInstance = (instanceId: string) => eq(instanceProducts.instanceId, instanceId);

/** One multi-row `INSERT`, atomic on its own. */
export const insertInstanceProducts: Op<'insertInstanceProducts'> = async (db, instanceId, products, now) => {
  const rows = newInstanceProductRows(instanceId, products, now);
  if (rows.length > 0) await db.insert(instanceProducts).values(rows);
  return rows;
};

export const updateInstanceProduct: Op<'updateInstanceProduct'> = async (
  db,
  instanceId,
  id,
  changes,
  now,
) => {
  const [row] = await db
    .update(instanceProducts)
    .set({ ...changes, updatedAt: now })
    .where(and(ofInstance(instanceId), eq(instanceProducts.id, id)))
    .returning();
  return row;
};

export const listInstanceProducts: Op<'listInstanceProducts'> = async (db, instanceId, mandatory) => {
  const p = instanceProducts;
  return db
    .select()
    .from(p)
    .where(and(ofInstance(instanceId), eq(p.mandatory, mandatory)))
    .orderBy(sql`${p.name} collate "C"`, sql`${p.id} collate "C"`);
};

export const findInstanceProducts: Op<'findInstanceProducts'> = async (db, instanceId, ids) => {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(instanceProducts)
    .where(and(ofInstance(instanceId), inArray(instanceProducts.id, [...ids])))
    .orderBy(asc(instanceProducts.id));
};
