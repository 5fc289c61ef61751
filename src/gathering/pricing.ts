import type { Markup, PricingPlan, PricingRule } from '../db/rows.js';

// The plan's shapes are the store's (`src/db/contract/customers.ts`), which loads plans for this engine.
export type { Markup, PricingPlan, PricingRule } from '../db/rows.js';

/** What a rule is matched against. */
export interface PricedOffer {
  network: string;
  technologyType: string;
  connectionType: string;
}

/**
 * Specificity of a rule: the more criteria it sets, the more specific; between rules setting as many,
 * network outranks technology type, which outranks connection type. Weights 4/2/1 make every distinct
 * combination rank differently, so "most specific wins" never ties.
 */
function specificity(rule: PricingRule): number {
  const set = [rule.network, rule.technologyType, rule.connectionType].filter(
    (value) => value !== null,
  ).length;
  const rank =
    (rule.network !== null ? 4 : 0) +
    (rule.technologyType !== null ? 2 : 0) +
    (rule.connectionType !== null ? 1 : 0);
  return set * 8 + rank;
}

/** The markups that apply to an offer: the most specific matching rule's, else the plan's defaults. */
export function markupFor(plan: PricingPlan, offer: PricedOffer): Markup {
  let best: PricingRule | null = null;
  for (const rule of plan.rules) {
    const matches =
      (rule.network === null || rule.network === offer.network) &&
      (rule.technologyType === null || rule.technologyType === offer.technologyType) &&
      (rule.connectionType === null || rule.connectionType === offer.connectionType);
    if (matches && (best === null || specificity(rule) > specificity(best))) best = rule;
  }
  return best ?? plan;
}

/**
 * A purchase amount with a markup, in integer minor units, rounded half up to the minor unit.
 * `amount × (10 000 + bp) / 10 000` is computed in integers so no binary fraction creeps in.
 *
 * @param amountMinor non-negative purchase amount in minor units.
 * @param markupBp markup in basis points, at least −10 000 (−100 %).
 */
export function applyMarkup(amountMinor: number, markupBp: number): number {
  return Math.floor((amountMinor * (10_000 + markupBp) + 5_000) / 10_000);
}

/** Sale prices of an offer under a plan, in minor units. */
export function salePrices(
  plan: PricingPlan,
  offer: PricedOffer & { purchaseMrcMinor: number; purchaseNrcMinor: number },
): { mrcMinor: number; nrcMinor: number } {
  const markup = markupFor(plan, offer);
  return {
    mrcMinor: applyMarkup(offer.purchaseMrcMinor, markup.mrcMarkupBp),
    nrcMinor: applyMarkup(offer.purchaseNrcMinor, markup.nrcMarkupBp),
  };
}
