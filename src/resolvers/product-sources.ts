/**
 * The slim source a product or line names (issue 49): `{ id, name, type }` of the source that offered it, so
 * twin products of one network from two sources can be told apart; never the source's settings. REST and
 * GraphQL show the same one.
 */
import type { ProductSource, SourceOutcome } from '../db/rows.js';
import type { SourceType } from '../db/values.js';

/**
 * A quote or order line's source from the name and type it keeps; null for the instance's own products.
 * An order record stored in an event before issue 49 has neither name nor type (undefined): null too.
 */
export function productSourceOf(row: {
  sourceId: string | null;
  sourceName: string | null;
  sourceType: SourceType | null;
}): ProductSource | null {
  if (row.sourceId === null || !row.sourceName || !row.sourceType) return null;
  return { id: row.sourceId, name: row.sourceName, type: row.sourceType };
}

/** The source of a request's products, from that source's outcome on the request. */
export function outcomeSource(outcome: SourceOutcome): ProductSource {
  return { id: outcome.sourceId, name: outcome.sourceName, type: outcome.sourceType };
}
