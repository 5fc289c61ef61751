import type { PricePlanWithRules } from '../db/rows.js';
import type { PricingRule } from '../gathering/pricing.js';
import { createPricePlan, pricePlans } from '../resolvers/price-plans.js';
import { builder } from './builder.js';
import { withoutNulls } from './inputs.js';

const percent = (bp: number) => bp / 100;

const PricePlanRule = builder.objectRef<PricingRule>('PricePlanRule').implement({
  description:
    'Markups for offers matching every criterion the rule sets (null = any); the most specific rule wins.',
  fields: (t) => ({
    network: t.exposeString('network', { nullable: true }),
    technologyType: t.exposeString('technologyType', { nullable: true }),
    connectionType: t.exposeString('connectionType', { nullable: true }),
    mrcMarkupPercent: t.float({
      description: 'Markup on the purchase MRC, percent.',
      resolve: (r) => percent(r.mrcMarkupBp),
    }),
    nrcMarkupPercent: t.float({
      description: 'Markup on the purchase NRC, percent.',
      resolve: (r) => percent(r.nrcMarkupBp),
    }),
  }),
});

/** A price plan. */
export const PricePlan = builder.objectRef<PricePlanWithRules>('PricePlan').implement({
  description: 'Margin rules that turn purchase prices into a customer’s sale prices.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    isDefault: t.exposeBoolean('isDefault', { description: 'Whether customers get this plan by default.' }),
    mrcMarkupPercent: t.float({
      description: 'Default markup on the purchase MRC, percent.',
      resolve: (p) => percent(p.mrcMarkupBp),
    }),
    nrcMarkupPercent: t.float({
      description: 'Default markup on the purchase NRC, percent.',
      resolve: (p) => percent(p.nrcMarkupBp),
    }),
    rules: t.field({ type: [PricePlanRule], resolve: (p) => p.rules }),
  }),
});

const PricePlanRuleInput = builder.inputType('PricePlanRuleInput', {
  fields: (t) => ({
    network: t.string(),
    technologyType: t.string(),
    connectionType: t.string(),
    mrcMarkupPercent: t.float({
      required: true,
      description: 'Percent, −100 to 1000, two decimals at most.',
    }),
    nrcMarkupPercent: t.float({
      required: true,
      description: 'Percent, −100 to 1000, two decimals at most.',
    }),
  }),
});

const CreatePricePlanInput = builder.inputType('CreatePricePlanInput', {
  fields: (t) => ({
    name: t.string({ required: true }),
    isDefault: t.boolean({
      description: 'Make it the instance default (the previous default stops being one).',
    }),
    mrcMarkupPercent: t.float({ required: true }),
    nrcMarkupPercent: t.float({ required: true }),
    rules: t.field({ type: [PricePlanRuleInput] }),
  }),
});

builder.queryField('pricePlans', (t) =>
  t.field({
    type: [PricePlan],
    description: 'The instance’s price plans, default first (instance admins only).',
    resolve: (_root, _args, ctx) => pricePlans(ctx),
  }),
);

builder.mutationField('createPricePlan', (t) =>
  t.field({
    type: builder.objectRef<{ pricePlan: PricePlanWithRules }>('CreatePricePlanPayload').implement({
      fields: (f) => ({ pricePlan: f.field({ type: PricePlan, resolve: (p) => p.pricePlan }) }),
    }),
    description: 'Creates a price plan (instance admins only).',
    args: { input: t.arg({ type: CreatePricePlanInput, required: true }) },
    resolve: async (_root, args, ctx) => ({
      pricePlan: await createPricePlan(ctx, withoutNulls(args.input)),
    }),
  }),
);
