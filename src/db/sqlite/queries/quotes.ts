import { and, asc, desc, eq, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import { listTotal } from '../list-totals.js';
import { availabilityRequestProducts, customers, instances, quoteLines, quotes } from '../schema/index.js';
import type { ProductRow } from './availability-requests.js';

/** A quote row. */
export type QuoteRow = typeof quotes.$inferSelect;
/** A quote-line row. */
export type QuoteLineRow = typeof quoteLines.$inferSelect;
/** A line to add: everything but the keys the store assigns. */
export type NewQuoteLine = Omit<QuoteLineRow, 'id' | 'instanceId' | 'quoteId' | 'position' | 'createdAt'>;

/** A quote with the names its document nests and its lines in order. */
export interface QuoteRecord {
  quote: QuoteRow;
  instance: { id: string; name: string };
  customer: { id: string; name: string };
  lines: QuoteLineRow[];
}

/** A quote to create (validated); number and sequence are assigned here. */
export interface NewQuote {
  instanceId: string;
  instanceCode: string;
  customerId: string;
  userId: string | null;
  name: string;
  referenceNumber: string | null;
  currency: string;
  validityDays: number;
  expirationDate: string;
  lines: NewQuoteLine[];
  now: Date;
}

type Tx = Parameters<Parameters<SqliteDb['transaction']>[0]>[0];

/** Appends lines to a quote, skipping products it already has; positions continue after the last line. */
function appendLines(tx: Tx, instanceId: string, quoteId: string, lines: NewQuoteLine[], now: Date): number {
  const last = tx
    .select({ max: sql<number | null>`max(${quoteLines.position})` })
    .from(quoteLines)
    .where(eq(quoteLines.quoteId, quoteId))
    .get();
  let position = last?.max ?? 0;
  let added = 0;
  for (const line of lines) {
    const inserted = tx
      .insert(quoteLines)
      .values({
        ...line,
        id: newId('quoteLine'),
        instanceId,
        quoteId,
        position: position + 1,
        createdAt: now,
      })
      .onConflictDoNothing({ target: [quoteLines.quoteId, quoteLines.productId] })
      .run();
    if (inserted.changes === 1) {
      position += 1;
      added += 1;
    }
  }
  return added;
}

/**
 * Creates a quote with its lines in one `BEGIN IMMEDIATE` transaction. The sequence is the instance's
 * highest of the year plus one, read inside the write transaction, so concurrent creations get
 * consecutive numbers with no gaps: `2026-0003-ACM`.
 */
export async function insertQuote(db: SqliteDb, input: NewQuote): Promise<QuoteRow> {
  const year = input.now.getUTCFullYear();
  return db.transaction(
    (tx) => {
      const last = tx
        .select({ max: sql<number | null>`max(${quotes.sequence})` })
        .from(quotes)
        .where(and(eq(quotes.instanceId, input.instanceId), eq(quotes.year, year)))
        .get();
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
      tx.insert(quotes).values(row).run();
      appendLines(tx, input.instanceId, row.id, input.lines, input.now);
      return row;
    },
    { behavior: 'immediate' },
  );
}

/**
 * Adds lines to a quote in one transaction; products already on it are skipped.
 * @returns how many lines were added.
 */
export async function addQuoteLines(
  db: SqliteDb,
  input: { instanceId: string; quoteId: string; lines: NewQuoteLine[]; now: Date },
): Promise<number> {
  return db.transaction(
    (tx) => {
      const added = appendLines(tx, input.instanceId, input.quoteId, input.lines, input.now);
      if (added > 0)
        tx.update(quotes).set({ updatedAt: input.now }).where(eq(quotes.id, input.quoteId)).run();
      return added;
    },
    { behavior: 'immediate' },
  );
}

/** One quote of an instance with its lines, or undefined (also for another instance's id). */
export async function findQuote(
  db: SqliteDb,
  instanceId: string,
  id: string,
): Promise<QuoteRecord | undefined> {
  const [record] = await quoteRecords(db, and(eq(quotes.instanceId, instanceId), eq(quotes.id, id)));
  return record;
}

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
  const lines = rows.length
    ? db
        .select()
        .from(quoteLines)
        .where(
          inArray(
            quoteLines.quoteId,
            rows.map((row) => row.quote.id),
          ),
        )
        .orderBy(asc(quoteLines.position))
        .all()
    : [];
  return rows.map((row) => ({ ...row, lines: lines.filter((line) => line.quoteId === row.quote.id) }));
}

/** Number of quotes of an instance, read from its list total (`listTotal`, no scan). */
export async function countQuotes(db: SqliteDb, instanceId: string): Promise<number> {
  return listTotal(db, instanceId, 'quotes');
}

/** Quotes of an instance after a position in newest-first order, for cursor connections. */
export async function sliceQuotes(
  db: SqliteDb,
  instanceId: string,
  query: { after: { createdAt: Date; id: string } | null; limit: number },
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

/** Those of the given ids that are availability-request products of the instance. */
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
