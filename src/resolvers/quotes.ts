import { z } from 'zod';
import type { Context } from '../context.js';
import type { QuoteRecord } from '../db/rows.js';
import type { OrderStatus } from '../db/values.js';
import { AppError, notFound, validationError } from '../errors.js';
import { requireViewer } from './authentication.js';
import { type Connection, decodeCursor, forwardConnection } from './connection.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './pagination.js';
import { buildQuoteLines } from './quote-lines.js';
import { parseInput } from './validation.js';

/** Roles that may read and write quotes. */
const quoteRoles = ['connectivity_check'] as const;

const idList = z
  .array(z.string().min(1).max(100))
  .max(500)
  .nullish()
  .transform((ids) => ids ?? []);

export const productIdArrays = {
  availabilityRequestProductIds: idList,
  instanceProductIds: idList,
  mandatoryProductIds: idList,
};

export const createQuoteInput = z.strictObject({
  name: z.string().trim().min(1, 'is required').max(200),
  customerId: z.string().min(1, 'is required').max(100),
  referenceNumber: z
    .string()
    .trim()
    .max(100)
    .nullish()
    .transform((value) => value || null),
  ...productIdArrays,
});

/** A calendar date (UTC) `days` after `date`, as `YYYY-MM-DD`. */
export function addDaysUtc(date: Date, days: number): string {
  const start = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  return new Date(start + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * Creates a quote for one of the caller's customers (contract, "POST /quotes"). Currency: the customer's
 * preferred currency, else the instance default; validity from the instance; `expiration_date` = creation
 * date (UTC) + validity days. The named products become lines, and mandatory products are added.
 *
 * @throws {AppError} `VALIDATION` naming each bad field or id (nothing is written).
 */
export async function createQuote(ctx: Context, input: unknown): Promise<QuoteRecord> {
  const viewer = requireViewer(ctx, quoteRoles);
  const fields = parseInput(createQuoteInput, input, 'The quote is invalid; nothing was created.');
  const instance = await ctx.db.findInstance(viewer.instanceId);
  if (!instance) throw new AppError('INTERNAL', 'The caller’s instance is missing.');
  const customer = await ctx.db.findCustomer(viewer.instanceId, fields.customerId);
  if (!customer) {
    throw validationError(
      [{ path: '/customerId', message: 'customer was not found' }],
      'The quote is invalid; nothing was created.',
    );
  }
  const currency = customer.customer.preferredCurrency ?? instance.defaultCurrency;
  const { lines, problems } = await buildQuoteLines(ctx, viewer.instanceId, fields, currency);
  if (problems.length > 0) throw validationError(problems, 'The quote is invalid; nothing was created.');
  const now = ctx.clock.now();
  const quote = await ctx.db.insertQuote({
    instanceId: viewer.instanceId,
    instanceCode: instance.code,
    customerId: customer.customer.id,
    userId: viewer.userId,
    name: fields.name,
    referenceNumber: fields.referenceNumber,
    currency,
    validityDays: instance.quoteValidityDays,
    expirationDate: addDaysUtc(now, instance.quoteValidityDays),
    lines,
    now,
  });
  return getQuote(ctx, quote.id);
}

/**
 * Adds products to one of the caller's quotes (contract: "can also be added at a later stage"). Products
 * already on the quote are skipped; missing mandatory products are added.
 * @throws {AppError} `NOT_FOUND` for the quote; `VALIDATION` for bad ids; `CONFLICT` when the quote has an
 *   order that is neither `failed` nor `cancelled` (issue 49: an ordered quote is frozen). Nothing is written
 *   on any of them.
 */
export async function addQuoteProducts(ctx: Context, quoteId: string, input: unknown): Promise<QuoteRecord> {
  const viewer = requireViewer(ctx, quoteRoles);
  const ids = parseInput(z.strictObject(productIdArrays), input, 'The products are invalid; none was added.');
  const existing = await getQuote(ctx, quoteId);
  const { lines, problems } = await buildQuoteLines(ctx, viewer.instanceId, ids, existing.quote.currency);
  if (problems.length > 0) throw validationError(problems, 'The products are invalid; none was added.');
  const added = await ctx.db.addQuoteLines({
    instanceId: viewer.instanceId,
    quoteId,
    lines,
    now: ctx.clock.now(),
  });
  if (added === 'quote_ordered') {
    throw new AppError(
      'CONFLICT',
      `Quote ${quoteId} has an order that is open or completed, so its products stay as ordered; none was added.`,
    );
  }
  return getQuote(ctx, quoteId);
}

/**
 * One of the caller's quotes with its lines.
 * @throws {AppError} `NOT_FOUND` for an unknown id and, identically, another instance's id.
 */
export async function getQuote(ctx: Context, id: string): Promise<QuoteRecord> {
  const viewer = requireViewer(ctx, quoteRoles);
  const record = await ctx.db.findQuote(viewer.instanceId, id);
  if (!record) throw notFound('Quote', id);
  return record;
}

/**
 * The orders of one of the caller's quotes, newest first, as the quote shows them (issue 49: REST `orders`):
 * id and status. A quote with one that is neither `failed` nor `cancelled` is frozen.
 */
export async function quoteOrderStatuses(
  ctx: Context,
  quoteId: string,
): Promise<{ id: string; status: OrderStatus }[]> {
  const viewer = requireViewer(ctx, quoteRoles);
  const records = await ctx.db.listOrdersOfQuotes(viewer.instanceId, [quoteId]);
  return records.map(({ order }) => ({ id: order.id, status: order.status }));
}

/** Like {@link getQuote}, null when not found. */
export async function findQuoteForViewer(ctx: Context, id: string): Promise<QuoteRecord | null> {
  const viewer = requireViewer(ctx, quoteRoles);
  return (await ctx.db.findQuote(viewer.instanceId, id)) ?? null;
}

/** Quote totals: line count and sums of MRC and NRC in minor units (summed as integers, never drifting). */
export function quoteTotals(record: QuoteRecord): {
  totalProducts: number;
  totalMrcMinor: number;
  totalNrcMinor: number;
} {
  return {
    totalProducts: record.lines.length,
    totalMrcMinor: record.lines.reduce((sum, line) => sum + line.mrcMinor, 0),
    totalNrcMinor: record.lines.reduce((sum, line) => sum + line.nrcMinor, 0),
  };
}

const positionSchema = z
  .object({ createdAt: z.number().int(), id: z.string().min(1) })
  .transform((position) => ({ createdAt: new Date(position.createdAt), id: position.id }));

/**
 * The caller's quotes as a forward Relay connection, newest first.
 * @throws {AppError} `VALIDATION` for `first` over 100 or a malformed cursor.
 */
export async function quoteConnection(ctx: Context, input: unknown): Promise<Connection<QuoteRecord>> {
  const viewer = requireViewer(ctx, quoteRoles);
  const args = parseInput(
    z.object({
      first: z.number().int().min(0).max(MAX_PAGE_SIZE).nullish(),
      after: z.string().nullish(),
      last: z.null({ error: 'quotes page forward only: use first and after' }).optional(),
      before: z.null({ error: 'quotes page forward only: use first and after' }).optional(),
    }),
    input,
    'The connection arguments are invalid.',
  );
  const size = args.first ?? DEFAULT_PAGE_SIZE;
  const after = args.after ? decodeCursor(args.after, positionSchema, '/after') : null;
  const rows = await ctx.db.sliceQuotes(viewer.instanceId, { after, limit: size + 1 });
  return forwardConnection(
    rows,
    size,
    after !== null,
    (node) => ({ createdAt: node.quote.createdAt.getTime(), id: node.quote.id }),
    await ctx.db.countQuotes(viewer.instanceId),
  );
}
