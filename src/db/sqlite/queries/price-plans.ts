import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { PricingPlan, PricingRule } from '../../../gathering/pricing.js';
import { newId } from '../../../ids.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { customers, pricePlanRules, pricePlans } from '../schema/index.js';

/** A price-plan row. */
export type PricePlanRow = typeof pricePlans.$inferSelect;

/** A plan with its rules. */
export type PricePlanWithRules = PricePlanRow & { rules: PricingRule[] };

/** A plan to create: markups in basis points; `isDefault` makes it the instance's default. */
export interface NewPricePlan {
  name: string;
  isDefault: boolean;
  mrcMarkupBp: number;
  nrcMarkupBp: number;
  rules: PricingRule[];
}

/**
 * Creates price plans for an instance in one transaction. A plan created as default takes the default
 * over from the previous one, so an instance has exactly one default at any time.
 *
 * @returns the created plans, in input order.
 */
export async function insertPricePlans(
  db: SqliteDb,
  instanceId: string,
  plans: NewPricePlan[],
  now: Date,
): Promise<PricePlanWithRules[]> {
  return db.transaction(
    (tx) =>
      plans.map((plan) => {
        if (plan.isDefault) {
          tx.update(pricePlans)
            .set({ isDefault: false, updatedAt: now })
            .where(and(eq(pricePlans.instanceId, instanceId), eq(pricePlans.isDefault, true)))
            .run();
        }
        const row: PricePlanRow = {
          id: newId('pricePlan'),
          instanceId,
          name: plan.name,
          isDefault: plan.isDefault,
          mrcMarkupBp: plan.mrcMarkupBp,
          nrcMarkupBp: plan.nrcMarkupBp,
          createdAt: now,
          updatedAt: now,
        };
        tx.insert(pricePlans).values(row).run();
        if (plan.rules.length > 0) {
          tx.insert(pricePlanRules)
            .values(plan.rules.map((rule) => ({ ...rule, pricePlanId: row.id })))
            .run();
        }
        return { ...row, rules: plan.rules };
      }),
    { behavior: 'immediate' },
  );
}

async function withRules(db: SqliteDb, plans: PricePlanRow[]): Promise<PricePlanWithRules[]> {
  const rules = rulesOfPlan(db);
  return plans.map((plan) => ({ ...plan, rules: rules.all({ pricePlanId: plan.id }) }));
}

const rulesOfPlan = preparedQuery((db) =>
  db
    .select({
      network: pricePlanRules.network,
      technologyType: pricePlanRules.technologyType,
      connectionType: pricePlanRules.connectionType,
      mrcMarkupBp: pricePlanRules.mrcMarkupBp,
      nrcMarkupBp: pricePlanRules.nrcMarkupBp,
    })
    .from(pricePlanRules)
    .where(eq(pricePlanRules.pricePlanId, sql.placeholder('pricePlanId')))
    .orderBy(asc(pricePlanRules.id))
    .prepare(),
);

const planById = preparedQuery((db) =>
  db
    .select()
    .from(pricePlans)
    .where(eq(pricePlans.id, sql.placeholder('id')))
    .prepare(),
);

const defaultPlan = preparedQuery((db) =>
  db
    .select()
    .from(pricePlans)
    .where(and(eq(pricePlans.instanceId, sql.placeholder('instanceId')), eq(pricePlans.isDefault, true)))
    .prepare(),
);

/** The plans of an instance with their rules, default first, then by name. */
export async function listPricePlans(db: SqliteDb, instanceId: string): Promise<PricePlanWithRules[]> {
  const plans = db
    .select()
    .from(pricePlans)
    .where(eq(pricePlans.instanceId, instanceId))
    .orderBy(desc(pricePlans.isDefault), asc(pricePlans.name))
    .all();
  return withRules(db, plans);
}

/** One plan of an instance, or undefined. */
export async function findPricePlan(
  db: SqliteDb,
  instanceId: string,
  id: string,
): Promise<PricePlanRow | undefined> {
  return db
    .select()
    .from(pricePlans)
    .where(and(eq(pricePlans.instanceId, instanceId), eq(pricePlans.id, id)))
    .get();
}

/** The default plan of an instance, or undefined when it has none (an instance created outside the API). */
export async function findDefaultPricePlan(
  db: SqliteDb,
  instanceId: string,
): Promise<PricePlanRow | undefined> {
  return defaultPlan(db).get({ instanceId });
}

/** A plan's markups and rules as the pricing engine needs them (by id; the caller knows the plan exists). */
export async function loadPricingPlan(db: SqliteDb, pricePlanId: string): Promise<PricingPlan | undefined> {
  const plan = planById(db).get({ id: pricePlanId });
  if (!plan) return undefined;
  const [withRulesPlan] = await withRules(db, [plan]);
  return withRulesPlan;
}

/** Assigns a plan to a customer of the same instance; returns false when the customer does not exist there. */
export async function setCustomerPricePlan(
  db: SqliteDb,
  input: { instanceId: string; customerId: string; pricePlanId: string; now: Date },
): Promise<boolean> {
  const result = db
    .update(customers)
    .set({ pricePlanId: input.pricePlanId, updatedAt: input.now })
    .where(and(eq(customers.instanceId, input.instanceId), eq(customers.id, input.customerId)))
    .run();
  return result.changes === 1;
}
