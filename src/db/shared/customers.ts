/**
 * The rows customer, project and price-plan operations write, built the same way for both dialects (ids,
 * sequence numbers, times); the SQL is in the dialects' `queries/customers.ts` and `queries/price-plans.ts`.
 */
import { newId } from '../../ids.js';
import type {
  CustomerRow,
  FinancialDetailsRow,
  NewCustomer,
  NewPricePlan,
  NewProject,
  PricePlanRow,
  PricePlanWithRules,
  PricingRule,
  ProjectRow,
} from '../contract/index.js';

/**
 * The rows of a new customer, numbered one past the instance's highest sequence so far (`lastSequence`,
 * null for its first customer); its financial-details row when it has any.
 */
export function newCustomerRows(
  instanceId: string,
  input: NewCustomer,
  lastSequence: number | null,
  now: Date,
): { customer: CustomerRow; financialDetails: FinancialDetailsRow | null } {
  const { financialDetails, ...fields } = input;
  const customer: CustomerRow = {
    ...fields,
    id: newId('customer'),
    instanceId,
    autoSequence: (lastSequence ?? 0) + 1,
    createdAt: now,
    updatedAt: now,
  };
  return { customer, financialDetails: financialDetails && { ...financialDetails, customerId: customer.id } };
}

/** A new project's row. */
export function newProjectRow(input: NewProject): ProjectRow {
  return {
    id: newId('project'),
    instanceId: input.instanceId,
    customerId: input.customerId,
    name: input.name,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/** The new plans with their ids and times, in input order, each with `isDefault` as requested. */
export function newPricePlans(instanceId: string, plans: NewPricePlan[], now: Date): PricePlanWithRules[] {
  return plans.map((plan) => ({
    id: newId('pricePlan'),
    instanceId,
    name: plan.name,
    isDefault: plan.isDefault,
    mrcMarkupBp: plan.mrcMarkupBp,
    nrcMarkupBp: plan.nrcMarkupBp,
    createdAt: now,
    updatedAt: now,
    rules: plan.rules,
  }));
}

/** A plan's row without its rules, and its rules' rows (the rule's own id is the database's). */
export function pricePlanRows(plan: PricePlanWithRules): {
  plan: PricePlanRow;
  rules: (PricingRule & { pricePlanId: string })[];
} {
  const { rules, ...row } = plan;
  return { plan: row, rules: rules.map((rule) => ({ ...rule, pricePlanId: plan.id })) };
}

/** Plans with their rules, from the rules of all of them in creation order. */
export function plansWithRules(
  plans: readonly PricePlanRow[],
  rules: readonly (PricingRule & { pricePlanId: string })[],
): PricePlanWithRules[] {
  const byPlan = new Map<string, PricingRule[]>(plans.map((plan) => [plan.id, []]));
  for (const { pricePlanId, ...rule } of rules) byPlan.get(pricePlanId)?.push(rule);
  return plans.map((plan) => ({ ...plan, rules: byPlan.get(plan.id) ?? [] }));
}
