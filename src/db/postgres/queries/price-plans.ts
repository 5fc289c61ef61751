/** The PostgreSQL store's price-plan operations, as `contract/customers.ts` states them. */
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type {
  CustomerPricePlanAssignment,
  NewPricePlan,
  PricePlanRow,
  PricePlanWithRules,
  PricingPlan,
  PricingRule,
} from '../../contract/index.js';
import { newPricePlans, pricePlanRows } from '../../shared/customers.js';
import type { PostgresDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { pricingRulesOf } from '../pricing-rules.js';
import { customers, pricePlanRules, pricePlans } from '../schema/index.js';

/**
 * One multi-row insert per table. A batch with a default plan first takes the transaction-level advisory
 * lock `pg_advisory_xact_lock(hashtext('price_plans.default:' || instanceId))`, so concurrent default
 * switches of one instance run one after the other, and each one's `UPDATE` (a fresh READ COMMITTED
 * snapshot) clears the default the previous one committed.
 */
export async function insertPricePlans(
  db: PostgresDb,
  instanceId: string,
  plans: NewPricePlan[],
  now: Date,
): Promise<PricePlanWithRules[]> {
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
}

/** The rules of each plan, in creation order (one query for all plans). */
async function withRules(db: PostgresDb, plans: PricePlanRow[]): Promise<PricePlanWithRules[]> {
  if (plans.length === 0) return [];
  const rows = await db
    .select({
      pricePlanId: pricePlanRules.pricePlanId,
      network: pricePlanRules.network,
      technologyType: pricePlanRules.technologyType,
      connectionType: pricePlanRules.connectionType,
      mrcMarkupBp: pricePlanRules.mrcMarkupBp,
      nrcMarkupBp: pricePlanRules.nrcMarkupBp,
    })
    .from(pricePlanRules)
    .where(
      inArray(
        pricePlanRules.pricePlanId,
        plans.map((plan) => plan.id),
      ),
    )
    .orderBy(asc(pricePlanRules.id));
  const byPlan = new Map<string, PricingRule[]>(plans.map((plan) => [plan.id, []]));
  for (const { pricePlanId, ...rule } of rows) byPlan.get(pricePlanId)?.push(rule);
  return plans.map((plan) => ({ ...plan, rules: byPlan.get(plan.id) ?? [] }));
}

export async function listPricePlans(db: PostgresDb, instanceId: string): Promise<PricePlanWithRules[]> {
  // `collate "C"`: the contract's bytewise name order, whatever the database's default collation.
  const plans = await db
    .select()
    .from(pricePlans)
    .where(eq(pricePlans.instanceId, instanceId))
    .orderBy(desc(pricePlans.isDefault), sql`${pricePlans.name} collate "C"`);
  return withRules(db, plans);
}

export async function findPricePlan(
  db: PostgresDb,
  instanceId: string,
  id: string,
): Promise<PricePlanRow | undefined> {
  const [row] = await db
    .select()
    .from(pricePlans)
    .where(and(eq(pricePlans.instanceId, instanceId), eq(pricePlans.id, id)))
    .limit(1);
  return row;
}

export async function findDefaultPricePlan(
  db: PostgresDb,
  instanceId: string,
): Promise<PricePlanRow | undefined> {
  const [row] = await defaultPlan(db).execute({ instanceId });
  return row;
}

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

// Plan and rules in one round trip: the rules as a JSON array (`pricingRulesOf`).
export async function loadPricingPlan(db: PostgresDb, pricePlanId: string): Promise<PricingPlan | undefined> {
  const [row] = await pricingPlan(db).execute({ id: pricePlanId });
  return row && { ...row.plan, rules: row.rules };
}

export async function setCustomerPricePlan(
  db: PostgresDb,
  input: CustomerPricePlanAssignment,
): Promise<boolean> {
  const updated = await db
    .update(customers)
    .set({ pricePlanId: input.pricePlanId, updatedAt: input.now })
    .where(and(eq(customers.instanceId, input.instanceId), eq(customers.id, input.customerId)))
    .returning({ id: customers.id });
  return updated.length === 1;
}
