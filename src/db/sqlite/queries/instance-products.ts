import { and, asc, eq, inArray } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { SqliteDb } from '../client.js';
import { instanceProducts } from '../schema/index.js';

/** An instance-product row (instance or mandatory product). */
export type InstanceProductRow = typeof instanceProducts.$inferSelect;

/** An instance product to create; prices in minor units. */
export type NewInstanceProduct = Pick<
  InstanceProductRow,
  'mandatory' | 'name' | 'description' | 'mrcMinor' | 'nrcMinor' | 'currency'
>;

/**
 * Creates instance products in one transaction. Mandatory products get the `mpr_` id prefix and the
 * others `ipr_`, so a quote's `mandatory_product_ids` and `instance_product_ids` can never be mixed up.
 */
export async function insertInstanceProducts(
  db: SqliteDb,
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
  if (rows.length > 0)
    db.transaction((tx) => tx.insert(instanceProducts).values(rows).run(), { behavior: 'immediate' });
  return rows;
}

/** Changes an instance product's name, description or prices; returns the row, or undefined when not found. */
export async function updateInstanceProduct(
  db: SqliteDb,
  instanceId: string,
  id: string,
  changes: Partial<Pick<InstanceProductRow, 'name' | 'description' | 'mrcMinor' | 'nrcMinor' | 'currency'>>,
  now: Date,
): Promise<InstanceProductRow | undefined> {
  return db
    .update(instanceProducts)
    .set({ ...changes, updatedAt: now })
    .where(and(eq(instanceProducts.instanceId, instanceId), eq(instanceProducts.id, id)))
    .returning()
    .get();
}

/** An instance's products of one kind, by name then id. */
export async function listInstanceProducts(
  db: SqliteDb,
  instanceId: string,
  mandatory: boolean,
): Promise<InstanceProductRow[]> {
  return db
    .select()
    .from(instanceProducts)
    .where(and(eq(instanceProducts.instanceId, instanceId), eq(instanceProducts.mandatory, mandatory)))
    .orderBy(asc(instanceProducts.name), asc(instanceProducts.id))
    .all();
}

/** Those of the given ids that are products of the instance (any kind). */
export async function findInstanceProducts(
  db: SqliteDb,
  instanceId: string,
  ids: readonly string[],
): Promise<InstanceProductRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(instanceProducts)
    .where(and(eq(instanceProducts.instanceId, instanceId), inArray(instanceProducts.id, [...ids])))
    .all();
}
