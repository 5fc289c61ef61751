import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Context, Services } from '../context.js';
import type { NewPricePlan, PricePlanWithRules } from '../db/rows.js';
import { AppError, notFound } from '../errors.js';
import { requireViewer } from './authentication.js';
import { parseInput } from './validation.js';

/** A markup in percent with at most two decimals, −100 % to +1000 %, as basis points. */
const percent = z
  .number()
  .min(-100)
  .max(1000)
  .refine((value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-9, 'at most two decimals')
  .transform((value) => Math.round(value * 100));

const criterion = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .nullish()
  .transform((value) => value ?? null);

const ruleInput = z
  .strictObject({
    network: criterion,
    technologyType: criterion,
    connectionType: criterion,
    mrcMarkupPercent: percent,
    nrcMarkupPercent: percent,
  })
  .refine((rule) => rule.network !== null || rule.technologyType !== null || rule.connectionType !== null, {
    message: 'a rule sets at least one of network, technologyType, connectionType',
  });

/** A price plan to create (GraphQL `CreatePricePlanInput`, the CLI and the demo data share it). */
export const pricePlanInputSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100),
    isDefault: z.boolean().default(false),
    mrcMarkupPercent: percent,
    nrcMarkupPercent: percent,
    rules: z.array(ruleInput).max(200).default([]),
  })
  .superRefine((plan, ctx) => {
    const seen = new Set<string>();
    plan.rules.forEach((rule, index) => {
      const key = JSON.stringify([rule.network, rule.technologyType, rule.connectionType]);
      if (seen.has(key))
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index],
          message: 'repeats an earlier rule’s criteria',
        });
      seen.add(key);
    });
  })
  .transform(
    (plan): NewPricePlan => ({
      name: plan.name,
      isDefault: plan.isDefault,
      mrcMarkupBp: plan.mrcMarkupPercent,
      nrcMarkupBp: plan.nrcMarkupPercent,
      rules: plan.rules.map((rule) => ({
        network: rule.network,
        technologyType: rule.technologyType,
        connectionType: rule.connectionType,
        mrcMarkupBp: rule.mrcMarkupPercent,
        nrcMarkupBp: rule.nrcMarkupPercent,
      })),
    }),
  );

/** The demo price plans (standard as default, and a discounted partner plan), from `data/price-plans/demo.json`. */
export function demoPricePlans(): NewPricePlan[] {
  const path = fileURLToPath(new URL('../../data/price-plans/demo.json', import.meta.url));
  const file = z
    .strictObject({ plans: z.array(z.unknown()).min(1) })
    .parse(JSON.parse(readFileSync(path, 'utf8')));
  const camel = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(camel)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value).map(([key, inner]) => [
              key === 'default' ? 'isDefault' : key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()),
              camel(inner),
            ]),
          )
        : value;
  return file.plans.map((plan) => pricePlanInputSchema.parse(camel(plan)));
}

/** The plan every new instance starts with: sale price = purchase price until an admin sets margins. */
export const initialPricePlan: NewPricePlan = {
  name: 'Standard',
  isDefault: true,
  mrcMarkupBp: 0,
  nrcMarkupBp: 0,
  rules: [],
};

/**
 * Creates price plans in an instance for an operator (CLI, seed).
 * @throws {AppError} `VALIDATION` for invalid plans; `CONFLICT` when a name is taken.
 */
export async function createPricePlansForInstance(
  services: Services,
  instanceId: string,
  plans: NewPricePlan[],
): Promise<PricePlanWithRules[]> {
  const existing = new Set((await services.db.listPricePlans(instanceId)).map((plan) => plan.name));
  const taken = plans.find((plan) => existing.has(plan.name));
  if (taken) throw new AppError('CONFLICT', `A price plan named "${taken.name}" exists already.`);
  return services.db.insertPricePlans(instanceId, plans, services.clock.now());
}

/** The caller's instance's price plans (instance admins only), default first. */
export async function pricePlans(ctx: Context): Promise<PricePlanWithRules[]> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  return ctx.db.listPricePlans(viewer.instanceId);
}

/**
 * Parses and creates one price plan in an instance.
 * @throws {AppError} `VALIDATION` for bad markups or rules; `CONFLICT` for a taken name.
 */
export async function createPricePlanInInstance(
  services: Services,
  instanceId: string,
  input: unknown,
): Promise<PricePlanWithRules> {
  const plan = parseInput(pricePlanInputSchema, input, 'The price plan is invalid.');
  const [created] = await createPricePlansForInstance(services, instanceId, [plan]);
  if (!created) throw new AppError('INTERNAL', 'The price plan was not created.');
  return created;
}

/**
 * Gives a customer of an instance one of the instance's plans. Requests created afterwards use it;
 * products already gathered keep their prices.
 * @throws {AppError} `NOT_FOUND` for a plan or customer that is not the instance's.
 */
export async function assignPricePlanInInstance(
  services: Services,
  instanceId: string,
  input: { customerId: string; pricePlanId: string },
): Promise<{ customerId: string; pricePlanId: string }> {
  if (!(await services.db.findPricePlan(instanceId, input.pricePlanId)))
    throw notFound('Price plan', input.pricePlanId);
  const assigned = await services.db.setCustomerPricePlan({
    instanceId,
    ...input,
    now: services.clock.now(),
  });
  if (!assigned) throw notFound('Customer', input.customerId);
  return input;
}

/**
 * Creates a price plan in the caller's instance (instance admins only).
 * @throws {AppError} as {@link createPricePlanInInstance}; `FORBIDDEN` for other roles.
 */
export async function createPricePlan(ctx: Context, input: unknown): Promise<PricePlanWithRules> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  return createPricePlanInInstance(ctx, viewer.instanceId, input);
}

/**
 * Assigns a plan to one of the caller's customers (instance admins only).
 * @throws {AppError} as {@link assignPricePlanInInstance}; `FORBIDDEN` for other roles.
 */
export async function assignPricePlan(
  ctx: Context,
  input: { customerId: string; pricePlanId: string },
): Promise<{ customerId: string; pricePlanId: string }> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  return assignPricePlanInInstance(ctx, viewer.instanceId, input);
}
