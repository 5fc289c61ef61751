/**
 * The SQLite store's order operations, as `contract/orders.ts` states them; which rows each statement takes
 * is `shared/order-conditions.ts` (`conditions`). Every write is one `BEGIN IMMEDIATE` transaction: SQLite's one writer at
 * a time is the lock the contract promises.
 */
import { and, asc, type Column, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { OrderRecord } from '../../contract/index.js';
import {
  cancellationChargeReplacing,
  cancellationRefusal,
  cancelledLineValues,
} from '../../shared/order-cancellation.js';
import * as conditions from '../../shared/order-conditions.js';
import {
  claimedSupplierOrders,
  type LeasedMark,
  leasedMarkOperations,
  manualLineRefusal,
  newOrderRows,
  orderChangeEvent,
  orderRecordsOf,
  supplierOrderStepWrites,
  touchedOrder,
} from '../../shared/orders.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import { inJsonIds } from '../json-ids.js';
import { pastKey } from '../keyset.js';
import type { Op } from '../operation.js';
import { preparedQuery, preparedVariants } from '../prepared.js';
import { customers, orderLines, orders, quotes, sources, supplierOrders } from '../schema/index.js';
import { recordEvents } from './record-events.js';

type Tx = Parameters<Parameters<SqliteDb['transaction']>[0]>[0];

const headColumns = { order: orders, customer: { id: customers.id, name: customers.name } };
const newestFirst = [desc(orders.createdAt), desc(orders.id)];

/** The orders `where` selects, in `order`, `offset` on, up to `limit`, as records (two reads). */
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

/**
 * The statements of the order worker's every claim and step, prepared once per handle: built by drizzle and
 * compiled by SQLite on each call, they were most of the gateway's CPU while it followed 600 supplier orders
 * (`npm run bench`, order-sonata). Ids go in as JSON arrays (`inJsonIds`), times as milliseconds.
 */
const workerStatements = preparedQuery((db) => {
  const nowMs = sql`${sql.placeholder('nowMs')}`;
  const byPosition = asc(orderLines.position);
  return {
    due: db
      .select({ id: supplierOrders.id })
      .from(supplierOrders)
      .where(conditions.dueSupplierOrders(supplierOrders, nowMs))
      .orderBy(asc(supplierOrders.nextCheckAt), asc(supplierOrders.id))
      .limit(boundLimit(sql.placeholder('limit')))
      .prepare(),
    lease: db
      .update(supplierOrders)
      .set({
        leaseOwner: sql`${sql.placeholder('owner')}`,
        leaseExpiresAt: sql`${sql.placeholder('leaseExpiresAtMs')}`,
        attempts: sql`${supplierOrders.attempts} + 1`,
        updatedAt: nowMs,
      })
      .where(inJsonIds(supplierOrders.id, 'ids'))
      .returning()
      .prepare(),
    sources: db.select().from(sources).where(inJsonIds(sources.id, 'ids')).prepare(),
    heads: db
      .select(headColumns)
      .from(orders)
      .innerJoin(customers, eq(customers.id, orders.customerId))
      .where(inJsonIds(orders.id, 'ids'))
      .prepare(),
    head: db
      .select(headColumns)
      .from(orders)
      .innerJoin(customers, eq(customers.id, orders.customerId))
      .where(eq(orders.id, sql.placeholder('orderId')))
      .prepare(),
    linesOfOrder: db
      .select()
      .from(orderLines)
      .where(eq(orderLines.orderId, sql.placeholder('orderId')))
      .orderBy(byPosition)
      .prepare(),
    linesOfSupplierOrders: db
      .select()
      .from(orderLines)
      .where(inJsonIds(orderLines.supplierOrderRef, 'ids'))
      .orderBy(byPosition)
      .prepare(),
  };
});

/** The heads (order and customer) of the orders of `orderIds`, in no set order. */
const orderHeads = (db: SqliteDb, orderIds: string[]) =>
  workerStatements(db).heads.all({ ids: JSON.stringify(orderIds) });

/** One order's record (synchronous reads, inside the caller's transaction), or undefined. */
function orderRecordIn(db: SqliteDb, orderId: string): OrderRecord | undefined {
  const statements = workerStatements(db);
  const head = statements.head.get({ orderId });
  if (!head) return undefined;
  return { ...head, lines: statements.linesOfOrder.all({ orderId }) };
}

/** Writes the order as `touchedOrder` leaves it after a change of its lines, with its event. */
/** The order `orderId` of `instanceId`, read in the caller's transaction. */
const orderOfInstance = (tx: Tx, orderId: string, instanceId: string) =>
  tx
    .select()
    .from(orders)
    .where(conditions.orderOfInstance(orders, orderId, instanceId))
    .get();

function touchOrder(db: SqliteDb, tx: Tx, orderId: string, now: Date): OrderRecord | undefined {
  const record = orderRecordIn(db, orderId);
  if (!record) return undefined;
  const touched = touchedOrder(record, now);
  const { status, version } = touched.order;
  tx.update(orders).set({ status, version, updatedAt: now }).where(eq(orders.id, orderId)).run();
  recordEvents(db, [orderChangeEvent(touched, 'updated')]);
  return touched;
}

export const insertOrder: Op<'insertOrder'> = async (db, input) =>
  db.transaction(
    (tx) => {
      if (
        tx
          .select({ id: orders.id })
          .from(orders)
          .where(conditions.openOrdersOfQuote(orders, input.quoteId))
          .get()
      ) {
        return 'quote_ordered' as const;
      }
      const quote = tx
        .select({ updatedAt: quotes.updatedAt })
        .from(quotes)
        .where(eq(quotes.id, input.quoteId))
        .get();
      if (quote?.updatedAt.getTime() !== input.quoteUpdatedAt.getTime()) return 'quote_changed' as const;
      const rows = newOrderRows(input);
      tx.insert(orders).values(rows.order).run();
      if (rows.supplierOrders.length > 0) tx.insert(supplierOrders).values(rows.supplierOrders).run();
      if (rows.lines.length > 0) tx.insert(orderLines).values(rows.lines).run();
      const record = orderRecordIn(db, rows.order.id) as OrderRecord;
      recordEvents(db, [orderChangeEvent(record, 'created')]);
      return record;
    },
    { behavior: 'immediate' },
  );

export const findOrder: Op<'findOrder'> = async (db, instanceId, id) => {
  const [record] = await orderRecords(db, and(eq(orders.instanceId, instanceId), eq(orders.id, id)), []);
  return record;
};

export const findOrderOfLine: Op<'findOrderOfLine'> = async (db, instanceId, lineId) => {
  const [record] = await orderRecords(
    db,
    conditions.orderHavingLine(orders, orderLines, instanceId, lineId),
    [],
  );
  return record;
};

export const listOrdersOfQuotes: Op<'listOrdersOfQuotes'> = async (db, instanceId, quoteIds) => {
  if (quoteIds.length === 0) return [];
  const where = and(eq(orders.instanceId, instanceId), inArray(orders.quoteId, [...quoteIds]));
  return orderRecords(db, where, newestFirst);
};

export const countOrders: Op<'countOrders'> = async (db, instanceId, filter) =>
  db
    .select({ count: sql<number>`count(*)` })
    .from(orders)
    .where(conditions.ordersMatching(orders, instanceId, filter))
    .get()?.count ?? 0;

export const sliceOrders: Op<'sliceOrders'> = async (db, instanceId, query) => {
  const { after } = query;
  const bound = after ? pastKey(orders, 'older', after) : undefined;
  const where = and(conditions.ordersMatching(orders, instanceId, query), bound);
  return orderRecords(db, where, newestFirst, query.limit, query.offset);
};

/**
 * A read first: an idle worker polls often, and `BEGIN IMMEDIATE` would take SQLite's one write lock from
 * every other writer each time. The transaction then claims what is due under the lock, with the same five
 * statements however many it claims: the due ids, one update of them all, then their sources, their orders'
 * heads and their lines, each read at once for all of them.
 */
export const claimSupplierOrders: Op<'claimSupplierOrders'> = async (db, owner, now, leaseMs, limit) => {
  const statements = workerStatements(db);
  const nowMs = now.getTime();
  if (statements.due.all({ nowMs, limit: 1 }).length === 0) return [];
  return db.transaction(
    () => {
      const ids = statements.due.all({ nowMs, limit }).map((row) => row.id);
      if (ids.length === 0) return [];
      const rows = statements.lease.all({
        owner,
        leaseExpiresAtMs: nowMs + leaseMs,
        nowMs,
        ids: JSON.stringify(ids),
      });
      const sourceIds = [...new Set(rows.map((row) => row.sourceId))];
      const orderIds = [...new Set(rows.map((row) => row.orderId))];
      return claimedSupplierOrders(
        ids,
        rows,
        statements.sources.all({ ids: JSON.stringify(sourceIds) }),
        orderHeads(db, orderIds),
        statements.linesOfSupplierOrders.all({ ids: JSON.stringify(ids) }),
      );
    },
    { behavior: 'immediate' },
  );
};

/** A time as a `CASE` branch takes it: integer milliseconds, as the column stores them. */
const timestamp = (date: Date | null) => sql`${sql.param(date, supplierOrders.nextCheckAt)}`;

/** A JSON array of strings without `ids`: its other elements gathered again (`[]` when none is left). */
const withoutIds = (column: Column, ids: readonly string[]) =>
  sql`(select json_group_array(kept.value) from json_each(${column}) as kept where kept.value not in (select gone.value from json_each(${JSON.stringify(ids)}) as gone))`;

/**
 * The fenced update first (a lost lease writes nothing), then the order and all its lines read once; the
 * step is applied to them in memory (`supplierOrderStepWrites`), which gives the record returned without
 * reading the order again. An unchanged step writes neither the order nor an event.
 */
export const recordSupplierOrderProgress: Op<'recordSupplierOrderProgress'> = async (db, progress) =>
  db.transaction(
    (tx) => {
      const held = tx
        .update(supplierOrders)
        .set(conditions.supplierOrderStepValues(supplierOrders, progress, timestamp, withoutIds))
        .where(conditions.heldSupplierOrder(supplierOrders, progress))
        .returning({ orderId: supplierOrders.orderId, sourceId: supplierOrders.sourceId })
        .get();
      if (!held) return undefined;
      const read = orderRecordIn(db, held.orderId);
      if (!read) return undefined;
      const step = supplierOrderStepWrites(
        read,
        { id: progress.supplierOrderId, sourceId: held.sourceId },
        progress,
      );
      for (const line of step.lines) {
        tx.update(orderLines).set(line.values).where(eq(orderLines.id, line.id)).run();
      }
      if (step.order) {
        tx.update(orders).set(step.order).where(eq(orders.id, held.orderId)).run();
        recordEvents(db, [orderChangeEvent(step.record, 'updated')]);
      }
      return step.record;
    },
    { behavior: 'immediate' },
  );

export const moveManualOrderLine: Op<'moveManualOrderLine'> = async (db, move) =>
  db.transaction(
    (tx) => {
      const refusal = manualLineRefusal(
        tx.select().from(orderLines).where(conditions.lineOfOrder(orderLines, move)).get(),
      );
      if (refusal) return refusal;
      tx.update(orderLines)
        .set(conditions.manualMoveValues(move))
        .where(eq(orderLines.id, move.lineId))
        .run();
      return touchOrder(db, tx, move.orderId, move.now) as OrderRecord;
    },
    { behavior: 'immediate' },
  );

export const updateOrderLineCharge: Op<'updateOrderLineCharge'> = async (db, update) =>
  db.transaction(
    (tx) => {
      const line = tx.select().from(orderLines).where(conditions.lineOfOrder(orderLines, update)).get();
      const charges = conditions.chargesReplacing(line, update.charge);
      if (!line || !charges) return undefined;
      tx.update(orderLines).set({ charges, updatedAt: update.now }).where(eq(orderLines.id, line.id)).run();
      return touchOrder(db, tx, update.orderId, update.now);
    },
    { behavior: 'immediate' },
  );

export const requestOrderCancellation: Op<'requestOrderCancellation'> = async (db, request) =>
  db.transaction(
    (tx) => {
      const order = orderOfInstance(tx, request.orderId, request.instanceId);
      const refusal = cancellationRefusal(order);
      if (refusal) return refusal;
      const { now } = request;
      tx.update(orders)
        .set({
          cancelReason: request.reason,
          cancelRequestedAt: now,
          cancelRequestedByUserId: request.userId,
        })
        .where(eq(orders.id, request.orderId))
        .run();
      for (const line of tx.select().from(orderLines).where(eq(orderLines.orderId, request.orderId)).all()) {
        const values = cancelledLineValues(line, request.userId, now);
        if (values) tx.update(orderLines).set(values).where(eq(orderLines.id, line.id)).run();
      }
      tx.update(supplierOrders)
        .set({ cancelRequestedAt: now, nextCheckAt: now, hurriedAt: now })
        .where(conditions.cancelledSupplierOrders(supplierOrders, request.orderId))
        .run();
      return touchOrder(db, tx, request.orderId, now) as OrderRecord;
    },
    { behavior: 'immediate' },
  );

export const updateCancellationCharge: Op<'updateCancellationCharge'> = async (db, update) =>
  db.transaction(
    (tx) => {
      const order = orderOfInstance(tx, update.orderId, update.instanceId);
      const charges = cancellationChargeReplacing(order, update.charge);
      if (!charges) return undefined;
      tx.update(orders).set({ cancellationCharges: charges }).where(eq(orders.id, update.orderId)).run();
      return touchOrder(db, tx, update.orderId, update.now);
    },
    { behavior: 'immediate' },
  );

/** The write-ahead marks of a placement and a cancellation (`postedAt`, `cancelPostedAt`), prepared. */
const leasedMarks = preparedVariants((db, column: LeasedMark) => {
  const nowMs = sql`${sql.placeholder('nowMs')}`;
  return db
    .update(supplierOrders)
    .set({ [column]: nowMs })
    .where(
      conditions.leasedSupplierOrder(supplierOrders, sql.placeholder('id'), sql.placeholder('owner'), nowMs),
    )
    .prepare();
});

/** Writes `column` = `now` to a supplier order while `owner` holds its lease: whether it did. */
const writeWhileLeased = (
  db: SqliteDb,
  supplierOrderId: string,
  owner: string,
  now: Date,
  column: LeasedMark,
) => leasedMarks(db, column).run({ id: supplierOrderId, owner, nowMs: now.getTime() }).changes === 1;

export const { markSupplierOrderCancelPosting, markSupplierOrderPosting } =
  leasedMarkOperations(writeWhileLeased);

/** The charge id added to a JSON array of ids, unless it holds it already (`$[#]`: past the last element). */
const withChargeId = (chargeId: string) => {
  const ids = supplierOrders.notifiedChargeIds;
  return sql`case when exists (select 1 from json_each(${ids}) where value = ${chargeId}) then ${ids} else json_insert(${ids}, '$[#]', ${chargeId}) end`;
};

export const hurrySupplierOrders: Op<'hurrySupplierOrders'> = async (
  db,
  sourceId,
  sellerOrderId,
  now,
  chargeId,
) =>
  db
    .update(supplierOrders)
    .set({
      nextCheckAt: now,
      hurriedAt: now,
      ...(chargeId === undefined ? {} : { notifiedChargeIds: withChargeId(chargeId) }),
    })
    .where(conditions.hurriedSupplierOrders(supplierOrders, sourceId, sellerOrderId))
    .run().changes;

export const listSupplierOrders: Op<'listSupplierOrders'> = async (db, orderId) =>
  db
    .select()
    .from(supplierOrders)
    .where(eq(supplierOrders.orderId, orderId))
    .orderBy(asc(supplierOrders.id))
    .all();
