import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { PricingRule } from '../contract/index.js';

/**
 * The pricing rules of the plan `planId` names, in rule id order, as one JSON array (`[]` without rules):
 * what `PricingPlan.rules` holds. For selects that read a plan and its rules in one round trip (the
 * pricing plan by id, the claimed tasks). `planId` must be qualified (`price_plans.id`) where the select
 * leaves columns unqualified, or it would name the rule's own `id` inside the subquery.
 */
export function pricingRulesOf(planId: SQLWrapper): SQL<PricingRule[]> {
  return sql<PricingRule[]>`coalesce((select json_agg(json_build_object('network', r.network,
      'technologyType', r.technology_type, 'connectionType', r.connection_type,
      'mrcMarkupBp', r.mrc_markup_bp, 'nrcMarkupBp', r.nrc_markup_bp) order by r.id)
    from price_plan_rules r where r.price_plan_id = ${planId}), '[]'::json)`;
}
