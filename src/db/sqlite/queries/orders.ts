/**
 * The SQLite store's order operations, as `contract/orders.ts` states them. Every write is one
 * `BEGIN IMMEDIATE` transaction: SQLite's one writer at a time is the lock the contract promises.
 */
import {
  and,
  asc,
  desc,
  eq,
  gt,
  inArray,
  isNull,
  lt,
  lte,
  ne,
  notInArray,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import type { OrderRecord, OrderSliceQuery, SupplierOrderRow } from '../../contract/index.js';
import {
  lineChanges,
  manualLineRefusal,
  newOrderRows,
  orderChangeEvent,
  orderRecordsOf,
  orderStatusOf,
} from '../../shared/orders.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import type { Op } from '../operation.js';
import { customers, orderLines, orders, sources, supplierOrders } from '../schema/index.js';
import { recordEvents } from './record-events.js';

type Tx = Parameters<Parameters<SqliteDb['transaction']>[0]>[0];

const headColumns = { order: orders, customer: { id: customers.id, name: customers.name } };

/** The orders `where` selects, in `order`, up to `limit`, as records (two reads). */
function orderRecords(db: SqliteDb | Tx, where: SQL | undefined, order: SQL[], limit?: number, offset = 0) {
  const heads = db
    .select(headColumns)
    .from(orders)
    .innerJoin(customers, eq(customers.id, orders.customerId))
    .where(where)
    .orderBy(...order);
  const rows = limit === undefined ? heads.all() : heads.limit(boundLimit(limit)).offset(offset).all();
  return orderRecordsOf(rows, (orderIds) =>
    db
      .select()
      .from(orderLines)
      .where(inArray(orderLines.orderId, orderIds))
      .orderBy(asc(orderLines.position))
      .all(),
  );
}

/** One order's record inside a transaction (synchronous reads), or undefined. */
function orderRecordIn(tx: Tx, orderId: string): OrderRecord | undefined {
  const head = tx
    .select(headColumns)
    .from(orders)
    .innerJoin(customers, eq(customers.id, orders.customerId))
    .where(eq(orders.id, orderId))
    .get();
  if (!head) return undefined;
  const lines = tx
    .select()
    .from(orderLines)
    .where(eq(orderLines.orderId, orderId))
    .orderBy(asc(orderLines.position))
    .all();
  return { ...head, lines };
}

/**
 * Derives the order's status from its lines again, moves its version and time on, and writes its
 * `order:changed` event — the last step of every write that changed a line.
 */
function touchOrder(db: SqliteDb, tx: Tx, orderId: string, now: Date): OrderRecord | undefined {
  const record = orderRecordIn(tx, orderId);
  if (!record) return undefined;
  const order = {
    ...record.order,
    status: orderStatusOf(record.lines),
    version: record.order.version + 1,
    updatedAt: now,
  };
  tx.update(orders)
    .set({ status: order.status, version: order.version, updatedAt: now })
    .where(eq(orders.id, orderId))
    .run();
  const updated = { ...record, order };
  recordEvents(db, [orderChangeEvent(updated, 'updated')]);
  return updated;
}

export const insertOrder: Op<'insertOrder'> = async (db, input) =>
  db.transaction(
    (tx) => {
      const open = tx
        .select({ id: orders.id })
        .from(orders)
        .where(and(eq(orders.quoteId, input.quoteId), notInArray(orders.status, ['failed', 'cancelled'])))
        .get();
      if (open) return 'quote_ordered' as const;
      const rows = newOrderRows(input);
      tx.insert(orders).values(rows.order).run();
      if (rows.supplierOrders.length > 0) tx.insert(supplierOrders).values(rows.supplierOrders).run();
      if (rows.lines.length > 0) tx.insert(orderLines).values(rows.lines).run();
      const record = orderRecordIn(tx, rows.order.id) as OrderRecord;
      recordEvents(db, [orderChangeEvent(record, 'created')]);
      return record;
    },
    { behavior: 'immediate' },
  );

export const findOrder: Op<'findOrder'> = async (db, instanceId, id) => {
  const [record] = await orderRecords(db, and(eq(orders.instanceId, instanceId), eq(orders.id, id)), []);
  return record;
};

export const listOrdersOfQuotes: Op<'listOrdersOfQuotes'> = async (db, instanceId, quoteIds) => {
  if (quoteIds.length === 0) return [];
  return orderRecords(db, and(eq(orders.instanceId, instanceId), inArray(orders.quoteId, [...quoteIds])), [
    desc(orders.createdAt),
    desc(orders.id),
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
  const row = db
    .select({ count: sql<number>`count(*)` })
    .from(orders)
    .where(filterOf(instanceId, filter))
    .get();
  return row?.count ?? 0;
};

export const sliceOrders: Op<'sliceOrders'> = async (db, instanceId, query) => {
  const { after } = query;
  const bound = after
    ? or(
        lt(orders.createdAt, after.createdAt),
        and(eq(orders.createdAt, after.createdAt), lt(orders.id, after.id)),
      )
    : undefined;
  return orderRecords(
    db,
    and(filterOf(instanceId, query), bound),
    [desc(orders.createdAt), desc(orders.id)],
    query.limit,
    query.offset,
  );
};

export const claimSupplierOrders: Op<'claimSupplierOrders'> = async (db, owner, now, leaseMs, limit) =>
  db.transaction(
    (tx) => {
      const due = tx
        .select({ id: supplierOrders.id })
        .from(supplierOrders)
        .where(
          and(
            lte(supplierOrders.nextCheckAt, now),
            ne(supplierOrders.status, 'ended'),
            or(isNull(supplierOrders.leaseExpiresAt), lte(supplierOrders.leaseExpiresAt, now)),
          ),
        )
        .orderBy(asc(supplierOrders.nextCheckAt), asc(supplierOrders.id))
        .limit(boundLimit(limit))
        .all();
      const leaseExpiresAt = new Date(now.getTime() + leaseMs);
      return due.map(({ id }) => {
        const supplierOrder = tx
          .update(supplierOrders)
          .set({
            leaseOwner: owner,
            leaseExpiresAt,
            attempts: sql`${supplierOrders.attempts} + 1`,
            updatedAt: now,
          })
          .where(eq(supplierOrders.id, id))
          .returning()
          .get() as SupplierOrderRow;
        const source = tx.select().from(sources).where(eq(sources.id, supplierOrder.sourceId)).get();
        const record = orderRecordIn(tx, supplierOrder.orderId) as OrderRecord;
        return {
          supplierOrder,
          source: source as NonNullable<typeof source>,
          order: record.order,
          customer: record.customer,
          lines: record.lines.filter((line) => line.supplierOrderRef === id),
        };
      });
    },
    { behavior: 'immediate' },
  );

export const recordSupplierOrderProgress: Op<'recordSupplierOrderProgress'> = async (db, progress) =>
  db.transaction(
    (tx) => {
      const held = tx
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
        .returning({ orderId: supplierOrders.orderId })
        .get();
      if (!held) return undefined;
      const lines = tx
        .select()
        .from(orderLines)
        .where(eq(orderLines.supplierOrderRef, progress.supplierOrderId))
        .all();
      let changed = false;
      for (const step of progress.lines) {
        const line = lines.find((each) => each.id === step.lineId);
        const changes = line ? lineChanges(line, step) : null;
        if (!changes) continue;
        tx.update(orderLines)
          .set({ ...changes, updatedAt: progress.now })
          .where(eq(orderLines.id, step.lineId))
          .run();
        changed = true;
      }
      if (changed) return touchOrder(db, tx, held.orderId, progress.now);
      return orderRecordIn(tx, held.orderId);
    },
    { behavior: 'immediate' },
  );

export const moveManualOrderLine: Op<'moveManualOrderLine'> = async (db, move) =>
  db.transaction(
    (tx) => {
      const line = tx
        .select()
        .from(orderLines)
        .where(
          and(
            eq(orderLines.id, move.lineId),
            eq(orderLines.orderId, move.orderId),
            eq(orderLines.instanceId, move.instanceId),
          ),
        )
        .get();
      const refusal = manualLineRefusal(line);
      if (refusal) return refusal;
      tx.update(orderLines)
        .set({
          status: move.status,
          note: move.note,
          statusChangedByUserId: move.userId,
          statusChangedAt: move.now,
          completionDate: move.status === 'completed' ? move.now : null,
          updatedAt: move.now,
        })
        .where(eq(orderLines.id, move.lineId))
        .run();
      return touchOrder(db, tx, move.orderId, move.now) as OrderRecord;
    },
    { behavior: 'immediate' },
  );

export const updateOrderLineCharge: Op<'updateOrderLineCharge'> = async (db, update) =>
  db.transaction(
    (tx) => {
      const line = tx
        .select()
        .from(orderLines)
        .where(
          and(
            eq(orderLines.id, update.lineId),
            eq(orderLines.orderId, update.orderId),
            eq(orderLines.instanceId, update.instanceId),
          ),
        )
        .get();
      if (!line?.charges.some((charge) => charge.id === update.charge.id)) return undefined;
      const charges = line.charges.map((charge) => (charge.id === update.charge.id ? update.charge : charge));
      tx.update(orderLines).set({ charges, updatedAt: update.now }).where(eq(orderLines.id, line.id)).run();
      return touchOrder(db, tx, update.orderId, update.now);
    },
    { behavior: 'immediate' },
  );

/**
 * The next check a step records: `now` when a notification hurried the supplier order after the step's
 * claim (its event may not be in what the step read), else the step's own.
 */
function hurriedSince(progress: { claimedAt: Date; nextCheckAt: Date | null; now: Date }): SQL {
  const { claimedAt, nextCheckAt, now } = progress;
  const at = (date: Date | null) => sql.param(date, supplierOrders.nextCheckAt);
  return sql`case when ${supplierOrders.hurriedAt} >= ${at(claimedAt)} and ${supplierOrders.status} <> 'ended' then ${at(now)} else ${at(nextCheckAt)} end`;
}

export const hurrySupplierOrders: Op<'hurrySupplierOrders'> = async (db, sourceId, sellerOrderId, now) => {
  const rows = db
    .update(supplierOrders)
    .set({ nextCheckAt: now, hurriedAt: now })
    .where(
      and(
        eq(supplierOrders.sourceId, sourceId),
        ne(supplierOrders.status, 'ended'),
        sellerOrderId === null ? undefined : eq(supplierOrders.sellerOrderId, sellerOrderId),
      ),
    )
    .returning({ id: supplierOrders.id })
    .all();
  return rows.length;
};

export const listSupplierOrders: Op<'listSupplierOrders'> = async (db, orderId) =>
  db
    .select()
    .from(supplierOrders)
    .where(eq(supplierOrders.orderId, orderId))
    .orderBy(asc(supplierOrders.id))
    .all();
