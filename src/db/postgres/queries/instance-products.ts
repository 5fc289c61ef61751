import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { InstanceProductRow, NewInstanceProduct } from '../../rows.js';
import type { PostgresDb } from '../client.js';
import { instanceProducts } from '../schema/index.js';

/**
 * Creates instance products in one multi-row `INSERT` (all or none). Mandatory products get the `mpr_`
 * id prefix and the others `ipr_`, so a quote's `mandatory_product_ids` and `instance_product_ids` can
 * never be mixed up.
 */
export async function insertInstanceProducts(
  db: PostgresDb,
  instanceId: string,
  products: NewInstanceProduct[],
  now: Date,
): Promise<InstanceProductRow[]> {
  const rows: InstanceProductRow[] = products.map((product) => ({
    ...product,
    id: newId(product.mandatory ? 'mandatoryProduct' : 'instanceProduct'),
    instanceId,
    createdAt: now,
    updatedAt: now,
  }));
  if (rows.length > 0) await db.insert(instanceProducts).values(rows);
  return rows;
}

/** Changes an instance product's name, description or prices; returns the row, or undefined when not found. */
export async function updateInstanceProduct(
  db: PostgresDb,
  instanceId: string,
  id: string,
  changes: Partial<Pick<InstanceProductRow, 'name' | 'description' | 'mrcMinor' | 'nrcMinor' | 'currency'>>,
  now: Date,
): Promise<InstanceProductRow | undefined> {
  const [row] = await db
    .update(instanceProducts)
    .set({ ...changes, updatedAt: now })
    .where(and(eq(instanceProducts.instanceId, instanceId), eq(instanceProducts.id, id)))
    .returning();
  return row;
}

/** An instance's products of one kind, by name then id (byte order, as in SQLite). */
export async function listInstanceProducts(
  db: PostgresDb,
  instanceId: string,
  mandatory: boolean,
): Promise<InstanceProductRow[]> {
  return db
    .select()
    .from(instanceProducts)
    .where(and(eq(instanceProducts.instanceId, instanceId), eq(instanceProducts.mandatory, mandatory)))
    .orderBy(sql`${instanceProducts.name} collate "C"`, sql`${instanceProducts.id} collate "C"`);
}

/** Those of the given ids that are products of the instance (any kind), by id. */
export async function findInstanceProducts(
  db: PostgresDb,
  instanceId: string,
  ids: readonly string[],
): Promise<InstanceProductRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(instanceProducts)
    .where(and(eq(instanceProducts.instanceId, instanceId), inArray(instanceProducts.id, [...ids])))
    .orderBy(asc(instanceProducts.id));
}
