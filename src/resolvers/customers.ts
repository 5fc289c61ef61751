import { z } from 'zod';
import type { Context } from '../context.js';
import type { CustomerRecord } from '../db/rows.js';
import { AppError, notFound } from '../errors.js';
import { requireViewer } from './authentication.js';
import { type Connection, decodeCursor, forwardConnection } from './connection.js';
import { customerInputSchema, foldName } from './customer-input.js';
import { loadersFor } from './loaders.js';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type Pagination,
  pageInput,
  pageOffset,
  pagination,
} from './pagination.js';
import { parseInput } from './validation.js';

/** Roles that may read and manage customers and projects. */
export const customerRoles = ['connectivity_check'] as const;

/** The service-assigned customer number: the per-instance sequence, zero-padded to five digits. */
export function autoNumber(sequence: number): string {
  return String(sequence).padStart(5, '0');
}

/**
 * Creates a customer in the caller's instance. The account manager is the caller; the price plan is the
 * instance default; `auto_number` is assigned gap-free.
 *
 * @param input camelCase fields of the contract's "Customer (as created)"; only `name` is required.
 * @throws {AppError} `VALIDATION` naming every invalid or unknown field (nothing is written).
 */
export async function createCustomer(ctx: Context, input: unknown): Promise<CustomerRecord> {
  const viewer = requireViewer(ctx, customerRoles);
  const fields = parseInput(customerInputSchema, input, 'The customer is invalid; nothing was created.');
  const plan = await ctx.db.findDefaultPricePlan(viewer.instanceId);
  if (!plan) throw new AppError('CONFLICT', 'The instance has no default price plan; create one first.');
  const { financialDetails, ...customer } = fields;
  const row = await ctx.db.insertCustomer(
    viewer.instanceId,
    {
      ...customer,
      nameFolded: foldName(customer.name),
      pricePlanId: plan.id,
      accountManagerUserId: viewer.userId,
      financialDetails,
    },
    ctx.clock.now(),
  );
  return getCustomer(ctx, row.id);
}

/**
 * One of the caller's customers.
 * @throws {AppError} `NOT_FOUND` for an unknown id and, identically, another instance's id.
 */
export async function getCustomer(ctx: Context, id: string): Promise<CustomerRecord> {
  const viewer = requireViewer(ctx, customerRoles);
  const record = await ctx.db.findCustomer(viewer.instanceId, id);
  if (!record) throw notFound('Customer', id);
  return record;
}

/** Like {@link getCustomer} but null when not found (GraphQL's nullable field). */
export async function findCustomerForViewer(ctx: Context, id: string): Promise<CustomerRecord | null> {
  requireViewer(ctx, customerRoles);
  return loadersFor(ctx).customer.load(id);
}

export const nameFilter = z
  .string()
  .max(200)
  .nullish()
  .transform((value) => (value ? foldName(value) : null));

/**
 * A page of the caller's customers, ordered by name then id, optionally narrowed to names containing
 * `name` (case-insensitive; `%`, `_` and `\` are literal).
 * @throws {AppError} `VALIDATION` for bad page parameters.
 */
export async function listCustomers(
  ctx: Context,
  input: { name?: unknown; page?: unknown; pageSize?: unknown },
): Promise<{ records: CustomerRecord[]; pagination: Pagination }> {
  const viewer = requireViewer(ctx, customerRoles);
  const { name, ...page } = parseInput(
    pageInput.extend({ name: nameFilter }),
    input,
    'The list parameters are invalid.',
  );
  const total = await ctx.db.countCustomers(viewer.instanceId, name);
  const records = await ctx.db.listCustomersPage(viewer.instanceId, {
    nameFolded: name,
    offset: pageOffset(page),
    limit: page.pageSize,
  });
  return { records, pagination: pagination(page, total) };
}

/** A forward-only page of customers as a Relay connection. */
export type CustomerConnection = Connection<CustomerRecord>;

const positionSchema = z.object({ nameFolded: z.string(), id: z.string().min(1) });

const connectionArgs = z.object({
  first: z.number().int().min(0).max(MAX_PAGE_SIZE).nullish(),
  after: z.string().nullish(),
  last: z.null({ error: 'customers page forward only: use first and after' }).optional(),
  before: z.null({ error: 'customers page forward only: use first and after' }).optional(),
  name: nameFilter,
});

/**
 * The caller's customers as a Relay connection in list order, with keyset cursors.
 * @throws {AppError} `VALIDATION` for `first` over 100 or a malformed cursor.
 */
export async function customerConnection(ctx: Context, input: unknown): Promise<CustomerConnection> {
  const viewer = requireViewer(ctx, customerRoles);
  const args = parseInput(connectionArgs, input, 'The connection arguments are invalid.');
  const size = args.first ?? DEFAULT_PAGE_SIZE;
  const after = args.after ? decodeCursor(args.after, positionSchema, '/after') : null;
  const rows = await ctx.db.sliceCustomers(viewer.instanceId, {
    nameFolded: args.name,
    after,
    limit: size + 1,
  });
  return forwardConnection(
    rows,
    size,
    after !== null,
    (node) => ({ nameFolded: node.customer.nameFolded, id: node.customer.id }),
    await ctx.db.countCustomers(viewer.instanceId, args.name),
  );
}
