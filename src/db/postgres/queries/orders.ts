/**
 * The PostgreSQL store's order operations, as `contract/orders.ts` states them; which rows each statement
 * takes is `shared/order-conditions.ts`. Writes lock what they decide on: the supplier orders claimed
 * (`FOR UPDATE SKIP LOCKED`), the order's row before its lines change (in a transaction), so its version
 * grows one at a time; a placement relies on a partial unique index instead (`insertOrder`). Ids order
 * bytewise (`bytewise`).
 */
import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { OrderRecord } from '../../contract/index.js';
import {
  cancellationChargeReplacing,
  cancellationRefusal,
  cancelledLineValues,
} from '../../shared/order-cancellation.js';
import * as conditions from '../../shared/order-conditions.js';
import {
  manualLineRefusal,
  newOrderRows,
  orderChangeEvent,
  orderRecordsOf,
  touchedOrder,
} from '../../shared/orders.js';
import { bytewise } from '../bytewise.js';
import type { PostgresDb } from '../client.js';
import type { Op } from '../operation.js';
import { orderHeadColumns } from '../order-heads.js';
import { preparedQuery } from '../prepared.js';
import { customers, orderLines, orders, outboxEvents, quotes, supplierOrders } from '../schema/index.js';

type Tx = Parameters<Parameters<PostgresDb['transaction']>[0]>[0];

const newestFirst = [desc(orders.createdAt), desc(bytewise(orders.id))];

/** The orders `where` selects, in `order`, `offset` on, up to `limit`, as records (two reads). */
async function orderRecords(
  db: PostgresDb | Tx,
  where: SQL | undefined,
  order: SQL[],
  limit?: number,
  offset = 0,
) {
  const heads = db
    .select(orderHeadColumns)
    .from(orders)
    .innerJoin(customers, eq(customers.id, orders.customerId))
    .where(where)
    .orderBy(...order);
  const rows = limit === undefined ? await heads : await heads.limit(limit).offset(offset);
  return orderRecordsOf(rows, (orderIds) =>
    db
      .select()
      .from(orderLines)
      .where(inArray(orderLines.orderId, orderIds))
      .orderBy(asc(orderLines.position)),
  );
}

/**
 * {@link orderRecords} read from one snapshot (a read-only `REPEATABLE READ` transaction): as two statements
 * on their own, a step committed between them showed an order's status from before it with lines from after.
 */
function orderRecordsAsOne(
  db: PostgresDb,
  where: SQL | undefined,
  order: SQL[],
  limit?: number,
  offset?: number,
) {
  return db.transaction((tx) => orderRecords(tx, where, order, limit, offset), {
    isolationLevel: 'repeatable read',
    accessMode: 'read only',
  });
}

async function orderRecordIn(tx: Tx, orderId: string): Promise<OrderRecord | undefined> {
  const [record] = await orderRecords(tx, eq(orders.id, orderId), []);
  return record;
}

/** Writes the order as `touchedOrder` leaves it after a change of its lines, with its event (order row locked). */
async function touchOrder(tx: Tx, orderId: string, now: Date): Promise<OrderRecord | undefined> {
  const record = await orderRecordIn(tx, orderId);
  if (!record) return undefined;
  const touched = touchedOrder(record, now);
  const { status, version } = touched.order;
  await tx.update(orders).set({ status, version, updatedAt: now }).where(eq(orders.id, orderId));
  await tx.insert(outboxEvents).values(orderChangeEvent(touched, 'updated'));
  return touched;
}

/** Locks an order's row (the order of locks: order, then its lines), so its version grows one at a time. */
async function lockOrder(tx: Tx, orderId: string): Promise<void> {
  await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, orderId)).for('update');
}

/**
 * Locks and reads the order `orderId` of `instanceId` in one statement (`FOR UPDATE`; the order of locks:
 * order, then its lines). Another instance's order is neither read nor locked.
 */
async function lockedOrderOf(tx: Tx, orderId: string, instanceId: string) {
  const [order] = await tx
    .select()
    .from(orders)
    .where(conditions.orderOfInstance(orders, orderId, instanceId))
    .for('update');
  return order;
}

/** A customer's name by id, read before a placement writes its record's event. */
const customerNameById = preparedQuery('customer_name_by_id', (db, name) =>
  db
    .select({ name: customers.name })
    .from(customers)
    .where(eq(customers.id, sql.placeholder('id')))
    .prepare(name),
);

/**
 * The partial unique index of `schema/orders.ts` that allows one order per quote that is neither `failed`
 * nor `cancelled`: a second placement's insert fails on it.
 */
const OPEN_ORDER_OF_QUOTE = 'orders_open_quote_idx';

/** Whether `error` (drizzle's wrapper, or the driver's own) is a unique violation of `constraint` (23505). */
function violates(error: unknown, constraint: string): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    const { code, constraint: name } = cause as Error & { code?: unknown; constraint?: unknown };
    if (code === '23505' && name === constraint) return true;
  }
  return false;
}

/**
 * The customer's name (a named prepared read), then one transaction: the quote's row read `FOR SHARE` (it
 * waits for an `addQuoteLines` under way, whose `FOR NO KEY UPDATE` it conflicts with, and holds off the
 * next) and its `updatedAt` compared with the one the lines were read at; then the order, its supplier
 * orders, its lines and its `created` event written as one statement of data-modifying `WITH` clauses. Two
 * placements of one quote meet at the partial unique index {@link OPEN_ORDER_OF_QUOTE}: the second waits
 * for the first's commit and fails on it, writing nothing (a first that failed lets it through). The record
 * returned is the rows written (`newOrderRows`), as a read gives them.
 */
export const insertOrder: Op<'insertOrder'> = async (db, input) => {
  const [customer] = await customerNameById(db).execute({ id: input.customerId });
  if (!customer) throw new Error(`insertOrder: no customer ${input.customerId}`);
  const rows = newOrderRows(input);
  const record: OrderRecord = {
    order: rows.order,
    customer: { id: input.customerId, name: customer.name },
    lines: [...rows.lines].sort((a, b) => a.position - b.position),
  };
  const writes = [
    db.insert(orders).values(rows.order),
    ...(rows.supplierOrders.length > 0 ? [db.insert(supplierOrders).values(rows.supplierOrders)] : []),
    ...(rows.lines.length > 0 ? [db.insert(orderLines).values(rows.lines)] : []),
  ].map((write, index) => sql`${sql.identifier(`write_${index}`)} as (${write.getSQL()})`);
  const event = db.insert(outboxEvents).values(orderChangeEvent(record, 'created'));
  try {
    return await db.transaction(async (tx) => {
      const [quote] = await tx
        .select({ updatedAt: quotes.updatedAt })
        .from(quotes)
        .where(eq(quotes.id, input.quoteId))
        .for('share');
      if (quote?.updatedAt.getTime() !== input.quoteUpdatedAt.getTime()) return 'quote_changed' as const;
      await tx.execute(sql`with ${sql.join(writes, sql`, `)} ${event.getSQL()}`);
      return record;
    });
  } catch (error) {
    if (violates(error, OPEN_ORDER_OF_QUOTE)) return 'quote_ordered';
    throw error;
  }
};

export const findOrder: Op<'findOrder'> = async (db, instanceId, id) => {
  const where = and(eq(orders.instanceId, instanceId), eq(orders.id, id));
  const [record] = await orderRecordsAsOne(db, where, []);
  return record;
};

export const findOrderOfLine: Op<'findOrderOfLine'> = async (db, instanceId, lineId) => {
  const where = conditions.orderHavingLine(orders, orderLines, instanceId, lineId);
  const [record] = await orderRecordsAsOne(db, where, []);
  return record;
};

export const listOrdersOfQuotes: Op<'listOrdersOfQuotes'> = async (db, instanceId, quoteIds) => {
  if (quoteIds.length === 0) return [];
  return orderRecordsAsOne(
    db,
    and(eq(orders.instanceId, instanceId), inArray(orders.quoteId, [...quoteIds])),
    newestFirst,
  );
};

export const countOrders: Op<'countOrders'> = async (db, instanceId, filter) => {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(orders)
    .where(conditions.ordersMatching(orders, instanceId, filter));
  return row?.count ?? 0;
};

export const sliceOrders: Op<'sliceOrders'> = async (db, instanceId, query) => {
  const { after } = query;
  // A row comparison, which `orders_list_idx` takes as the scan's start.
  const bound = after
    ? sql`(${orders.createdAt}, ${bytewise(orders.id)}) < (${sql.param(after.createdAt, orders.createdAt)}, ${after.id})`
    : undefined;
  return orderRecordsAsOne(
    db,
    and(conditions.ordersMatching(orders, instanceId, query), bound),
    newestFirst,
    query.limit,
    query.offset,
  );
};

export const moveManualOrderLine: Op<'moveManualOrderLine'> = async (db, move) =>
  db.transaction(async (tx) => {
    await lockOrder(tx, move.orderId);
    const [line] = await tx.select().from(orderLines).where(conditions.lineOfOrder(orderLines, move));
    const refusal = manualLineRefusal(line);
    if (refusal) return refusal;
    await tx.update(orderLines).set(conditions.manualMoveValues(move)).where(eq(orderLines.id, move.lineId));
    return (await touchOrder(tx, move.orderId, move.now)) as OrderRecord;
  });

export const updateOrderLineCharge: Op<'updateOrderLineCharge'> = async (db, update) =>
  db.transaction(async (tx) => {
    await lockOrder(tx, update.orderId);
    const [line] = await tx.select().from(orderLines).where(conditions.lineOfOrder(orderLines, update));
    const charges = conditions.chargesReplacing(line, update.charge);
    if (!line || !charges) return undefined;
    await tx.update(orderLines).set({ charges, updatedAt: update.now }).where(eq(orderLines.id, line.id));
    return touchOrder(tx, update.orderId, update.now);
  });

export const requestOrderCancellation: Op<'requestOrderCancellation'> = async (db, request) =>
  db.transaction(async (tx) => {
    const order = await lockedOrderOf(tx, request.orderId, request.instanceId);
    const refusal = cancellationRefusal(order);
    if (refusal) return refusal;
    const { now } = request;
    await tx
      .update(orders)
      .set({ cancelReason: request.reason, cancelRequestedAt: now, cancelRequestedByUserId: request.userId })
      .where(eq(orders.id, request.orderId));
    for (const line of await tx.select().from(orderLines).where(eq(orderLines.orderId, request.orderId))) {
      const values = cancelledLineValues(line, request.userId, now);
      if (values) await tx.update(orderLines).set(values).where(eq(orderLines.id, line.id));
    }
    await tx
      .update(supplierOrders)
      .set({ cancelRequestedAt: now, nextCheckAt: now, hurriedAt: now })
      .where(conditions.cancelledSupplierOrders(supplierOrders, request.orderId));
    return (await touchOrder(tx, request.orderId, now)) as OrderRecord;
  });

export const updateCancellationCharge: Op<'updateCancellationCharge'> = async (db, update) =>
  db.transaction(async (tx) => {
    const order = await lockedOrderOf(tx, update.orderId, update.instanceId);
    const charges = cancellationChargeReplacing(order, update.charge);
    if (!charges) return undefined;
    await tx.update(orders).set({ cancellationCharges: charges }).where(eq(orders.id, update.orderId));
    return touchOrder(tx, update.orderId, update.now);
  });

/** The charge id added to a `jsonb` array of ids, unless it holds it already (`@>`: contains). */
const withChargeId = (chargeId: string) => {
  const ids = supplierOrders.notifiedChargeIds;
  return sql`case when ${ids} @> jsonb_build_array(${chargeId}::text) then ${ids} else ${ids} || jsonb_build_array(${chargeId}::text) end`;
};

export const hurrySupplierOrders: Op<'hurrySupplierOrders'> = async (
  db,
  sourceId,
  sellerOrderId,
  now,
  chargeId,
) => {
  const hurried = await db
    .update(supplierOrders)
    .set({
      nextCheckAt: now,
      hurriedAt: now,
      ...(chargeId === undefined ? {} : { notifiedChargeIds: withChargeId(chargeId) }),
    })
    .where(conditions.hurriedSupplierOrders(supplierOrders, sourceId, sellerOrderId))
    .returning({ id: supplierOrders.id });
  return hurried.length;
};

export const listSupplierOrders: Op<'listSupplierOrders'> = async (db, orderId) =>
  db
    .select()
    .from(supplierOrders)
    .where(eq(supplierOrders.orderId, orderId))
    .orderBy(asc(bytewise(supplierOrders.id)));
