/*
 * The outbox on SQLite; each exported operation implements the one of its name documented in
 * `EventOperations` (src/db/contract/events.ts). The writing operations record their events inside their
 * own `BEGIN IMMEDIATE` transactions (`record-events.ts`).
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { EVENT_RELAY_LEASE, outboxEventsOf, relayLeaseClaim } from '../../shared/events.js';
import { boundLimit } from '../bound-limit.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { prepareTableRows } from '../prepared-rows.js';
import { outboxEvents, relayLeases } from '../schema/index.js';

/** An upsert that takes the row only from no holder, an expired one, or the same owner. */
export const claimEventRelay: Op<'claimEventRelay'> = async (db, owner, now, leaseMs) => {
  const claim = relayLeaseClaim(relayLeases, owner, now, leaseMs);
  const row = db
    .insert(relayLeases)
    .values(claim.values)
    .onConflictDoUpdate(claim.onConflict)
    .returning({ owner: relayLeases.owner })
    .get();
  return row?.owner === owner;
};

export const releaseEventRelay: Op<'releaseEventRelay'> = async (db, owner) => {
  db.delete(relayLeases)
    .where(and(eq(relayLeases.name, EVENT_RELAY_LEASE), eq(relayLeases.owner, owner)))
    .run();
};

const eventRow = { event: outboxEvents };

/**
 * The relay's read, once per round: rows mapped by `prepareTableRows` — drizzle's own mapping of a batch of
 * 500 events (its class checks per value) was a third of a relay round's time (`npm run bench`,
 * rest-create-100, issue 50).
 */
const oldestEvents = preparedQuery((db) =>
  prepareTableRows(
    db,
    eventRow,
    db
      .select(eventRow)
      .from(outboxEvents)
      .orderBy(asc(outboxEvents.id))
      .limit(boundLimit(sql.placeholder('limit'))),
  ),
);

export const listOutboxEvents: Op<'listOutboxEvents'> = async (db, limit) =>
  outboxEventsOf(
    oldestEvents(db)
      .all({ limit })
      .map((row) => row.event),
  );

const eventsDelete = preparedQuery((db) =>
  db.$client.prepare<[string]>('delete from outbox_events where id in (select value from json_each(?))'),
);

/** The ids as one JSON array parameter (`json_each`), one statement prepared once. */
export const deleteOutboxEvents: Op<'deleteOutboxEvents'> = async (db, ids) =>
  ids.length === 0 ? 0 : eventsDelete(db).run(JSON.stringify(ids)).changes;

export const countOutboxEvents: Op<'countOutboxEvents'> = async (db) =>
  db.select({ n: sql<number>`count(*)` }).from(outboxEvents).get()?.n ?? 0;
