/*
 * The availability operations on PostgreSQL; each function implements the operation of its name documented
 * in `AvailabilityOperations` (src/db/contract/availability.ts). Reads of records run as named prepared
 * statements with generated row mappers (`prepareRequestRecords`); ids and text sort bytewise
 * (`bytewise`), as the contract's order asks.
 */
import { and, asc, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { exceededLimit, newRequestRecords } from '../../shared/availability.js';
import { createdRequestEvents } from '../../shared/events.js';
import { bulkInsert, oneStatement } from '../bulk-insert.js';
import { bytewise } from '../bytewise.js';
import { listTotal } from '../list-totals.js';
import type { Op } from '../operation.js';
import { preparedQuery, preparedVariants } from '../prepared.js';
import { prepareRequestRecords, recordColumns, withAddress } from '../request-records.js';
import { addresses, availabilityRequests, customers, gatheringTasks, outboxEvents } from '../schema/index.js';

const insertAddressRows = bulkInsert(addresses);
const insertRequestRows = bulkInsert(availabilityRequests);
/** Task ids come from the identity, in row order. */
const insertTaskRows = bulkInsert(gatheringTasks, ['id']);
/** Event ids come from the identity too. */
const insertEventRows = bulkInsert(outboxEvents, ['id']);

/**
 * One statement of three `unnest` inserts ({@link oneStatement}), atomic on its own; with monthly limits it
 * runs in a transaction after the limits' checks.
 *
 * The limits are race-free: before counting a customer's requests since `monthStart`, the transaction
 * locks the customers of `limits` (`SELECT … FOR NO KEY UPDATE`, in id order so that batches of several
 * customers cannot deadlock), and holds the locks until it commits. A concurrent batch for the same
 * customer waits, then counts (a new READ COMMITTED snapshot) the requests this one wrote. `NO KEY UPDATE`
 * still lets other transactions' foreign-key checks on the customer (`KEY SHARE`) through.
 */
export const insertAvailabilityRequests: Op<'insertAvailabilityRequests'> = async (db, batch) => {
  const { instanceId, now } = batch;
  const limits = batch.limits ?? [];
  /** The batch's rows (new ids), and the one statement inserting them: addresses, requests, tasks. */
  const rows = () => {
    const records = newRequestRecords(batch);
    // Task ids come from the identity in row order: per request, its sources in the given order.
    const tasks = batch.requests.flatMap((element, index) =>
      element.sourceIds.map((sourceId) => ({
        instanceId,
        availabilityRequestId: records[index]?.request.id ?? '',
        sourceId,
        status: 'queued' as const,
        attempts: 0,
        availableAt: now,
        createdAt: now,
        updatedAt: now,
        traceContext: batch.traceContext ?? null,
      })),
    );
    const insert = oneStatement([
      insertAddressRows(records.map((record) => record.address)),
      insertRequestRows(records.map((record) => record.request)),
      insertTaskRows(tasks),
      insertEventRows(createdRequestEvents(records)),
    ]);
    return { records, insert };
  };
  if (limits.length === 0) {
    // One statement is a transaction of its own: one round trip instead of BEGIN, three inserts and COMMIT.
    const { records, insert } = rows();
    if (insert) await db.execute(insert);
    return { records };
  }
  return db.transaction(async (tx) => {
    await tx
      .select({ id: customers.id })
      .from(customers)
      .where(inArray(customers.id, [...new Set(limits.map((check) => check.customerId))]))
      .orderBy(asc(customers.id))
      .for('no key update');
    for (const check of limits) {
      const [row] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(availabilityRequests)
        .where(
          and(
            eq(availabilityRequests.customerId, check.customerId),
            gte(availabilityRequests.createdAt, batch.monthStart ?? now),
          ),
        );
      const exceeded = exceededLimit(check, row?.n ?? 0);
      if (exceeded) return { exceeded };
    }
    const { records, insert } = rows();
    if (insert) await tx.execute(insert);
    return { records };
  });
};

const t = availabilityRequests;
/** The instance of the placeholder `instanceId`: every prepared read is one instance's. */
const ofInstance = eq(t.instanceId, sql.placeholder('instanceId'));
/** The list's order: newest first, ties by id bytewise (so pages never overlap). */
const newestFirst = [desc(t.createdAt), desc(bytewise(t.id))];
/** The requests of some customers of an instance. */
const ofCustomers = (instanceId: string, customerIds: readonly string[]) =>
  and(eq(t.instanceId, instanceId), inArray(t.customerId, [...customerIds]));

const requestById = preparedQuery('availability_request_by_id', (db, name) =>
  prepareRequestRecords(db, name, (query) => query.where(and(ofInstance, eq(t.id, sql.placeholder('id'))))),
);

export const findAvailabilityRequest: Op<'findAvailabilityRequest'> = async (db, instanceId, id) => {
  const [record] = await requestById(db).execute({ instanceId, id });
  return record;
};

const requestsById = preparedQuery('availability_requests_by_id', (db, name) =>
  prepareRequestRecords(db, name, (query) =>
    query.where(sql`${t.id} = any(${sql.placeholder('ids')}::text[])`),
  ),
);

export const findAvailabilityRequestsById: Op<'findAvailabilityRequestsById'> = async (db, ids) =>
  ids.length === 0 ? [] : requestsById(db).execute({ ids });

export const countAvailabilityRequests: Op<'countAvailabilityRequests'> = async (
  db,
  instanceId,
  customerId,
) => {
  if (!customerId) return listTotal(db, instanceId, 'availability_requests');
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(t)
    .where(and(eq(t.instanceId, instanceId), eq(t.customerId, customerId)));
  return row?.n ?? 0;
};

const requestPage = preparedQuery('availability_requests_page', (db, name) =>
  prepareRequestRecords(db, name, (query) =>
    query
      .where(ofInstance)
      .orderBy(...newestFirst)
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset')),
  ),
);

export const listAvailabilityRequestsPage: Op<'listAvailabilityRequestsPage'> = async (
  db,
  instanceId,
  page,
) => requestPage(db).execute({ instanceId, limit: page.limit, offset: page.offset });

/** The shapes of a keyset slice: its direction, whether it has a cursor, whether it is one customer's. */
type SliceVariant = `${'older' | 'newer'}_${'from' | 'start'}_${'customer' | 'instance'}`;
const sliceVariants: SliceVariant[] = (['older', 'newer'] as const).flatMap((direction) =>
  (['from', 'start'] as const).flatMap((bound) =>
    (['customer', 'instance'] as const).map((scope): SliceVariant => `${direction}_${bound}_${scope}`),
  ),
);

/**
 * `availability_requests_list_idx` (`availability_requests_customer_idx` for one customer) serves order
 * and bound of each variant.
 */
const requestSlice = preparedVariants('availability_requests_slice', sliceVariants, (db, variant, name) => {
  const [direction, from, scope] = variant.split('_');
  const id = bytewise(t.id);
  // A row comparison, not the equivalent `created_at < … OR (created_at = … AND id < …)`: the index scan
  // starts at the cursor instead of filtering every row before it.
  const position = sql`(${t.createdAt}, ${id})`;
  const cursor = sql`(${sql.placeholder('fromCreatedAt')}::timestamptz, ${sql.placeholder('fromId')}::text)`;
  const bound =
    from === 'start'
      ? undefined
      : direction === 'older'
        ? sql`${position} < ${cursor}`
        : sql`${position} > ${cursor}`;
  const order = direction === 'older' ? newestFirst : [asc(t.createdAt), asc(id)];
  const ofCustomer = scope === 'customer' ? eq(t.customerId, sql.placeholder('customerId')) : undefined;
  return prepareRequestRecords(db, name, (query) =>
    query
      .where(and(ofInstance, ofCustomer, bound))
      .orderBy(...order)
      .limit(sql.placeholder('limit')),
  );
});

export const sliceAvailabilityRequests: Op<'sliceAvailabilityRequests'> = async (db, instanceId, slice) => {
  const { from, customerId } = slice;
  const variant: SliceVariant = `${slice.direction}_${from ? 'from' : 'start'}_${customerId ? 'customer' : 'instance'}`;
  return requestSlice(db, variant).execute({
    instanceId,
    customerId: customerId ?? null,
    fromCreatedAt: from?.createdAt ?? null,
    fromId: from?.id ?? null,
    limit: slice.limit,
  });
};

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
    .orderBy(...newestFirst);
};

/** Ordered by customer id bytewise: the map's order. */
export const countRequestsOfCustomers: Op<'countRequestsOfCustomers'> = async (
  db,
  instanceId,
  customerIds,
) => {
  if (customerIds.length === 0) return new Map();
  const rows = await db
    .select({ customerId: t.customerId, n: sql<number>`count(*)::int` })
    .from(t)
    .where(ofCustomers(instanceId, customerIds))
    .groupBy(t.customerId)
    .orderBy(asc(bytewise(t.customerId)));
  return new Map(rows.map((row) => [row.customerId ?? '', row.n]));
};
