/** The PostgreSQL store's quote operations, as `contract/quotes.ts` states them. */
import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { NewQuoteLine } from '../../contract/index.js';
import { openOrdersOfQuote } from '../../shared/order-conditions.js';
import { newQuoteLineRow, newQuoteRow, quoteRecordsOf, quoteYear } from '../../shared/quotes.js';
import type { PostgresDb } from '../client.js';
import { ofInstanceIn } from '../id-arrays.js';
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

type Tx = Parameters<Parameters<PostgresDb['transaction']>[0]>[0];

/**
 * Appends lines in one multi-row insert, so the products to skip (those in `existing`, and repeats within
 * `lines` after the first) are left out beforehand, and positions continue after `lastPosition`. The
 * caller makes sure no one else appends to the quote meanwhile.
 */
async function appendLines(
  tx: Tx,
  quote: { instanceId: string; quoteId: string; lastPosition: number; existing: Iterable<string> },
  lines: NewQuoteLine[],
  now: Date,
): Promise<number> {
  const seen = new Set(quote.existing);
  const fresh = lines.filter((line) => !seen.has(line.productId) && seen.add(line.productId));
  if (fresh.length === 0) return 0;
  const added = await tx
    .insert(quoteLines)
    .values(fresh.map((line, index) => newQuoteLineRow(line, quote, quote.lastPosition + index + 1, now)))
    .onConflictDoNothing({ target: [quoteLines.quoteId, quoteLines.productId] })
    .returning({ id: quoteLines.id });
  return added.length;
}

/**
 * The highest sequence is read after taking a transaction-level advisory lock on (instance, year)
 * (`pg_advisory_xact_lock`), held until commit: concurrent creations in an instance run one after another.
 */
export const insertQuote: Op<'insertQuote'> = async (db, input) => {
  const year = quoteYear(input.now);
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext('quotes.sequence'), hashtext(${`${input.instanceId}/${year}`}))`,
    );
    const [last] = await tx
      .select({ max: sql<number | null>`max(${quotes.sequence})` })
      .from(quotes)
      .where(and(eq(quotes.instanceId, input.instanceId), eq(quotes.year, year)));
    const row = newQuoteRow(input, last?.max ?? null);
    await tx.insert(quotes).values(row);
    const quote = { instanceId: input.instanceId, quoteId: row.id, lastPosition: 0, existing: [] };
    await appendLines(tx, quote, input.lines, input.now);
    return row;
  });
};

/**
 * The quote row is locked first (`SELECT … FOR NO KEY UPDATE`), so concurrent additions to one quote run
 * one after another and read each other's positions and products.
 */
export const addQuoteLines: Op<'addQuoteLines'> = async (db, input) => {
  return db.transaction(async (tx) => {
    // The lock `insertOrder` waits for (its `FOR SHARE`): an order placed meanwhile is seen here, or sees
    // the lines added.
    await tx.select({ id: quotes.id }).from(quotes).where(eq(quotes.id, input.quoteId)).for('no key update');
    const [ordered] = await tx
      .select({ id: orders.id })
      .from(orders)
      .where(openOrdersOfQuote(orders, input.quoteId))
      .limit(1);
    if (ordered) return 'quote_ordered' as const;
    const current = await tx
      .select({ productId: quoteLines.productId, position: quoteLines.position })
      .from(quoteLines)
      .where(eq(quoteLines.quoteId, input.quoteId));
    const quote = {
      instanceId: input.instanceId,
      quoteId: input.quoteId,
      lastPosition: current.reduce((max, line) => Math.max(max, line.position), 0),
      existing: current.map((line) => line.productId),
    };
    const added = await appendLines(tx, quote, input.lines, input.now);
    if (added > 0) await tx.update(quotes).set({ updatedAt: input.now }).where(eq(quotes.id, input.quoteId));
    return added;
  });
};

/** A quote's head (with its instance's and customer's names) by instance and id: read before every order. */
const quoteHeadById = preparedQuery('quote_head_by_id', (db, name) =>
  quoteHeads(db)
    .where(and(eq(quotes.instanceId, sql.placeholder('instanceId')), eq(quotes.id, sql.placeholder('id'))))
    .prepare(name),
);

/** Two named prepared statements: the head, then its lines. */
export const findQuote: Op<'findQuote'> = async (db, instanceId, id) => {
  const heads = await quoteHeadById(db).execute({ instanceId, id });
  const [record] = await quoteRecordsOf(heads, (quoteIds) => linesOfQuotes(db).execute({ quoteIds }));
  return record;
};

const linesOfQuotes = preparedQuery('quote_lines_of_quotes', (db, name) =>
  db
    .select()
    .from(quoteLines)
    .where(sql`${quoteLines.quoteId} = any(${sql.placeholder('quoteIds')}::text[])`)
    .orderBy(asc(quoteLines.position))
    .prepare(name),
);

/** The select of quote heads: the quote with its instance's and customer's ids and names. */
function quoteHeads(db: PostgresDb) {
  return db
    .select({
      quote: quotes,
      instance: { id: instances.id, name: instances.name },
      customer: { id: customers.id, name: customers.name },
    })
    .from(quotes)
    .innerJoin(instances, eq(instances.id, quotes.instanceId))
    .innerJoin(customers, eq(customers.id, quotes.customerId));
}

/** The quotes `where` selects, in `order`, up to `limit`, as `QuoteRecord`s (two reads). */
async function quoteRecords(db: PostgresDb, where: SQL | undefined, order: SQL[], limit?: number) {
  const heads = quoteHeads(db)
    .where(where)
    .orderBy(...order);
  const rows = limit === undefined ? await heads : await heads.limit(limit);
  return quoteRecordsOf(rows, (quoteIds) => linesOfQuotes(db).execute({ quoteIds }));
}

export const countQuotes: Op<'countQuotes'> = async (db, instanceId) => {
  return listTotal(db, instanceId, 'quotes');
};

export const sliceQuotes: Op<'sliceQuotes'> = async (db, instanceId, query) => {
  const { after } = query;
  // Ids compared bytewise (`collate "C"`), whatever the database's default collation.
  const id = sql`${quotes.id} collate "C"`;
  // A row comparison, which `quotes_list_idx` takes as the scan's start, where the equivalent OR would
  // filter every quote newer than the cursor.
  const bound = after
    ? sql`(${quotes.createdAt}, ${id}) < (${sql.param(after.createdAt, quotes.createdAt)}, ${after.id})`
    : undefined;
  return quoteRecords(
    db,
    and(eq(quotes.instanceId, instanceId), bound),
    [desc(quotes.createdAt), desc(id)],
    query.limit,
  );
};

const requestProducts = preparedQuery('request_products_by_id', (db, name) =>
  db
    .select()
    .from(availabilityRequestProducts)
    .where(ofInstanceIn(availabilityRequestProducts, availabilityRequestProducts.id, 'ids'))
    .prepare(name),
);

export const findRequestProducts: Op<'findRequestProducts'> = async (db, instanceId, ids) => {
  if (ids.length === 0) return [];
  return requestProducts(db).execute({ instanceId, ids });
};
