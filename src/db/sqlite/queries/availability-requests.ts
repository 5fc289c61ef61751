/*
 * The availability operations on SQLite; each function implements the operation of its name documented in
 * `AvailabilityOperations` (src/db/contract/availability.ts). Reads of records are prepared once per
 * handle with generated row mappers (`prepareRequestRecords`); a `LIMIT` is a `boundLimit`.
 */
import { and, asc, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { exceededLimit, newRequestRecords } from '../../shared/availability.js';
import { createdRequestEvents } from '../../shared/events.js';
import { boundLimit } from '../bound-limit.js';
import { pastKey } from '../keyset.js';
import { listTotal } from '../list-totals.js';
import type { Op } from '../operation.js';
import { preparedQuery, preparedRowInsert, preparedVariants } from '../prepared.js';
import { prepareNumber } from '../prepared-rows.js';
import { prepareRequestRecords, recordColumns, withAddress } from '../request-records.js';
import { addresses, availabilityRequests, gatheringTasks } from '../schema/index.js';
import { recordEvents } from './record-events.js';

const addressInsert = preparedRowInsert(addresses);
const requestInsert = preparedRowInsert(availabilityRequests);
/**
 * Queues one task per source of a request in one statement: the source ids as a JSON array
 * (`sourceIds`), task ids assigned by SQLite. A create of 100 addresses with 7 matching sources each then
 * runs 100 task statements instead of 700 (`npm run bench`, rest-create-100).
 */
const tasksInsert = preparedQuery((db) => {
  const nowMs = sql`${sql.placeholder('nowMs')}`;
  const none = sql`null`;
  return db
    .insert(gatheringTasks)
    .select(
      db
        .select({
          id: none.as('id'),
          instanceId: sql`${sql.placeholder('instanceId')}`.as('instance_id'),
          availabilityRequestId: sql`${sql.placeholder('requestId')}`.as('availability_request_id'),
          sourceId: sql`value`.as('source_id'),
          status: sql`'queued'`.as('status'),
          attempts: sql`0`.as('attempts'),
          leaseExpiries: sql`0`.as('lease_expiries'),
          availableAt: nowMs.as('available_at'),
          leaseOwner: none.as('lease_owner'),
          leaseExpiresAt: none.as('lease_expires_at'),
          errorCode: none.as('error_code'),
          errorMessage: none.as('error_message'),
          finishedAt: none.as('finished_at'),
          // In the table's column order, which an INSERT … SELECT must follow.
          traceContext: sql`${sql.placeholder('traceContext')}`.as('trace_context'),
          createdAt: nowMs.as('created_at'),
          updatedAt: nowMs.as('updated_at'),
        })
        .from(sql`json_each(${sql.placeholder('sourceIds')})`),
    )
    .prepare();
});

/**
 * One write transaction (`BEGIN IMMEDIATE`): SQLite has one writer at a time, so the limits' counts and the
 * inserts cannot interleave with another batch's. Rows go in through prepared single-row inserts, the
 * tasks of a request through {@link tasksInsert}.
 */
export const insertAvailabilityRequests: Op<'insertAvailabilityRequests'> = async (db, batch) => {
  const { instanceId, now } = batch;
  return db.transaction(
    (tx) => {
      for (const check of batch.limits ?? []) {
        const used =
          tx
            .select({ n: sql<number>`count(*)` })
            .from(availabilityRequests)
            .where(
              and(
                eq(availabilityRequests.customerId, check.customerId),
                gte(availabilityRequests.createdAt, batch.monthStart ?? now),
              ),
            )
            .get()?.n ?? 0;
        const exceeded = exceededLimit(check, used);
        if (exceeded) return { exceeded };
      }
      const insertAddress = addressInsert(db);
      const insertRequest = requestInsert(db);
      const queueTasks = tasksInsert(db);
      const records = newRequestRecords(batch);
      for (const [index, { address, request }] of records.entries()) {
        insertAddress.run(address);
        insertRequest.run(request);
        const { sourceIds } = batch.requests[index] ?? { sourceIds: [] };
        if (sourceIds.length > 0) {
          queueTasks.run({
            instanceId,
            requestId: request.id,
            nowMs: now.getTime(),
            sourceIds: JSON.stringify(sourceIds),
            traceContext: batch.traceContext ?? null,
          });
        }
      }
      recordEvents(db, createdRequestEvents(records));
      return { records };
    },
    { behavior: 'immediate' },
  );
};

const t = availabilityRequests;
/** The instance of the placeholder `instanceId`: every prepared read is one instance's. */
const ofInstance = eq(t.instanceId, sql.placeholder('instanceId'));
/** The list's order: newest first, ties by id (so pages never overlap). */
const newestFirst = [desc(t.createdAt), desc(t.id)];
/** The requests of some customers of an instance. */
const ofCustomers = (instanceId: string, customerIds: readonly string[]) =>
  and(eq(t.instanceId, instanceId), inArray(t.customerId, [...customerIds]));

const requestById = preparedQuery((db) =>
  prepareRequestRecords(db, (query) => query.where(and(ofInstance, eq(t.id, sql.placeholder('id'))))),
);

export const findAvailabilityRequest: Op<'findAvailabilityRequest'> = async (db, instanceId, id) =>
  requestById(db).get({ instanceId, id });

const requestsById = preparedQuery((db) =>
  prepareRequestRecords(db, (query) =>
    query.where(sql`${t.id} in (select value from json_each(${sql.placeholder('ids')}))`),
  ),
);

export const findAvailabilityRequestsById: Op<'findAvailabilityRequestsById'> = async (db, ids) =>
  ids.length === 0 ? [] : requestsById(db).all({ ids: JSON.stringify(ids) });

const requestCount = preparedQuery((db) =>
  prepareNumber(
    db,
    db
      .select({ n: sql<number>`count(*)` })
      .from(t)
      .where(and(ofInstance, eq(t.customerId, sql.placeholder('customerId')))),
  ),
);

export const countAvailabilityRequests: Op<'countAvailabilityRequests'> = async (
  db,
  instanceId,
  customerId,
) =>
  customerId
    ? (requestCount(db).get({ instanceId, customerId }) ?? 0)
    : listTotal(db, instanceId, 'availability_requests');

const requestsPage = preparedQuery((db) =>
  prepareRequestRecords(db, (query) =>
    query
      .where(ofInstance)
      .orderBy(...newestFirst)
      .limit(boundLimit(sql.placeholder('limit')))
      .offset(sql.placeholder('offset')),
  ),
);

export const listAvailabilityRequestsPage: Op<'listAvailabilityRequestsPage'> = async (
  db,
  instanceId,
  page,
) => requestsPage(db).all({ instanceId, limit: page.limit, offset: page.offset });

/** One prepared statement per direction, cursor or none, and scope ({@link requestSlice}). */
export const sliceAvailabilityRequests: Op<'sliceAvailabilityRequests'> = async (db, instanceId, slice) => {
  const { from, direction } = slice;
  const variant =
    `${direction}:${from === null ? 'first' : 'after'}:${slice.customerId ? 'customer' : 'instance'}` as const;
  return requestSlice(db, variant).all({
    instanceId,
    customerId: slice.customerId ?? null,
    limit: slice.limit,
    fromCreatedAtMs: from?.createdAt.getTime() ?? null,
    fromId: from?.id ?? null,
  });
};

type SliceVariant = `${'older' | 'newer'}:${'first' | 'after'}:${'customer' | 'instance'}`;

/** The keyset queries behind {@link sliceAvailabilityRequests}, one per direction, bound and scope. */
const requestSlice = preparedVariants((db, variant: SliceVariant) => {
  const [direction, start, scope] = variant.split(':') as ['older' | 'newer', 'first' | 'after', string];
  const createdAt = sql.placeholder('fromCreatedAtMs');
  const id = sql.placeholder('fromId');
  const bound = start === 'first' ? undefined : pastKey(t, direction, { createdAt, id });
  const order = direction === 'older' ? newestFirst : [asc(t.createdAt), asc(t.id)];
  const ofCustomer = scope === 'customer' ? eq(t.customerId, sql.placeholder('customerId')) : undefined;
  return prepareRequestRecords(db, (query) =>
    query
      .where(and(ofInstance, ofCustomer, bound))
      .orderBy(...order)
      .limit(boundLimit(sql.placeholder('limit'))),
  );
});

/** A window over the customer index, ranked in the list's order. */
export const listLatestRequestsOfCustomers: Op<'listLatestRequestsOfCustomers'> = async (
  db,
  instanceId,
  customerIds,
  limit,
) => {
  if (customerIds.length === 0) return [];
  const ranked = db
    .select({
      id: t.id,
      rank: sql<number>`row_number() over (partition by ${t.customerId} order by ${sql.join(newestFirst, sql`, `)})`.as(
        'rank',
      ),
    })
    .from(t)
    .where(ofCustomers(instanceId, customerIds))
    .as('ranked');
  return db
    .select({ ...recordColumns, customerId: t.customerId })
    .from(ranked)
    .innerJoin(t, eq(t.id, ranked.id))
    .innerJoin(addresses, withAddress)
    .where(sql`${ranked.rank} <= ${limit}`)
    .orderBy(...newestFirst)
    .all();
};

/** Grouped on the customer index, which gives the map its id order. */
export const countRequestsOfCustomers: Op<'countRequestsOfCustomers'> = async (
  db,
  instanceId,
  customerIds,
) => {
  if (customerIds.length === 0) return new Map();
  const rows = db
    .select({ customerId: t.customerId, n: sql<number>`count(*)` })
    .from(t)
    .where(ofCustomers(instanceId, customerIds))
    .groupBy(t.customerId)
    .all();
  return new Map(rows.map((row) => [row.customerId ?? '', row.n]));
};
