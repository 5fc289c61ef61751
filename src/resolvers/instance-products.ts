import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Context, Services } from '../context.js';
import type { InstanceProductRow, NewInstanceProduct } from '../db/rows.js';
import { instanceProductFulfilments } from '../db/values.js';
import { AppError, notFound, validationError } from '../errors.js';
import { currencyFractionDigits, isCurrencyCode, toMinorUnits } from '../money.js';
import { requireViewer } from './authentication.js';
import { parseInput } from './validation.js';

/** An ISO 4217 currency code. */
export const currencySchema = z
  .string()
  .refine(isCurrencyCode, 'must be an ISO 4217 currency code, e.g. EUR');

/** A money amount in major units with no more decimals than the currency has, at least 0. */
const amount = z.number().min(0).max(10_000_000);

const productFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(2000).default(''),
  mrc: amount,
  nrc: amount,
  currency: currencySchema,
};

function toMinor(value: number, currency: string): number {
  return Math.round(value * 10 ** currencyFractionDigits(currency));
}

/** Checks that an amount has no more decimals than its currency allows (EUR: cents). */
function fitsCurrency(value: number, currency: string): boolean {
  return toMinorUnits(value, currency) !== null;
}

/** An instance product to create (GraphQL and the CLI's import file share it); amounts in major units. */
export const instanceProductInputSchema = z
  .strictObject({
    ...productFields,
    mandatory: z.boolean().default(false),
    fulfilment: z.enum(instanceProductFulfilments).default('manual'),
  })
  .superRefine((product, ctx) => {
    // Only against a valid currency: a bad code is reported once, on the currency.
    if (!currencySchema.safeParse(product.currency).success) return;
    for (const key of ['mrc', 'nrc'] as const) {
      if (!fitsCurrency(product[key], product.currency)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `has more decimals than ${product.currency} allows`,
        });
      }
    }
  })
  .transform(
    (product): NewInstanceProduct => ({
      mandatory: product.mandatory,
      name: product.name,
      description: product.description,
      mrcMinor: toMinor(product.mrc, product.currency),
      nrcMinor: toMinor(product.nrc, product.currency),
      currency: product.currency,
      fulfilment: product.fulfilment,
    }),
  );

const importFileSchema = z.strictObject({
  currency: currencySchema,
  /** Prices in the file are in minor units (cents), like the supplier catalogues. */
  products: z.array(
    z.strictObject({
      name: productFields.name,
      description: productFields.description,
      mrc: z.number().int().min(0),
      nrc: z.number().int().min(0),
      mandatory: z.boolean(),
      /** How its order lines are fulfilled (issue 49); `manual` when left out. */
      fulfilment: z.enum(instanceProductFulfilments).default('manual'),
    }),
  ),
});

/**
 * Reads an instance-product file (`data/instance-products/*.json`: a currency and products with prices in
 * minor units).
 * @throws {AppError} `VALIDATION` when the file cannot be read, is not JSON, or does not follow the format.
 */
export function readInstanceProductFile(path: string): NewInstanceProduct[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new AppError(
      'VALIDATION',
      `The file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AppError('VALIDATION', `The file is not valid JSON: ${(error as Error).message}`);
  }
  const file = parseInput(importFileSchema, json, 'The file is invalid.');
  return file.products.map((product) => ({
    mandatory: product.mandatory,
    name: product.name,
    description: product.description,
    mrcMinor: product.mrc,
    nrcMinor: product.nrc,
    currency: file.currency,
    fulfilment: product.fulfilment,
  }));
}

/** Path of the demo instance products (router rental, SLA upgrades, services; administration fee mandatory). */
export const demoInstanceProductsPath = fileURLToPath(
  new URL('../../data/instance-products/demo.json', import.meta.url),
);

/** Imports instance products into an instance (operator: CLI, seed), in one transaction. */
export async function importInstanceProducts(
  services: Services,
  instanceId: string,
  products: NewInstanceProduct[],
): Promise<InstanceProductRow[]> {
  return services.db.insertInstanceProducts(instanceId, products, services.clock.now());
}

/** The caller's instance products (`mandatory: false`) or mandatory products (`true`), by name. */
export async function instanceProducts(ctx: Context, mandatory: boolean): Promise<InstanceProductRow[]> {
  const viewer = requireViewer(ctx, ['connectivity_check']);
  return ctx.db.listInstanceProducts(viewer.instanceId, mandatory);
}

/**
 * Adds a product to the caller's instance catalogue (instance admins only).
 * @throws {AppError} `VALIDATION` for bad fields; `FORBIDDEN` for other roles.
 */
export async function createInstanceProduct(ctx: Context, input: unknown): Promise<InstanceProductRow> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  const product = parseInput(instanceProductInputSchema, input, 'The product is invalid.');
  const [row] = await ctx.db.insertInstanceProducts(viewer.instanceId, [product], ctx.clock.now());
  if (!row) throw new Error('instance product was not created');
  return row;
}

const updateSchema = z
  .strictObject({
    name: productFields.name.optional(),
    description: z.string().trim().max(2000).optional(),
    mrc: amount.optional(),
    nrc: amount.optional(),
    fulfilment: z.enum(instanceProductFulfilments).optional(),
  })
  .refine((changes) => Object.keys(changes).length > 0, 'give at least one field to change');

/**
 * Changes a product of the caller's instance (instance admins only). Quotes keep the prices their lines
 * were added with; orders placed keep their lines' fulfilment.
 * @throws {AppError} `NOT_FOUND` for another instance's or an unknown id; `VALIDATION`; `FORBIDDEN`.
 */
export async function changeInstanceProduct(
  ctx: Context,
  id: string,
  input: unknown,
): Promise<InstanceProductRow> {
  const viewer = requireViewer(ctx, ['instance_admin']);
  const changes = parseInput(updateSchema, input, 'The changes are invalid.');
  const [current] = await ctx.db.findInstanceProducts(viewer.instanceId, [id]);
  if (!current) throw notFound('Product', id);
  for (const key of ['mrc', 'nrc'] as const) {
    const value = changes[key];
    if (value !== undefined && !fitsCurrency(value, current.currency)) {
      throw validationError([
        { path: `/${key}`, message: `has more decimals than ${current.currency} allows` },
      ]);
    }
  }
  const updated = await ctx.db.updateInstanceProduct(
    viewer.instanceId,
    id,
    {
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(changes.mrc === undefined ? {} : { mrcMinor: toMinor(changes.mrc, current.currency) }),
      ...(changes.nrc === undefined ? {} : { nrcMinor: toMinor(changes.nrc, current.currency) }),
      ...(changes.fulfilment === undefined ? {} : { fulfilment: changes.fulfilment }),
    },
    ctx.clock.now(),
  );
  if (!updated) throw notFound('Product', id);
  return updated;
}
