import { and, asc, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { NewQuote, NewQuoteLine, ProductRow, QuoteRecord, QuoteRow } from '../../rows.js';
import type { PostgresDb } from '../client.js';
import { listTotal } from '../list-totals.js';
import { availabilityRequestProducts, customers, instances, quoteLines, quotes } from '../schema/index.js';

type Tx = Parameters<Parameters<PostgresDb['transaction']>[0]>[0];

/**
 * Appends lines to a quote in one multi-row insert: products the quote already has (`existing`) and
 * repeats within `lines` are skipped, the first occurrence wins, and positions continue after `lastPosition`
 * — what SQLite's line-by-line `ON CONFLICT DO NOTHING` yields. The caller makes sure no one else appends
 * to the quote meanwhile.
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
    .values(
      fresh.map((line, index) => ({
        ...line,
        id: newId('quoteLine'),
        instanceId: quote.instanceId,
        quoteId: quote.quoteId,
        position: quote.lastPosition + index + 1,
        createdAt: now,
      })),
    )
    .onConflictDoNothing({ target: [quoteLines.quoteId, quoteLines.productId] })
    .returning({ id: quoteLines.id });
  return added.length;
}

/**
 * Creates a quote with its lines in one transaction. The sequence is the instance's highest of the year
 * plus one: `2026-0003-ACM`. On PostgreSQL it is read after taking a transaction-level advisory lock on
 * (instance, year) (`pg_advisory_xact_lock`), held until commit, so concurrent creations in an instance
 * run one after another and get distinct, consecutive numbers with no gaps.
 */
export async function insertQuote(db: PostgresDb, input: NewQuote): Promise<QuoteRow> {
  const year = input.now.getUTCFullYear();
  return db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext('quotes.sequence'), hashtext(${`${input.instanceId}/${year}`}))`,
    );
    const [last] = await tx
      .select({ max: sql<number | null>`max(${quotes.sequence})` })
      .from(quotes)
      .where(and(eq(quotes.instanceId, input.instanceId), eq(quotes.year, year)));
    const sequence = (last?.max ?? 0) + 1;
    const row: QuoteRow = {
      id: newId('quote'),
      instanceId: input.instanceId,
      customerId: input.customerId,
      createdByUserId: input.userId,
      name: input.name,
      referenceNumber: input.referenceNumber,
      year,
      sequence,
      quoteNumber: `${year}-${String(sequence).padStart(4, '0')}-${input.instanceCode}`,
      currency: input.currency,
      validityDays: input.validityDays,
      expirationDate: input.expirationDate,
      createdAt: input.now,
      updatedAt: input.now,
    };
    await tx.insert(quotes).values(row);
    const quote = { instanceId: input.instanceId, quoteId: row.id, lastPosition: 0, existing: [] };
    await appendLines(tx, quote, input.lines, input.now);
    return row;
  });
}

/**
 * Adds lines to a quote in one transaction; products already on it are skipped. On PostgreSQL the quote
 * row is locked first (`SELECT … FOR NO KEY UPDATE`), so concurrent additions to one quote run one after
 * another and read each other's positions and products.
 * @returns how many lines were added.
 */
export async function addQuoteLines(
  db: PostgresDb,
  input: { instanceId: string; quoteId: string; lines: NewQuoteLine[]; now: Date },
): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.select({ id: quotes.id }).from(quotes).where(eq(quotes.id, input.quoteId)).for('no key update');
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
}

/** One quote of an instance with its lines, or undefined (also for another instance's id). */
export async function findQuote(
  db: PostgresDb,
  instanceId: string,
  id: string,
): Promise<QuoteRecord | undefined> {
  const [record] = await quoteRecords(db, and(eq(quotes.instanceId, instanceId), eq(quotes.id, id)));
  return record;
}

async function quoteRecords(
  db: PostgresDb,
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
  const rows = limit === undefined ? await base : await base.limit(limit);
  const lines = rows.length
    ? await db
        .select()
        .from(quoteLines)
        .where(
          inArray(
            quoteLines.quoteId,
            rows.map((row) => row.quote.id),
          ),
        )
        .orderBy(asc(quoteLines.position))
    : [];
  return rows.map((row) => ({ ...row, lines: lines.filter((line) => line.quoteId === row.quote.id) }));
}

/** Number of quotes of an instance, read from its list total (`listTotal`, no scan). */
export async function countQuotes(db: PostgresDb, instanceId: string): Promise<number> {
  return listTotal(db, instanceId, 'quotes');
}

/**
 * Quotes of an instance after a position in newest-first order, for cursor connections. Ties on the
 * creation time break on the id compared bytewise (`collate "C"`), as SQLite's BINARY collation does.
 */
export async function sliceQuotes(
  db: PostgresDb,
  instanceId: string,
  query: { after: { createdAt: Date; id: string } | null; limit: number },
): Promise<QuoteRecord[]> {
  const { after } = query;
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
}

/** Those of the given ids that are availability-request products of the instance. */
export async function findRequestProducts(
  db: PostgresDb,
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
    );
}
