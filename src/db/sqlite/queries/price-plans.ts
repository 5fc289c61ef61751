/** The SQLite store's price-plan operations, as `contract/customers.ts` states them. */
import { and, asc, desc, eq, getTableColumns, sql } from 'drizzle-orm';
import type { PricePlanRow, PricePlanWithRules } from '../../contract/index.js';
import { newPricePlans, pricePlanRows } from '../../shared/customers.js';
import type { SqliteDb } from '../client.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { customers, pricePlanRules, pricePlans } from '../schema/index.js';

/**
 * Plan by plan in one `BEGIN IMMEDIATE` transaction: each default clears the one before it, so of several
 * defaults the last stays, and no other writer switches the default in between.
 */
export const insertPricePlans: Op<'insertPricePlans'> = async (db, instanceId, plans, now) => {
  const created = newPricePlans(instanceId, plans, now);
  db.transaction(
    (tx) => {
      for (const { plan, rules } of created.map(pricePlanRows)) {
        if (plan.isDefault) {
          tx.update(pricePlans)
            .set({ isDefault: false, updatedAt: now })
            .where(and(eq(pricePlans.instanceId, instanceId), eq(pricePlans.isDefault, true)))
            .run();
        }
        tx.insert(pricePlans).values(plan).run();
        if (rules.length > 0) tx.insert(pricePlanRules).values(rules).run();
      }
    },
    { behavior: 'immediate' },
  );
  return created;
};

/** The rules of each plan: one prepared read per plan (an instance has a handful of plans). */
async function withRules(db: SqliteDb, plans: PricePlanRow[]): Promise<PricePlanWithRules[]> {
  const rules = rulesOfPlan(db);
  return plans.map((plan) => ({ ...plan, rules: rules.all({ pricePlanId: plan.id }) }));
}

/** A rule's criteria and markups: what `PricingRule` holds. */
const { id: _id, pricePlanId: _pricePlanId, ...ruleColumns } = getTableColumns(pricePlanRules);

const rulesOfPlan = preparedQuery((db) =>
  db
    .select(ruleColumns)
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

export const listPricePlans: Op<'listPricePlans'> = async (db, instanceId) => {
  const plans = db
    .select()
    .from(pricePlans)
    .where(eq(pricePlans.instanceId, instanceId))
    .orderBy(desc(pricePlans.isDefault), asc(pricePlans.name))
    .all();
  return withRules(db, plans);
};

export const findPricePlan: Op<'findPricePlan'> = async (db, instanceId, id) => {
  return db
    .select()
    .from(pricePlans)
    .where(and(eq(pricePlans.instanceId, instanceId), eq(pricePlans.id, id)))
    .get();
};

export const findDefaultPricePlan: Op<'findDefaultPricePlan'> = async (db, instanceId) => {
  return defaultPlan(db).get({ instanceId });
};

export const loadPricingPlan: Op<'loadPricingPlan'> = async (db, pricePlanId) => {
  const plan = planById(db).get({ id: pricePlanId });
  if (!plan) return undefined;
  const [withRulesPlan] = await withRules(db, [plan]);
  return withRulesPlan;
};

export const setCustomerPricePlan: Op<'setCustomerPricePlan'> = async (db, input) => {
  const result = db
    .update(customers)
    .set({ pricePlanId: input.pricePlanId, updatedAt: input.now })
    .where(and(eq(customers.instanceId, input.instanceId), eq(customers.id, input.customerId)))
    .run();
  return result.changes === 1;
};
