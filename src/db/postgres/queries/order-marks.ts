/**
 * The PostgreSQL store's lease marks (`contract/supplier-orders.ts`): what the order worker writes to a supplier order
 * it holds, just before it sends the seller something that must not be sent twice. Each is one fenced
 * `UPDATE` (`shared/order-conditions.ts`, `leasedSupplierOrder`), a named prepared statement.
 */
import { sql } from 'drizzle-orm';
import * as conditions from '../../shared/order-conditions.js';
import { type LeasedMark, leasedMarkOperations } from '../../shared/orders.js';
import type { PostgresDb } from '../client.js';
import { preparedVariants } from '../prepared.js';
import { supplierOrders } from '../schema/index.js';

/**
 * The marks written while a lease is held (`postedAt`, `cancelPostedAt`), as named prepared statements: one
 * before every placement and cancellation sent. Times are bound as `Date`s (see `preparedQuery`).
 */
const leasedMarks = preparedVariants(
  'supplier_order_leased_mark',
  ['postedAt', 'cancelPostedAt'] as const,
  (db, column, name) => {
    const now = sql.placeholder('now');
    return db
      .update(supplierOrders)
      .set({ [column]: sql`${now}::timestamptz` })
      .where(
        conditions.leasedSupplierOrder(
          supplierOrders,
          sql.placeholder('id'),
          sql.placeholder('owner'),
          sql`${now}::timestamptz`,
        ),
      )
      .returning({ id: supplierOrders.id })
      .prepare(name);
  },
);

/** Writes `column` = `now` to a supplier order while `owner` holds its lease: whether it did. */
async function writeWhileLeased(
  db: PostgresDb,
  supplierOrderId: string,
  owner: string,
  now: Date,
  column: LeasedMark,
): Promise<boolean> {
  const written = await leasedMarks(db, column).execute({ id: supplierOrderId, owner, now });
  return written.length === 1;
}

export const { markSupplierOrderCancelPosting, markSupplierOrderPosting } =
  leasedMarkOperations(writeWhileLeased);
