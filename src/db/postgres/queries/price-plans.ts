/** The PostgreSQL store's price-plan operations, as `contract/customers.ts` states them. */
import { and, asc, desc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { PricePlanRow, PricePlanWithRules } from '../../contract/index.js';
import { newPricePlans, plansWithRules, pricePlanRows } from '../../shared/customers.js';
import type { PostgresDb } from '../client.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { pricingRulesOf } from '../pricing-rules.js';
import { customers, pricePlanRules, pricePlans } from '../schema/index.js';

/**
 * One multi-row insert per table. A batch with a default plan first takes the transaction-level advisory
 * lock `pg_advisory_xact_lock(hashtext('price_plans.default:' || instanceId))`, so concurrent default
 * switches of one instance run one after the other, and each one's `UPDATE` (a fresh READ COMMITTED
 * snapshot) clears the default the previous one committed.
 */
export const insertPricePlans: Op<'insertPricePlans'> = async (db, instanceId, plans, now) => {
  if (plans.length === 0) return [];
  const created = newPricePlans(instanceId, plans, now);
  const rows = created.map(pricePlanRows);
  // All plans are inserted at once, so only the last default is stored as default.
  const lastDefault = plans.findLastIndex((plan) => plan.isDefault);
  await db.transaction(async (tx) => {
    if (lastDefault >= 0) {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`price_plans.default:${instanceId}`}))`);
      await tx
        .update(pricePlans)
        .set({ isDefault: false, updatedAt: now })
        .where(and(eq(pricePlans.instanceId, instanceId), eq(pricePlans.isDefault, true)));
    }
    await tx
      .insert(pricePlans)
      .values(rows.map(({ plan }, index) => ({ ...plan, isDefault: index === lastDefault })));
    const rules = rows.flatMap((row) => row.rules);
    if (rules.length > 0) await tx.insert(pricePlanRules).values(rules);
  });
  return created;
};

/** A rule's plan, criteria and markups. */
const { id: _id, ...ruleColumns } = getTableColumns(pricePlanRules);

/** The plans with their rules, in creation order (one query for all plans). */
async function withRules(db: PostgresDb, plans: PricePlanRow[]): Promise<PricePlanWithRules[]> {
  if (plans.length === 0) return [];
  const ids = plans.map((plan) => plan.id);
  const rules = await db
    .select(ruleColumns)
    .from(pricePlanRules)
    .where(inArray(pricePlanRules.pricePlanId, ids))
    .orderBy(asc(pricePlanRules.id));
  return plansWithRules(plans, rules);
}

export const listPricePlans: Op<'listPricePlans'> = async (db, instanceId) => {
  // `collate "C"`: the contract's bytewise name order, whatever the database's default collation.
  const plans = await db
    .select()
    .from(pricePlans)
    .where(eq(pricePlans.instanceId, instanceId))
    .orderBy(desc(pricePlans.isDefault), sql`${pricePlans.name} collate "C"`);
  return withRules(db, plans);
};

export const findPricePlan: Op<'findPricePlan'> = async (db, instanceId, id) => {
  const [row] = await db
    .select()
    .from(pricePlans)
    .where(and(eq(pricePlans.instanceId, instanceId), eq(pricePlans.id, id)))
    .limit(1);
  return row;
};

export const findDefaultPricePlan: Op<'findDefaultPricePlan'> = async (db, instanceId) => {
  const [row] = await defaultPlan(db).execute({ instanceId });
  return row;
};

const defaultPlan = preparedQuery('price_plan_default', (db, name) =>
  db
    .select()
    .from(pricePlans)
    .where(and(eq(pricePlans.instanceId, sql.placeholder('instanceId')), eq(pricePlans.isDefault, true)))
    .limit(1)
    .prepare(name),
);

const pricingPlan = preparedQuery('pricing_plan', (db, name) =>
  db
    .select({
      plan: pricePlans,
      // Written out with the table's name: drizzle leaves columns of a one-table select unqualified.
      rules: pricingRulesOf(sql.raw('price_plans.id')),
    })
    .from(pricePlans)
    .where(eq(pricePlans.id, sql.placeholder('id')))
    .limit(1)
    .prepare(name),
);

/** Plan and rules in one round trip: the rules as a JSON array (`pricingRulesOf`). */
export const loadPricingPlan: Op<'loadPricingPlan'> = async (db, pricePlanId) => {
  const [row] = await pricingPlan(db).execute({ id: pricePlanId });
  return row && { ...row.plan, rules: row.rules };
};

export const setCustomerPricePlan: Op<'setCustomerPricePlan'> = async (db, input) => {
  const updated = await db
    .update(customers)
    .set({ pricePlanId: input.pricePlanId, updatedAt: input.now })
    .where(and(eq(customers.instanceId, input.instanceId), eq(customers.id, input.customerId)))
    .returning({ id: customers.id });
  return updated.length === 1;
};
