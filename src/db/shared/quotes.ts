/**
 * What both dialects' quote operations build the same way: the quote's year, number and row, its lines'
 * rows, and records from rows; the SQL is in the dialects' `queries/quotes.ts`.
 */
import { newId } from '../../ids.js';
import type { NewQuote, NewQuoteLine, QuoteLineRow, QuoteRecord, QuoteRow } from '../contract/index.js';
import { withLines } from './row-mapping.js';

/** The year a quote created at `now` is numbered in (UTC). */
export function quoteYear(now: Date): number {
  return now.getUTCFullYear();
}

/** `2026-0003-ACM`: year, sequence in four digits (more when it outgrows them), instance code. */
export function quoteNumber(year: number, sequence: number, instanceCode: string): string {
  return `${year}-${String(sequence).padStart(4, '0')}-${instanceCode}`;
}

/** A new quote's row, numbered one past the instance's highest sequence of the year (`lastSequence`). */
export function newQuoteRow(input: NewQuote, lastSequence: number | null): QuoteRow {
  const year = quoteYear(input.now);
  const sequence = (lastSequence ?? 0) + 1;
  return {
    id: newId('quote'),
    instanceId: input.instanceId,
    customerId: input.customerId,
    createdByUserId: input.userId,
    name: input.name,
    referenceNumber: input.referenceNumber,
    year,
    sequence,
    quoteNumber: quoteNumber(year, sequence, input.instanceCode),
    currency: input.currency,
    validityDays: input.validityDays,
    expirationDate: input.expirationDate,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/** A line's row on a quote at a position. */
export function newQuoteLineRow(
  line: NewQuoteLine,
  quote: { instanceId: string; quoteId: string },
  position: number,
  now: Date,
): QuoteLineRow {
  return {
    ...line,
    id: newId('quoteLine'),
    instanceId: quote.instanceId,
    quoteId: quote.quoteId,
    position,
    createdAt: now,
  };
}

/**
 * The records of quote rows (with their names): their lines, read by `linesOf` for all of them at once
 * (in position order; not called without rows), attached to each.
 */
export function quoteRecordsOf(
  rows: Omit<QuoteRecord, 'lines'>[],
  linesOf: (quoteIds: string[]) => QuoteLineRow[] | Promise<QuoteLineRow[]>,
): Promise<QuoteRecord[]> {
  return withLines(
    rows,
    (row) => row.quote.id,
    (line) => line.quoteId,
    linesOf,
  );
}
