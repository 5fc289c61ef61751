/** The SQLite store's quote operations, as `contract/quotes.ts` states them. */
import { and, asc, desc, eq, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import type {
  NewQuote,
  NewQuoteLine,
  ProductRow,
  QuoteLinesToAdd,
  QuoteRecord,
  QuoteRow,
  QuoteSliceQuery,
} from '../../contract/index.js';
import { newQuoteLineRow, newQuoteRow, quoteRecordsOf, quoteYear } from '../../shared/quotes.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import { listTotal } from '../list-totals.js';
import { availabilityRequestProducts, customers, instances, quoteLines, quotes } from '../schema/index.js';

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

// One `BEGIN IMMEDIATE` transaction: the highest sequence is read under the write lock.
export async function insertQuote(db: SqliteDb, input: NewQuote): Promise<QuoteRow> {
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
}

// One `BEGIN IMMEDIATE` transaction: no other writer appends to the quote meanwhile.
export async function addQuoteLines(db: SqliteDb, input: QuoteLinesToAdd): Promise<number> {
  return db.transaction(
    (tx) => {
      const added = appendLines(tx, input, input.lines, input.now);
      if (added > 0)
        tx.update(quotes).set({ updatedAt: input.now }).where(eq(quotes.id, input.quoteId)).run();
      return added;
    },
    { behavior: 'immediate' },
  );
}

export async function findQuote(
  db: SqliteDb,
  instanceId: string,
  id: string,
): Promise<QuoteRecord | undefined> {
  const [record] = await quoteRecords(db, and(eq(quotes.instanceId, instanceId), eq(quotes.id, id)));
  return record;
}

/** The quotes `where` selects, in `order`, up to `limit`, with their names and lines (two reads). */
async function quoteRecords(
  db: SqliteDb,
  where: SQL | undefined,
  order: SQL[] = [asc(quotes.createdAt)],
  limit?: number,
): Promise<QuoteRecord[]> {
  const base = db
    .select({
      quote: quotes,
      instance: { id: instances.id, name: instances.name },
      customer: { id: customers.id, name: customers.name },
    })
    .from(quotes)
    .innerJoin(instances, eq(instances.id, quotes.instanceId))
    .innerJoin(customers, eq(customers.id, quotes.customerId))
    .where(where)
    .orderBy(...order);
  const rows = limit === undefined ? base.all() : base.limit(boundLimit(limit)).all();
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.quote.id);
  const lines = db
    .select()
    .from(quoteLines)
    .where(inArray(quoteLines.quoteId, ids))
    .orderBy(asc(quoteLines.position))
    .all();
  return quoteRecordsOf(rows, lines);
}

export async function countQuotes(db: SqliteDb, instanceId: string): Promise<number> {
  return listTotal(db, instanceId, 'quotes');
}

export async function sliceQuotes(
  db: SqliteDb,
  instanceId: string,
  query: QuoteSliceQuery,
): Promise<QuoteRecord[]> {
  const { after } = query;
  const bound = after
    ? or(
        lt(quotes.createdAt, after.createdAt),
        and(eq(quotes.createdAt, after.createdAt), lt(quotes.id, after.id)),
      )
    : undefined;
  return quoteRecords(
    db,
    and(eq(quotes.instanceId, instanceId), bound),
    [desc(quotes.createdAt), desc(quotes.id)],
    query.limit,
  );
}

export async function findRequestProducts(
  db: SqliteDb,
  instanceId: string,
  ids: readonly string[],
): Promise<ProductRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(availabilityRequestProducts)
    .where(
      and(
        eq(availabilityRequestProducts.instanceId, instanceId),
        inArray(availabilityRequestProducts.id, [...ids]),
      ),
    )
    .all();
}
