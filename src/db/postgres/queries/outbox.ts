/*
 * The outbox on PostgreSQL; each function implements the operation of its name documented in
 * `EventOperations` (src/db/contract/events.ts). The writing operations record their events in the same
 * statement as their change (`requestEventsCte`, `bulkInsert(outboxEvents)`).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { EVENT_RELAY_LEASE, outboxEventsOf, relayLeaseClaim } from '../../shared/events.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { outboxEvents, relayLeases } from '../schema/index.js';

/**
 * An upsert that takes the row only from no holder, an expired one, or the same owner. Concurrent claims
 * wait for each other's row lock, and `ON CONFLICT DO UPDATE` checks its `WHERE` on the newest row, so
 * exactly one of two claimers of an expired lease gets it.
 */
export const claimEventRelay: Op<'claimEventRelay'> = async (db, owner, now, leaseMs) => {
  const claim = relayLeaseClaim(relayLeases, owner, now, leaseMs);
  const [row] = await db
    .insert(relayLeases)
    .values(claim.values)
    .onConflictDoUpdate(claim.onConflict)
    .returning({ owner: relayLeases.owner });
  return row?.owner === owner;
};

export const releaseEventRelay: Op<'releaseEventRelay'> = async (db, owner) => {
  await db
    .delete(relayLeases)
    .where(and(eq(relayLeases.name, EVENT_RELAY_LEASE), eq(relayLeases.owner, owner)));
};

const oldestEvents = preparedQuery('outbox_oldest', (db, name) =>
  db.select().from(outboxEvents).orderBy(asc(outboxEvents.id)).limit(sql.placeholder('limit')).prepare(name),
);

export const listOutboxEvents: Op<'listOutboxEvents'> = async (db, limit) =>
  outboxEventsOf(await oldestEvents(db).execute({ limit }));

/** The relay's delete after each publish: one named prepared statement for any number of ids. */
const deleteEvents = preparedQuery('outbox_delete', (db, name) =>
  db
    .delete(outboxEvents)
    .where(sql`${outboxEvents.id} = any(${sql.placeholder('ids')}::bigint[])`)
    .returning({ id: outboxEvents.id })
    .prepare(name),
);

export const deleteOutboxEvents: Op<'deleteOutboxEvents'> = async (db, ids) => {
  if (ids.length === 0) return 0;
  const deleted = await deleteEvents(db).execute({ ids: [...ids] });
  return deleted.length;
};

export const countOutboxEvents: Op<'countOutboxEvents'> = async (db) => {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(outboxEvents);
  return row?.n ?? 0;
};
