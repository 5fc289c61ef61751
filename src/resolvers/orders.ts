/**
 * Orders for quotes (issue "Orders, part 1"): placing one, reading them, and moving a manual line — the
 * domain operations GraphQL and REST share.
 */
import { z } from 'zod';
import type { Context } from '../context.js';
import type {
  InstanceProductRow,
  NewOrderLine,
  OrderLineRow,
  OrderRecord,
  QuoteLineRow,
} from '../db/rows.js';
import { orderLineStatuses, orderStatuses } from '../db/values.js';
import { AppError, notFound, validationError } from '../errors.js';
import { currentTraceContext } from '../telemetry/trace-context.js';
import { requireViewer } from './authentication.js';
import { type Connection, decodeCursor, forwardConnection } from './connection.js';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  type Pagination,
  pageInput,
  pageOffset,
  pagination,
} from './pagination.js';
import { parseInput } from './validation.js';

/** Roles that may read orders. */
export const orderReaders = ['connectivity_check', 'ordering'] as const;
/** Roles that may place orders, answer charges and move manual lines (`instance_admin` always may). */
const orderWriters = ['ordering'] as const;

/** Days after placing that the sellers are asked to complete by, when the caller names no date. */
export const DEFAULT_COMPLETION_DAYS = 30;

const contactSchema = z.strictObject({
  name: z.string().trim().min(1, 'is required').max(200),
  emailAddress: z.email().max(320),
  number: z
    .string()
    .trim()
    .max(50)
    .nullish()
    .transform((value) => value || null),
});

/** `placeOrder` / `POST /orders` input (camelCase; REST maps its snake_case names). */
export const placeOrderInput = z.strictObject({
  quoteId: z.string().min(1, 'is required').max(100),
  requestedCompletionDate: z.iso.datetime({ offset: true }).nullish(),
  contact: contactSchema.nullish(),
});

const refused = 'The order was not placed; nothing was written.';

/**
 * A quote line as an order line: `supplier` when it has order terms (a Sonata product); an instance
 * product's line as its product says (`manual` or `none`; issue 49), `manual` when the product is gone;
 * `manual` otherwise.
 */
function orderLineOf(
  line: QuoteLineRow,
  position: number,
  instanceProducts: ReadonlyMap<string, InstanceProductRow>,
): NewOrderLine {
  const supplier = line.orderTerms !== null && line.sourceId !== null;
  const fulfilment = supplier ? 'supplier' : (instanceProducts.get(line.productId)?.fulfilment ?? 'manual');
  return {
    quoteLineId: line.id,
    position,
    name: line.name,
    fulfilment,
    sourceId: line.sourceId,
    sourceName: line.sourceName,
    sourceType: line.sourceType,
    contractTermMonths: line.contractTermMonths,
    orderTerms: supplier ? line.orderTerms : null,
    purchaseMrcMinor: line.purchaseMrcMinor,
    purchaseNrcMinor: line.purchaseNrcMinor,
    currency: line.currency,
  };
}

/**
 * Places an order for one of the caller's quotes: every line becomes an order line (`supplier` for a
 * `mef-sonata` product; an instance product's as the product's `fulfilment` says, `manual` or `none`;
 * `manual` otherwise), the supplier lines grouped into one supplier order per source that the order worker
 * places and follows. A `none` line is `completed` as the order is placed (issue 49). Nothing is sent to a
 * seller here.
 *
 * @throws {AppError} `VALIDATION` for bad fields, an unknown (or another instance's) quote, a quote without
 *   lines or one past its expiration date (UTC); `CONFLICT` when the quote has an order that is open or
 *   completed; `FORBIDDEN` without `instance_admin` or `ordering`. Nothing is written on any of them.
 */
export async function placeOrder(ctx: Context, input: unknown): Promise<OrderRecord> {
  const viewer = requireViewer(ctx, orderWriters);
  const fields = parseInput(placeOrderInput, input, refused);
  const quote = await ctx.db.findQuote(viewer.instanceId, fields.quoteId);
  if (!quote) throw validationError([{ path: '/quoteId', message: 'quote was not found' }], refused);
  const now = ctx.clock.now();
  const today = now.toISOString().slice(0, 10);
  if (quote.quote.expirationDate < today) {
    throw validationError(
      [{ path: '/quoteId', message: `quote expired on ${quote.quote.expirationDate}` }],
      refused,
    );
  }
  if (quote.lines.length === 0) {
    throw validationError([{ path: '/quoteId', message: 'quote has no lines' }], refused);
  }
  const requested = fields.requestedCompletionDate
    ? new Date(fields.requestedCompletionDate)
    : new Date(now.getTime() + DEFAULT_COMPLETION_DAYS * 86_400_000);
  if (requested.getTime() <= now.getTime()) {
    throw validationError([{ path: '/requestedCompletionDate', message: 'must be in the future' }], refused);
  }
  const instanceProducts = new Map(
    (
      await ctx.db.findInstanceProducts(
        viewer.instanceId,
        quote.lines
          .filter((line) => line.kind !== 'availability_request_product')
          .map((line) => line.productId),
      )
    ).map((product) => [product.id, product]),
  );
  const placed = await ctx.db.insertOrder({
    instanceId: viewer.instanceId,
    quoteId: quote.quote.id,
    customerId: quote.customer.id,
    userId: viewer.userId,
    requestedCompletionDate: requested,
    contact: fields.contact ?? null,
    lines: quote.lines.map((line, index) => orderLineOf(line, index + 1, instanceProducts)),
    quoteUpdatedAt: quote.quote.updatedAt,
    now,
    // Its supplier orders continue this request's trace in whichever worker steps them (issue 37).
    traceContext: currentTraceContext(),
  });
  if (placed === 'quote_ordered') {
    throw new AppError(
      'CONFLICT',
      `Quote ${quote.quote.id} has an order that is open or completed. ${refused}`,
    );
  }
  if (placed === 'quote_changed') {
    throw new AppError(
      'CONFLICT',
      `Quote ${quote.quote.id} had products added while the order was placed. ${refused} Place it again.`,
    );
  }
  ctx.events.written();
  return placed;
}

/**
 * One of the caller's orders with its lines.
 * @throws {AppError} `NOT_FOUND` for an unknown id and, identically, another instance's id.
 */
export async function getOrder(ctx: Context, id: string): Promise<OrderRecord> {
  const viewer = requireViewer(ctx, orderReaders);
  const record = await ctx.db.findOrder(viewer.instanceId, id);
  if (!record) throw notFound('Order', id);
  return record;
}

/** Like {@link getOrder}, null when not found. */
export async function findOrderForViewer(ctx: Context, id: string): Promise<OrderRecord | null> {
  const viewer = requireViewer(ctx, orderReaders);
  return (await ctx.db.findOrder(viewer.instanceId, id)) ?? null;
}

/**
 * One line of one of the caller's orders by the line's id (`node(id:)` of an `OrderLine`), or null when no
 * order of the caller's instance has it. @throws as {@link findOrderForViewer}.
 */
export async function findOrderLineForViewer(ctx: Context, lineId: string): Promise<OrderLineRow | null> {
  const viewer = requireViewer(ctx, orderReaders);
  const record = await ctx.db.findOrderOfLine(viewer.instanceId, lineId);
  return record?.lines.find((line) => line.id === lineId) ?? null;
}

/** The orders of the caller's quotes, newest first (`Quote.orders`). */
export async function ordersOfQuote(ctx: Context, quoteId: string): Promise<OrderRecord[]> {
  const viewer = requireViewer(ctx, orderReaders);
  return ctx.db.listOrdersOfQuotes(viewer.instanceId, [quoteId]);
}

const positionSchema = z
  .object({ createdAt: z.number().int(), id: z.string().min(1) })
  .transform((position) => ({ createdAt: new Date(position.createdAt), id: position.id }));

/**
 * The caller's orders as a forward Relay connection, newest first, filtered by customer and status.
 * @throws {AppError} `VALIDATION` for `first` over 100, a malformed cursor or an unknown status.
 */
export async function orderConnection(ctx: Context, input: unknown): Promise<Connection<OrderRecord>> {
  const viewer = requireViewer(ctx, orderReaders);
  const args = parseInput(
    z.object({
      first: z.number().int().min(0).max(MAX_PAGE_SIZE).nullish(),
      after: z.string().nullish(),
      customerId: z.string().min(1).max(100).nullish(),
      status: z.enum(orderStatuses).nullish(),
    }),
    input,
    'The connection arguments are invalid.',
  );
  const size = args.first ?? DEFAULT_PAGE_SIZE;
  const after = args.after ? decodeCursor(args.after, positionSchema, '/after') : null;
  const filter = { customerId: args.customerId ?? null, status: args.status ?? null };
  const rows = await ctx.db.sliceOrders(viewer.instanceId, { ...filter, after, offset: 0, limit: size + 1 });
  return forwardConnection(
    rows,
    size,
    after !== null,
    (node) => ({ createdAt: node.order.createdAt.getTime(), id: node.order.id }),
    await ctx.db.countOrders(viewer.instanceId, filter),
  );
}

/**
 * A page of the caller's orders, newest first, filtered by customer and status (REST `GET /orders`, the
 * list envelope of the other lists).
 * @throws {AppError} `VALIDATION` for a bad page, page size or status.
 */
export async function listOrders(
  ctx: Context,
  input: { customerId?: unknown; status?: unknown; page?: unknown; pageSize?: unknown },
): Promise<{ records: OrderRecord[]; pagination: Pagination }> {
  const viewer = requireViewer(ctx, orderReaders);
  const { customerId, status, ...page } = parseInput(
    pageInput.extend({
      customerId: z.string().min(1).max(100).optional(),
      status: z.enum(orderStatuses).optional(),
    }),
    input,
    'The list parameters are invalid.',
  );
  const filter = { customerId: customerId ?? null, status: status ?? null };
  const total = await ctx.db.countOrders(viewer.instanceId, filter);
  const records = await ctx.db.sliceOrders(viewer.instanceId, {
    ...filter,
    after: null,
    offset: pageOffset(page),
    limit: page.pageSize,
  });
  return { records, pagination: pagination(page, total) };
}

/** `updateManualOrderLine` / `PATCH /orders/{id}/lines/{line_id}` input. */
export const manualLineInput = z.strictObject({
  status: z.enum(orderLineStatuses).exclude(['pending']),
  note: z
    .string()
    .trim()
    .max(2000)
    .nullish()
    .transform((value) => value || null),
});

/**
 * Moves a `manual` line of one of the caller's orders to a status (done by the reseller's own means),
 * recording the note, who and when; the order's status follows from its lines.
 *
 * @throws {AppError} `NOT_FOUND` for an unknown order or line; `VALIDATION` for a bad status;
 *   `CONFLICT` for a supplier line (the seller moves it) or a line that already ended (a `none` line has
 *   from the start); `FORBIDDEN` without `instance_admin` or `ordering`. Nothing is written on any of them.
 */
export async function updateManualOrderLine(
  ctx: Context,
  orderId: string,
  lineId: string,
  input: unknown,
): Promise<OrderRecord> {
  const viewer = requireViewer(ctx, orderWriters);
  const fields = parseInput(manualLineInput, input, 'The line was not moved.');
  const moved = await ctx.db.moveManualOrderLine({
    instanceId: viewer.instanceId,
    orderId,
    lineId,
    status: fields.status,
    note: fields.note,
    userId: viewer.userId,
    now: ctx.clock.now(),
  });
  if (moved === 'not_found') throw notFound('Order line', lineId);
  if (moved === 'not_manual') {
    throw new AppError(
      'CONFLICT',
      `Line ${lineId} is fulfilled by its supplier; only manual lines are moved by hand.`,
    );
  }
  if (moved === 'line_final')
    throw new AppError('CONFLICT', `Line ${lineId} has ended; it is not moved again.`);
  ctx.events.written();
  return moved;
}
