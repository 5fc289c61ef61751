/**
 * The PostgreSQL store's operations of the order worker (`contract/supplier-orders.ts`): the claim of due supplier
 * orders and the record of a step. Both run without a transaction of their own, as named prepared
 * statements where their shape is fixed: the worker runs them for every supplier order it steps, beside the
 * requests that place orders (issue "Orders, part 2", item 5).
 */
import { and, asc, type Column, eq, inArray, type SQLWrapper, sql } from 'drizzle-orm';
import type { OrderRecord, SupplierOrderProgress } from '../../contract/index.js';
import * as conditions from '../../shared/order-conditions.js';
import {
  claimedSupplierOrders,
  orderChangeEvent,
  type SupplierOrderStepWrites,
  supplierOrderStepWrites,
} from '../../shared/orders.js';
import { bytewise } from '../bytewise.js';
import type { PostgresDb } from '../client.js';
import type { Op } from '../operation.js';
import { orderHeadColumns } from '../order-heads.js';
import { preparedQuery } from '../prepared.js';
import { customers, orderLines, orders, outboxEvents, sources, supplierOrders } from '../schema/index.js';

/**
 * The claim: one `UPDATE` of the due ids it locks (`FOR UPDATE SKIP LOCKED`, in claim order), a named
 * prepared statement. A materialized CTE: its `LIMIT … SKIP LOCKED` runs once, where a subquery of `IN` may
 * run again per row. Times are bound as `Date`s (see `preparedQuery`).
 */
const claimDue = preparedQuery('supplier_orders_claim', (db, name) => {
  const now = sql`${sql.placeholder('now')}::timestamptz`;
  const due = db.$with('due').as(
    db
      .select({ id: supplierOrders.id })
      .from(supplierOrders)
      .where(conditions.dueSupplierOrders(supplierOrders, now))
      .orderBy(asc(supplierOrders.nextCheckAt), asc(bytewise(supplierOrders.id)))
      .limit(sql.placeholder('limit'))
      .for('update', { skipLocked: true }),
  );
  return db
    .with(due)
    .update(supplierOrders)
    .set({
      leaseOwner: sql`${sql.placeholder('owner')}`,
      leaseExpiresAt: sql`${sql.placeholder('leaseExpiresAt')}::timestamptz`,
      attempts: sql`${supplierOrders.attempts} + 1`,
      updatedAt: now,
    })
    .where(inArray(supplierOrders.id, db.select({ id: due.id }).from(due)))
    .returning()
    .prepare(name);
});

/** Rows whose `column` is one of the ids of the `text[]` placeholder `ids`. */
const anyOf = (column: SQLWrapper) => sql`${column} = any(${sql.placeholder('ids')}::text[])`;

/** What a claim reads of the supplier orders it took, each a named prepared statement over an id array. */
const claimedSources = preparedQuery('claimed_sources', (db, name) =>
  db.select().from(sources).where(anyOf(sources.id)).prepare(name),
);
const claimedOrderHeads = preparedQuery('claimed_order_heads', (db, name) =>
  db
    .select(orderHeadColumns)
    .from(orders)
    .innerJoin(customers, eq(customers.id, orders.customerId))
    .where(anyOf(orders.id))
    .prepare(name),
);
const claimedLines = preparedQuery('claimed_order_lines', (db, name) =>
  db
    .select()
    .from(orderLines)
    .where(anyOf(orderLines.supplierOrderRef))
    .orderBy(asc(orderLines.position))
    .prepare(name),
);

/**
 * Four named prepared statements however many it claims, two round trips: the lease taken by one `UPDATE`
 * ({@link claimDue}) — atomic on its own, so no transaction around it: a worker woken when nothing is due
 * costs that one statement — then their sources, their orders' heads and their lines, read at once for all
 * of them on three pooled connections. Each read is its own snapshot, as the statements of a READ COMMITTED
 * transaction would be. A read that fails leaves the leases taken until they expire, as a worker that dies
 * after its claim does; the claim's caller logs it and claims again.
 */
export const claimSupplierOrders: Op<'claimSupplierOrders'> = async (db, owner, now, leaseMs, limit) => {
  const rows = await claimDue(db).execute({
    now,
    owner,
    leaseExpiresAt: new Date(now.getTime() + leaseMs),
    limit,
  });
  if (rows.length === 0) return [];
  // `RETURNING` keeps no order: the claim order again (ids are ASCII, so `<` is bytewise).
  rows.sort(
    (a, b) =>
      (a.nextCheckAt?.getTime() ?? 0) - (b.nextCheckAt?.getTime() ?? 0) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const ids = rows.map((row) => row.id);
  const [sourceRows, heads, lines] = await Promise.all([
    claimedSources(db).execute({ ids: [...new Set(rows.map((row) => row.sourceId))] }),
    claimedOrderHeads(db).execute({ ids: [...new Set(rows.map((row) => row.orderId))] }),
    claimedLines(db).execute({ ids }),
  ]);
  return claimedSupplierOrders(ids, rows, sourceRows, heads, lines);
};

/** A time as a `CASE` branch takes it: a parameter typed `timestamptz` (untyped, both branches would be text). */
const timestamp = (date: Date | null) => sql`${sql.param(date, supplierOrders.nextCheckAt)}::timestamptz`;

/** A `jsonb` array of strings without `ids`: `jsonb - text[]` drops every element equal to one of them. */
const withoutIds = (column: Column, ids: readonly string[]) =>
  sql`${column} - ${sql.param([...ids])}::text[]`;

/** The supplier order's columns a step writes (`supplierOrderStepValues` with this dialect's SQL). */
const stepValues = (progress: SupplierOrderProgress) =>
  conditions.supplierOrderStepValues(supplierOrders, progress, timestamp, withoutIds);

/**
 * What a record decides on, in one snapshot: the order of a supplier order with its customer and every line
 * (one row per line, in position order), and the supplier order's source. A named prepared statement.
 */
const recordRead = preparedQuery('supplier_order_record_read', (db, name) =>
  db
    .select({ ...orderHeadColumns, line: orderLines, sourceId: supplierOrders.sourceId })
    .from(supplierOrders)
    .innerJoin(orders, eq(orders.id, supplierOrders.orderId))
    .innerJoin(customers, eq(customers.id, orders.customerId))
    .innerJoin(orderLines, eq(orderLines.orderId, orders.id))
    .where(eq(supplierOrders.id, sql.placeholder('id')))
    .orderBy(asc(orderLines.position))
    .prepare(name),
);

/** Most reads and writes of one record when other changes of its order keep committing in between. */
const RECORD_ATTEMPTS = 20;

/**
 * No transaction of its own: the order and its lines are read in one snapshot ({@link recordRead}), the step
 * is applied to them in memory (`supplierOrderStepWrites`, which gives the record returned), and its writes
 * go out as one statement that takes the order's row lock only while its version is still the one read —
 * `SELECT … FOR UPDATE` re-checks the newest row after waiting, and every change of an order's lines or row
 * grows its version under that lock. Then, only under that lock and while the lease holds, the fenced update
 * of the supplier order; only after that, the lines, the order's status and version, and its event. When
 * another change of the order committed since the read, nothing is written and the record starts again from
 * the read; a lost lease writes nothing either. An unchanged step writes the fenced update alone (neither
 * the order nor an event).
 *
 * @throws Error when the order kept changing for {@link RECORD_ATTEMPTS} attempts.
 */
export const recordSupplierOrderProgress: Op<'recordSupplierOrderProgress'> = async (db, progress) => {
  for (let attempt = 0; attempt < RECORD_ATTEMPTS; attempt += 1) {
    const rows = await recordRead(db).execute({ id: progress.supplierOrderId });
    const [first] = rows;
    if (!first) return undefined;
    const read: OrderRecord = {
      order: first.order,
      customer: first.customer,
      lines: rows.map((row) => row.line),
    };
    const supplierOrder = { id: progress.supplierOrderId, sourceId: first.sourceId };
    const step = supplierOrderStepWrites(read, supplierOrder, progress);
    if (!step.order) {
      const held = await db
        .update(supplierOrders)
        .set(stepValues(progress))
        .where(conditions.heldSupplierOrder(supplierOrders, progress))
        .returning({ id: supplierOrders.id });
      return held.length === 1 ? step.record : undefined;
    }
    const outcome = await writeStep(db, progress, read, { ...step, order: step.order });
    if (outcome === 'written') return step.record;
    if (outcome === 'lease_lost') return undefined;
  }
  throw new Error(
    `recordSupplierOrderProgress: the order of ${progress.supplierOrderId} changed during ${RECORD_ATTEMPTS} attempts`,
  );
};

/**
 * The writes of a changed step as one statement of `WITH` clauses, each only after the one before: the
 * order's row locked at the version read (`locked`), the fenced update of the supplier order (`held`), the
 * order's status and version (`written`), its lines and its event. A row written twice in one statement
 * keeps only one of the writes: a line's writes are merged first.
 *
 * @returns `'written'`; `'changed'` when the order's version moved since the read; `'lease_lost'`.
 */
async function writeStep(
  db: PostgresDb,
  progress: SupplierOrderProgress,
  read: OrderRecord,
  step: SupplierOrderStepWrites & { order: NonNullable<SupplierOrderStepWrites['order']> },
): Promise<'written' | 'changed' | 'lease_lost'> {
  const after = (clause: string) => sql`exists (select 1 from ${sql.identifier(clause)})`;
  const version = sql`${sql.param(read.order.version, orders.version)}::integer`;
  const locked = sql`select ${orders.id} from ${orders} where ${orders.id} = ${read.order.id} and ${orders.version} = ${version} for update`;
  const held = db
    .update(supplierOrders)
    .set(stepValues(progress))
    .where(and(conditions.heldSupplierOrder(supplierOrders, progress), after('locked')))
    .returning({ id: supplierOrders.id });
  const written = db
    .update(orders)
    .set(step.order)
    .where(and(eq(orders.id, read.order.id), after('held')))
    .returning({ id: orders.id });
  const byLine = new Map<string, SupplierOrderStepWrites['lines'][number]['values']>();
  for (const line of step.lines) byLine.set(line.id, { ...byLine.get(line.id), ...line.values });
  const lineWrites = [...byLine].map(([id, values], index) => {
    const update = db
      .update(orderLines)
      .set(values)
      .where(and(eq(orderLines.id, id), after('written')));
    return sql`, ${sql.identifier(`line_${index}`)} as (${update.getSQL()})`;
  });
  const event = orderChangeEvent(step.record, 'updated');
  const c = outboxEvents;
  // An `INSERT … SELECT … WHERE`, so the event is written only with the order (a `VALUES` insert cannot wait).
  const eventWrite = sql`insert into ${c} (instance_id, topic, subject_id, version, payload, trace_context, created_at)
    select ${event.instanceId}, ${event.topic}, ${event.subjectId}, ${sql.param(event.version, c.version)}::integer,
      ${sql.param(event.payload, c.payload)}::jsonb, ${event.traceContext ?? null}::text,
      ${sql.param(event.createdAt, c.createdAt)}::timestamptz
    where ${after('written')}`;
  const result = await db.execute<{ locked: number; held: number }>(sql`with locked as (${locked}),
    held as (${held.getSQL()}), written as (${written.getSQL()})${sql.join(lineWrites)}, event as (${eventWrite})
    select (select count(*) from locked)::int as locked, (select count(*) from held)::int as held`);
  const [counts] = result.rows;
  if (!counts?.locked) return 'changed';
  return counts.held ? 'written' : 'lease_lost';
}
