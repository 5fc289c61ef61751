import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { PricingPlan, PricingRule } from '../../../gathering/pricing.js';
import { newId } from '../../../ids.js';
import type { NewPricePlan, PricePlanRow, PricePlanWithRules } from '../../rows.js';
import type { PostgresDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { pricingRulesOf } from '../pricing-rules.js';
import { customers, pricePlanRules, pricePlans } from '../schema/index.js';

/**
 * Creates price plans for an instance in one transaction. A plan created as default takes the default
 * over from the previous one (of several defaults in `plans`, the last one ends up the default), so an
 * instance has exactly one default at any time.
 *
 * Race-free on PostgreSQL: a batch with a default plan first takes the transaction-level advisory lock
 * `pg_advisory_xact_lock(hashtext('price_plans.default:' || instanceId))`, so concurrent default switches
 * of one instance run one after the other, and each one's `UPDATE` (a fresh READ COMMITTED snapshot)
 * clears the default the previous one committed.
 *
 * @returns the created plans, in input order, each with `isDefault` as requested.
 * @throws PostgreSQL's unique violation (23505) for a name the instance already uses; nothing is written.
 */
export async function insertPricePlans(
  db: PostgresDb,
  instanceId: string,
  plans: NewPricePlan[],
  now: Date,
): Promise<PricePlanWithRules[]> {
  if (plans.length === 0) return [];
  const created = plans.map(
    (plan): PricePlanWithRules => ({
      id: newId('pricePlan'),
      instanceId,
      name: plan.name,
      isDefault: plan.isDefault,
      mrcMarkupBp: plan.mrcMarkupBp,
      nrcMarkupBp: plan.nrcMarkupBp,
      createdAt: now,
      updatedAt: now,
      rules: plan.rules,
    }),
  );
  // Rows stored as SQLite leaves them after its plan-by-plan loop: only the last default stays default.
  const lastDefault = plans.findLastIndex((plan) => plan.isDefault);
  const rules = created.flatMap((plan) => plan.rules.map((rule) => ({ ...rule, pricePlanId: plan.id })));
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
      .values(created.map(({ rules: _, ...row }, index) => ({ ...row, isDefault: index === lastDefault })));
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

/** The plans of an instance with their rules, default first, then by name (byte order, as in SQLite). */
export async function listPricePlans(db: PostgresDb, instanceId: string): Promise<PricePlanWithRules[]> {
  const plans = await db
    .select()
    .from(pricePlans)
    .where(eq(pricePlans.instanceId, instanceId))
    .orderBy(desc(pricePlans.isDefault), sql`${pricePlans.name} collate "C"`);
  return withRules(db, plans);
}

/** One plan of an instance, or undefined. */
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

/** The default plan of an instance, or undefined when it has none (an instance created outside the API). */
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

/**
 * A plan's markups and rules as the pricing engine needs them (by id; the caller knows the plan exists).
 * The object is the whole plan row with its rules, as in SQLite.
 */
export async function loadPricingPlan(db: PostgresDb, pricePlanId: string): Promise<PricingPlan | undefined> {
  const [row] = await pricingPlan(db).execute({ id: pricePlanId });
  return row && { ...row.plan, rules: row.rules };
}

/** Assigns a plan to a customer of the same instance; returns false when the customer does not exist there. */
export async function setCustomerPricePlan(
  db: PostgresDb,
  input: { instanceId: string; customerId: string; pricePlanId: string; now: Date },
): Promise<boolean> {
  const updated = await db
    .update(customers)
    .set({ pricePlanId: input.pricePlanId, updatedAt: input.now })
    .where(and(eq(customers.instanceId, input.instanceId), eq(customers.id, input.customerId)))
    .returning({ id: customers.id });
  return updated.length === 1;
}
