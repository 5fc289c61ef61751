/** The SQLite store's price-plan operations, as `contract/customers.ts` states them. */
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type {
  CustomerPricePlanAssignment,
  NewPricePlan,
  PricePlanRow,
  PricePlanWithRules,
  PricingPlan,
} from '../../contract/index.js';
import { newPricePlans, pricePlanRows } from '../../shared/customers.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { customers, pricePlanRules, pricePlans } from '../schema/index.js';

// Plan by plan in one `BEGIN IMMEDIATE` transaction: each default clears the one before it, so of several
// defaults the last stays, and no other writer switches the default in between.
export async function insertPricePlans(
  db: SqliteDb,
  instanceId: string,
  plans: NewPricePlan[],
  now: Date,
): Promise<PricePlanWithRules[]> {
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
}

/** The rules of each plan: one prepared read per plan (an instance has a handful of plans). */
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

export async function listPricePlans(db: SqliteDb, instanceId: string): Promise<PricePlanWithRules[]> {
  const plans = db
    .select()
    .from(pricePlans)
    .where(eq(pricePlans.instanceId, instanceId))
    .orderBy(desc(pricePlans.isDefault), asc(pricePlans.name))
    .all();
  return withRules(db, plans);
}

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

export async function findDefaultPricePlan(
  db: SqliteDb,
  instanceId: string,
): Promise<PricePlanRow | undefined> {
  return defaultPlan(db).get({ instanceId });
}

export async function loadPricingPlan(db: SqliteDb, pricePlanId: string): Promise<PricingPlan | undefined> {
  const plan = planById(db).get({ id: pricePlanId });
  if (!plan) return undefined;
  const [withRulesPlan] = await withRules(db, [plan]);
  return withRulesPlan;
}

export async function setCustomerPricePlan(
  db: SqliteDb,
  input: CustomerPricePlanAssignment,
): Promise<boolean> {
  const result = db
    .update(customers)
    .set({ pricePlanId: input.pricePlanId, updatedAt: input.now })
    .where(and(eq(customers.instanceId, input.instanceId), eq(customers.id, input.customerId)))
    .run();
  return result.changes === 1;
}
