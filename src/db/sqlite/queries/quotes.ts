/** The SQLite store's quote operations, as `contract/quotes.ts` states them. */
import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { NewQuoteLine } from '../../contract/index.js';
import { openOrdersOfQuote } from '../../shared/order-conditions.js';
import { newQuoteLineRow, newQuoteRow, quoteRecordsOf, quoteYear } from '../../shared/quotes.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import { inJsonIds, ofInstanceIn } from '../json-ids.js';
import { pastKey } from '../keyset.js';
import { listTotal } from '../list-totals.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import {
  availabilityRequestProducts,
  customers,
  instances,
  orders,
  quoteLines,
  quotes,
} from '../schema/index.js';

type Tx = Parameters<Parameters<SqliteDb['transaction']>[0]>[0];

/**
 * Appends lines one by one after the quote's last position; `ON CONFLICT DO NOTHING` skips the products
 * the quote has, including those earlier in `lines`. The caller holds the write lock.
 */
function appendLines(
  tx: Tx,
  quote: { instanceId: string; quoteId: string },
  lines: NewQuoteLine[],
  now: Date,
) {
  const last = tx
    .select({ max: sql<number | null>`max(${quoteLines.position})` })
    .from(quoteLines)
    .where(eq(quoteLines.quoteId, quote.quoteId))
    .get();
  let position = last?.max ?? 0;
  for (const line of lines) {
    const inserted = tx
      .insert(quoteLines)
      .values(newQuoteLineRow(line, quote, position + 1, now))
      .onConflictDoNothing({ target: [quoteLines.quoteId, quoteLines.productId] })
      .run();
    position += inserted.changes;
  }
  return position - (last?.max ?? 0);
}

/** One `BEGIN IMMEDIATE` transaction: the highest sequence is read under the write lock. */
export const insertQuote: Op<'insertQuote'> = async (db, input) => {
  return db.transaction(
    (tx) => {
      const last = tx
        .select({ max: sql<number | null>`max(${quotes.sequence})` })
        .from(quotes)
        .where(and(eq(quotes.instanceId, input.instanceId), eq(quotes.year, quoteYear(input.now))))
        .get();
      const row = newQuoteRow(input, last?.max ?? null);
      tx.insert(quotes).values(row).run();
      appendLines(tx, { instanceId: input.instanceId, quoteId: row.id }, input.lines, input.now);
      return row;
    },
    { behavior: 'immediate' },
  );
};

/**
 * One `BEGIN IMMEDIATE` transaction: no other writer appends to the quote or orders it meanwhile (the
 * check of its orders and the insert under one write lock).
 */
export const addQuoteLines: Op<'addQuoteLines'> = async (db, input) => {
  return db.transaction(
    (tx) => {
      if (tx.select({ id: orders.id }).from(orders).where(openOrdersOfQuote(orders, input.quoteId)).get()) {
        return 'quote_ordered' as const;
      }
      const added = appendLines(tx, input, input.lines, input.now);
      if (added > 0)
        tx.update(quotes).set({ updatedAt: input.now }).where(eq(quotes.id, input.quoteId)).run();
      return added;
    },
    { behavior: 'immediate' },
  );
};

export const findQuote: Op<'findQuote'> = async (db, instanceId, id) => {
  const [record] = await quoteRecords(db, and(eq(quotes.instanceId, instanceId), eq(quotes.id, id)), []);
  return record;
};

/** A quote record's head: the quote, and its instance's and customer's id and name. */
const headColumns = {
  quote: quotes,
  instance: { id: instances.id, name: instances.name },
  customer: { id: customers.id, name: customers.name },
};

const linesOfQuotes = preparedQuery((db) =>
  db
    .select()
    .from(quoteLines)
    .where(inJsonIds(quoteLines.quoteId, 'quoteIds'))
    .orderBy(asc(quoteLines.position))
    .prepare(),
);

/** The quotes `where` selects, in `order`, up to `limit`, as `QuoteRecord`s (two reads). */
async function quoteRecords(db: SqliteDb, where: SQL | undefined, order: SQL[], limit?: number) {
  const heads = db
    .select(headColumns)
    .from(quotes)
    .innerJoin(instances, eq(instances.id, quotes.instanceId))
    .innerJoin(customers, eq(customers.id, quotes.customerId))
    .where(where)
    .orderBy(...order);
  const rows = limit === undefined ? heads.all() : heads.limit(boundLimit(limit)).all();
  return quoteRecordsOf(rows, (quoteIds) => linesOfQuotes(db).all({ quoteIds: JSON.stringify(quoteIds) }));
}

export const countQuotes: Op<'countQuotes'> = async (db, instanceId) => {
  return listTotal(db, instanceId, 'quotes');
};

export const sliceQuotes: Op<'sliceQuotes'> = async (db, instanceId, query) => {
  const { after } = query;
  const bound = after ? pastKey(quotes, 'older', after) : undefined;
  return quoteRecords(
    db,
    and(eq(quotes.instanceId, instanceId), bound),
    [desc(quotes.createdAt), desc(quotes.id)],
    query.limit,
  );
};

const requestProducts = preparedQuery((db) =>
  db
    .select()
    .from(availabilityRequestProducts)
    .where(ofInstanceIn(availabilityRequestProducts, availabilityRequestProducts.id, 'ids'))
    .prepare(),
);

export const findRequestProducts: Op<'findRequestProducts'> = async (db, instanceId, ids) => {
  if (ids.length === 0) return [];
  return requestProducts(db).all({ instanceId, ids: JSON.stringify(ids) });
};
