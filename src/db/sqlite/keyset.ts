import { and, type Column, eq, gt, lt, or, type SQL, type SQLWrapper } from 'drizzle-orm';

/** The key of a list ordered by creation: the time a row was created, then its id to break ties. */
export interface CreationKeyColumns {
  createdAt: Column;
  id: Column;
}

/**
 * The rows past a key in a list ordered by `(created_at, id)` on the SQLite store: `older` takes those
 * before it (the next page of a newest-first list), `newer` those after it. SQLite compares the two columns
 * as the list orders them (ids are ASCII), so the keyset needs no row-value comparison; PostgreSQL's lists
 * compare `(created_at, id)` rows bytewise instead (`postgres/bytewise.ts`).
 *
 * @param key the key's time and id, as values or `sql.placeholder(…)`s.
 */
export function pastKey(
  t: CreationKeyColumns,
  direction: 'older' | 'newer',
  key: { createdAt: Date | number | SQLWrapper; id: string | SQLWrapper },
): SQL | undefined {
  const past = direction === 'older' ? lt : gt;
  return or(past(t.createdAt, key.createdAt), and(eq(t.createdAt, key.createdAt), past(t.id, key.id)));
}
