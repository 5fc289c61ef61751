/**
 * The PostgreSQL store's order operations, as `contract/orders.ts` states them. Writes run in transactions
 * that lock what they decide on: the quote's row for a placement, the supplier orders claimed
 * (`FOR UPDATE SKIP LOCKED`), the order's row before its lines change, so its version grows one at a time.
 * Ids order bytewise (`bytewise`).
 */
import { and, asc, desc, eq, gt, inArray, isNull, lte, ne, notInArray, or, type SQL, sql } from 'drizzle-orm';
import type { OrderRecord, OrderSliceQuery, SupplierOrderRow } from '../../contract/index.js';
import {
  lineChanges,
  manualLineRefusal,
  newOrderRows,
  orderChangeEvent,
  orderRecordsOf,
  orderStatusOf,
} from '../../shared/orders.js';
import { bytewise } from '../bytewise.js';
import type { PostgresDb } from '../client.js';
import type { Op } from '../operation.js';
import {
  customers,
  orderLines,
  orders,
  outboxEvents,
  quotes,
  sources,
  supplierOrders,
} from '../schema/index.js';

type Tx = Parameters<Parameters<PostgresDb['transaction']>[0]>[0];

const headColumns = { order: orders, customer: { id: customers.id, name: customers.name } };

/** The orders `where` selects, in `order`, up to `limit`, as records (two reads). */
async function orderRecords(
  db: PostgresDb | Tx,
  where: SQL | undefined,
  order: SQL[],
  limit?: number,
  offset = 0,
) {
  const heads = db
    .select(headColumns)
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

async function orderRecordIn(tx: Tx, orderId: string): Promise<OrderRecord | undefined> {
  const [record] = await orderRecords(tx, eq(orders.id, orderId), []);
  return record;
}

/**
 * Derives the order's status from its lines again, moves its version and time on, and writes its
 * `order:changed` event; the caller holds the order's row lock.
 */
async function touchOrder(tx: Tx, orderId: string, now: Date): Promise<OrderRecord | undefined> {
  const record = await orderRecordIn(tx, orderId);
  if (!record) return undefined;
  const order = {
    ...record.order,
    status: orderStatusOf(record.lines),
    version: record.order.version + 1,
    updatedAt: now,
  };
  await tx
    .update(orders)
    .set({ status: order.status, version: order.version, updatedAt: now })
    .where(eq(orders.id, orderId));
  const updated = { ...record, order };
  await tx.insert(outboxEvents).values(orderChangeEvent(updated, 'updated'));
  return updated;
}

/** Locks an order's row (the order of locks: order, then its lines), so its version grows one at a time. */
async function lockOrder(tx: Tx, orderId: string): Promise<void> {
  await tx.select({ id: orders.id }).from(orders).where(eq(orders.id, orderId)).for('update');
}

export const insertOrder: Op<'insertOrder'> = async (db, input) =>
  db.transaction(async (tx) => {
    await tx.select({ id: quotes.id }).from(quotes).where(eq(quotes.id, input.quoteId)).for('update');
    const [open] = await tx
      .select({ id: orders.id })
      .from(orders)
      .where(and(eq(orders.quoteId, input.quoteId), notInArray(orders.status, ['failed', 'cancelled'])))
      .limit(1);
    if (open) return 'quote_ordered' as const;
    const rows = newOrderRows(input);
    await tx.insert(orders).values(rows.order);
    if (rows.supplierOrders.length > 0) await tx.insert(supplierOrders).values(rows.supplierOrders);
    if (rows.lines.length > 0) await tx.insert(orderLines).values(rows.lines);
    const record = (await orderRecordIn(tx, rows.order.id)) as OrderRecord;
    await tx.insert(outboxEvents).values(orderChangeEvent(record, 'created'));
    return record;
  });

export const findOrder: Op<'findOrder'> = async (db, instanceId, id) => {
  const [record] = await orderRecords(db, and(eq(orders.instanceId, instanceId), eq(orders.id, id)), []);
  return record;
};

export const listOrdersOfQuotes: Op<'listOrdersOfQuotes'> = async (db, instanceId, quoteIds) => {
  if (quoteIds.length === 0) return [];
  return orderRecords(db, and(eq(orders.instanceId, instanceId), inArray(orders.quoteId, [...quoteIds])), [
    desc(orders.createdAt),
    desc(bytewise(orders.id)),
  ]);
};

function filterOf(instanceId: string, filter: Pick<OrderSliceQuery, 'customerId' | 'status'>) {
  return and(
    eq(orders.instanceId, instanceId),
    filter.customerId === null ? undefined : eq(orders.customerId, filter.customerId),
    filter.status === null ? undefined : eq(orders.status, filter.status),
  );
}

export const countOrders: Op<'countOrders'> = async (db, instanceId, filter) => {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(orders)
    .where(filterOf(instanceId, filter));
  return row?.count ?? 0;
};

export const sliceOrders: Op<'sliceOrders'> = async (db, instanceId, query) => {
  const { after } = query;
  const id = bytewise(orders.id);
  const bound = after
    ? sql`(${orders.createdAt}, ${id}) < (${sql.param(after.createdAt, orders.createdAt)}, ${after.id})`
    : undefined;
  return orderRecords(
    db,
    and(filterOf(instanceId, query), bound),
    [desc(orders.createdAt), desc(id)],
    query.limit,
    query.offset,
  );
};

export const claimSupplierOrders: Op<'claimSupplierOrders'> = async (db, owner, now, leaseMs, limit) =>
  db.transaction(async (tx) => {
    const due = await tx
      .select({ id: supplierOrders.id })
      .from(supplierOrders)
      .where(
        and(
          lte(supplierOrders.nextCheckAt, now),
          ne(supplierOrders.status, 'ended'),
          or(isNull(supplierOrders.leaseExpiresAt), lte(supplierOrders.leaseExpiresAt, now)),
        ),
      )
      .orderBy(asc(supplierOrders.nextCheckAt), asc(bytewise(supplierOrders.id)))
      .limit(limit)
      .for('update', { skipLocked: true });
    const leaseExpiresAt = new Date(now.getTime() + leaseMs);
    const claimed = [];
    for (const { id } of due) {
      const [supplierOrder] = await tx
        .update(supplierOrders)
        .set({
          leaseOwner: owner,
          leaseExpiresAt,
          attempts: sql`${supplierOrders.attempts} + 1`,
          updatedAt: now,
        })
        .where(eq(supplierOrders.id, id))
        .returning();
      const row = supplierOrder as SupplierOrderRow;
      const [source] = await tx.select().from(sources).where(eq(sources.id, row.sourceId));
      const record = (await orderRecordIn(tx, row.orderId)) as OrderRecord;
      claimed.push({
        supplierOrder: row,
        source: source as NonNullable<typeof source>,
        order: record.order,
        customer: record.customer,
        lines: record.lines.filter((line) => line.supplierOrderRef === id),
      });
    }
    return claimed;
  });

export const recordSupplierOrderProgress: Op<'recordSupplierOrderProgress'> = async (db, progress) =>
  db.transaction(async (tx) => {
    const [current] = await tx
      .select({ orderId: supplierOrders.orderId })
      .from(supplierOrders)
      .where(eq(supplierOrders.id, progress.supplierOrderId));
    if (!current) return undefined;
    await lockOrder(tx, current.orderId);
    const [held] = await tx
      .update(supplierOrders)
      .set({
        status: progress.status,
        sellerOrderId: progress.sellerOrderId,
        sellerState: progress.sellerState,
        nextCheckAt: hurriedSince(progress),
        errorCode: progress.errorCode,
        errorMessage: progress.errorMessage,
        leaseOwner: null,
        leaseExpiresAt: null,
        updatedAt: progress.now,
      })
      .where(
        and(
          eq(supplierOrders.id, progress.supplierOrderId),
          eq(supplierOrders.leaseOwner, progress.owner),
          gt(supplierOrders.leaseExpiresAt, progress.now),
        ),
      )
      .returning({ orderId: supplierOrders.orderId });
    if (!held) return undefined;
    const lines = await tx
      .select()
      .from(orderLines)
      .where(eq(orderLines.supplierOrderRef, progress.supplierOrderId));
    let changed = false;
    for (const step of progress.lines) {
      const line = lines.find((each) => each.id === step.lineId);
      const changes = line ? lineChanges(line, step) : null;
      if (!changes) continue;
      await tx
        .update(orderLines)
        .set({ ...changes, updatedAt: progress.now })
        .where(eq(orderLines.id, step.lineId));
      changed = true;
    }
    return changed ? touchOrder(tx, held.orderId, progress.now) : orderRecordIn(tx, held.orderId);
  });

export const moveManualOrderLine: Op<'moveManualOrderLine'> = async (db, move) =>
  db.transaction(async (tx) => {
    await lockOrder(tx, move.orderId);
    const [line] = await tx
      .select()
      .from(orderLines)
      .where(
        and(
          eq(orderLines.id, move.lineId),
          eq(orderLines.orderId, move.orderId),
          eq(orderLines.instanceId, move.instanceId),
        ),
      );
    const refusal = manualLineRefusal(line);
    if (refusal) return refusal;
    await tx
      .update(orderLines)
      .set({
        status: move.status,
        note: move.note,
        statusChangedByUserId: move.userId,
        statusChangedAt: move.now,
        completionDate: move.status === 'completed' ? move.now : null,
        updatedAt: move.now,
      })
      .where(eq(orderLines.id, move.lineId));
    return (await touchOrder(tx, move.orderId, move.now)) as OrderRecord;
  });

export const updateOrderLineCharge: Op<'updateOrderLineCharge'> = async (db, update) =>
  db.transaction(async (tx) => {
    await lockOrder(tx, update.orderId);
    const [line] = await tx
      .select()
      .from(orderLines)
      .where(
        and(
          eq(orderLines.id, update.lineId),
          eq(orderLines.orderId, update.orderId),
          eq(orderLines.instanceId, update.instanceId),
        ),
      );
    if (!line?.charges.some((charge) => charge.id === update.charge.id)) return undefined;
    const charges = line.charges.map((charge) => (charge.id === update.charge.id ? update.charge : charge));
    await tx.update(orderLines).set({ charges, updatedAt: update.now }).where(eq(orderLines.id, line.id));
    return touchOrder(tx, update.orderId, update.now);
  });

/**
 * The next check a step records: `now` when a notification hurried the supplier order after the step's
 * claim (its event may not be in what the step read), else the step's own.
 */
function hurriedSince(progress: { claimedAt: Date; nextCheckAt: Date | null; now: Date }): SQL {
  const { claimedAt, nextCheckAt, now } = progress;
  const at = (date: Date | null) => sql.param(date, supplierOrders.nextCheckAt);
  return sql`case when ${supplierOrders.hurriedAt} >= ${at(claimedAt)}::timestamptz and ${supplierOrders.status} <> 'ended' then ${at(now)}::timestamptz else ${at(nextCheckAt)}::timestamptz end`;
}

export const hurrySupplierOrders: Op<'hurrySupplierOrders'> = async (db, sourceId, sellerOrderId, now) => {
  const rows = await db
    .update(supplierOrders)
    .set({ nextCheckAt: now, hurriedAt: now })
    .where(
      and(
        eq(supplierOrders.sourceId, sourceId),
        ne(supplierOrders.status, 'ended'),
        sellerOrderId === null ? undefined : eq(supplierOrders.sellerOrderId, sellerOrderId),
      ),
    )
    .returning({ id: supplierOrders.id });
  return rows.length;
};

export const listSupplierOrders: Op<'listSupplierOrders'> = async (db, orderId) =>
  db
    .select()
    .from(supplierOrders)
    .where(eq(supplierOrders.orderId, orderId))
    .orderBy(asc(bytewise(supplierOrders.id)));
