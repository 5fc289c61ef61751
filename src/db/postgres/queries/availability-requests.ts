import { and, asc, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type {
  AddressRow,
  AvailabilityRequestRecord,
  AvailabilityRequestRow,
  MonthlyLimitCheck,
  MonthlyLimitExceeded,
  NewAvailabilityRequest,
  RequestPosition,
  StoredAvailabilityRequestRecord,
} from '../../rows.js';
import { bulkInsert, oneStatement } from '../bulk-insert.js';
import { bytewise } from '../bytewise.js';
import type { PostgresDb } from '../client.js';
import { listTotal } from '../list-totals.js';
import { preparedQuery, preparedVariants } from '../prepared.js';
import { prepareRecords } from '../prepared-rows.js';
import { recordColumns, recordQuery } from '../request-records.js';
import { addresses, availabilityRequests, customers, gatheringTasks } from '../schema/index.js';

const insertAddressRows = bulkInsert(addresses);
const insertRequestRows = bulkInsert(availabilityRequests);
/** Task ids come from the identity, in row order. */
const insertTaskRows = bulkInsert(gatheringTasks, ['id']);

/**
 * Creates a batch of availability requests with their addresses and one queued gathering task per
 * matching source, in one statement of three `unnest` inserts ({@link oneStatement}): either every element
 * is written or none. With monthly limits that statement runs in a transaction after the limits' checks.
 * A request with no matching source is created `completed` (DESIGN.md, "Status").
 *
 * Monthly limits are race-free: before counting a customer's requests since `monthStart`, the transaction
 * locks the customers of `limits` (`SELECT … FOR NO KEY UPDATE`, in id order so that batches of several
 * customers cannot deadlock), and holds the locks until it commits. A concurrent batch for the same
 * customer waits, then counts (a new READ COMMITTED snapshot) the requests this one wrote. `NO KEY UPDATE`
 * still lets other transactions' foreign-key checks on the customer (`KEY SHARE`) through.
 *
 * @returns the created records in the order of `requests`, or the first exceeded limit (nothing written).
 */
export async function insertAvailabilityRequests(
  db: PostgresDb,
  input: {
    instanceId: string;
    userId: string | null;
    now: Date;
    requests: NewAvailabilityRequest[];
    limits?: MonthlyLimitCheck[];
    monthStart?: Date;
  },
): Promise<{ records: StoredAvailabilityRequestRecord[] } | { exceeded: MonthlyLimitExceeded }> {
  const { instanceId, now } = input;
  const stamps = { createdAt: now, updatedAt: now };
  const limits = input.limits ?? [];
  /** The batch's rows (new ids), and the one statement inserting them: addresses, requests, tasks. */
  const batch = () => {
    const records = input.requests.map((element) => {
      const address: AddressRow = { id: newId('address'), instanceId, ...element.address, ...stamps };
      const request: AvailabilityRequestRow = {
        id: newId('availabilityRequest'),
        instanceId,
        addressId: address.id,
        createdByUserId: input.userId,
        customerId: element.customerId,
        projectId: element.projectId,
        pricePlanId: element.pricePlanId,
        filters: element.filters,
        status: element.sourceIds.length === 0 ? 'completed' : 'pending',
        sourcesTotal: element.sourceIds.length,
        sourcesFinished: 0,
        ...stamps,
      };
      return { request, address };
    });
    // Task ids come from the identity in row order: per request, its sources in the given order, as in SQLite.
    const tasks = input.requests.flatMap((element, index) =>
      element.sourceIds.map((sourceId) => ({
        instanceId,
        availabilityRequestId: records[index]?.request.id ?? '',
        sourceId,
        status: 'queued' as const,
        attempts: 0,
        availableAt: now,
        ...stamps,
      })),
    );
    const insert = oneStatement([
      insertAddressRows(records.map((record) => record.address)),
      insertRequestRows(records.map((record) => record.request)),
      insertTaskRows(tasks),
    ]);
    return { records, insert };
  };
  if (limits.length === 0) {
    // One statement is a transaction of its own: one round trip instead of BEGIN, three inserts and COMMIT.
    const { records, insert } = batch();
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
            gte(availabilityRequests.createdAt, input.monthStart ?? now),
          ),
        );
      const used = row?.n ?? 0;
      if (used + check.requested > check.limit) return { exceeded: { ...check, used } };
    }
    const { records, insert } = batch();
    if (insert) await tx.execute(insert);
    return { records };
  });
}

const requestById = preparedQuery('availability_request_by_id', (db, name) =>
  prepareRecords(
    db,
    name,
    recordColumns,
    recordQuery(db).where(
      and(
        eq(availabilityRequests.instanceId, sql.placeholder('instanceId')),
        eq(availabilityRequests.id, sql.placeholder('id')),
      ),
    ),
  ),
);

/** One request of an instance by id, or undefined (also for another instance's id). */
export async function findAvailabilityRequest(
  db: PostgresDb,
  instanceId: string,
  id: string,
): Promise<AvailabilityRequestRecord | undefined> {
  const [record] = await requestById(db).execute({ instanceId, id });
  return record;
}

const requestsById = preparedQuery('availability_requests_by_id', (db, name) =>
  prepareRecords(
    db,
    name,
    recordColumns,
    recordQuery(db).where(sql`${availabilityRequests.id} = any(${sql.placeholder('ids')}::text[])`),
  ),
);

/**
 * The requests with these ids, whatever their instance, in no particular order; ids not found are left
 * out. For the gathering worker's events (one read for a batch of changed requests), never for a caller's
 * input: it does not scope by instance.
 */
export async function findAvailabilityRequestsById(
  db: PostgresDb,
  ids: readonly string[],
): Promise<AvailabilityRequestRecord[]> {
  if (ids.length === 0) return [];
  return requestsById(db).execute({ ids });
}

/** Number of requests of an instance (of one customer when `customerId` is given). */
export async function countAvailabilityRequests(
  db: PostgresDb,
  instanceId: string,
  customerId?: string | null,
): Promise<number> {
  if (!customerId) return listTotal(db, instanceId, 'availability_requests');
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(availabilityRequests)
    .where(
      and(eq(availabilityRequests.instanceId, instanceId), eq(availabilityRequests.customerId, customerId)),
    );
  return row?.n ?? 0;
}

const requestPage = preparedQuery('availability_requests_page', (db, name) =>
  prepareRecords(
    db,
    name,
    recordColumns,
    recordQuery(db)
      .where(eq(availabilityRequests.instanceId, sql.placeholder('instanceId')))
      .orderBy(desc(availabilityRequests.createdAt), desc(bytewise(availabilityRequests.id)))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset')),
  ),
);

/** A page of an instance's requests, newest first, ties broken by id (so pages never overlap). */
export async function listAvailabilityRequestsPage(
  db: PostgresDb,
  instanceId: string,
  page: { offset: number; limit: number },
): Promise<AvailabilityRequestRecord[]> {
  return requestPage(db).execute({ instanceId, limit: page.limit, offset: page.offset });
}

/** The shapes of a keyset slice: its direction, whether it has a cursor, whether it is one customer's. */
type SliceVariant = `${'older' | 'newer'}_${'from' | 'start'}_${'customer' | 'instance'}`;
const sliceVariants: SliceVariant[] = (['older', 'newer'] as const).flatMap((direction) =>
  (['from', 'start'] as const).flatMap((bound) =>
    (['customer', 'instance'] as const).map((scope): SliceVariant => `${direction}_${bound}_${scope}`),
  ),
);

const requestSlice = preparedVariants('availability_requests_slice', sliceVariants, (db, variant, name) => {
  const [direction, from, scope] = variant.split('_');
  const t = availabilityRequests;
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
  const order = direction === 'older' ? [desc(t.createdAt), desc(id)] : [asc(t.createdAt), asc(id)];
  return prepareRecords(
    db,
    name,
    recordColumns,
    recordQuery(db)
      .where(
        and(
          eq(t.instanceId, sql.placeholder('instanceId')),
          scope === 'customer' ? eq(t.customerId, sql.placeholder('customerId')) : undefined,
          bound,
        ),
      )
      .orderBy(...order)
      .limit(sql.placeholder('limit')),
  );
});

/**
 * Keyset slice of an instance's requests in newest-first order, for cursor connections.
 * `direction: 'older'` returns up to `limit` requests strictly after `from` in that order (older ones);
 * `'newer'` returns up to `limit` strictly before it, nearest first. Ids compare bytewise, as in SQLite;
 * `availability_requests_list_idx` (`availability_requests_customer_idx` for one customer) serves order
 * and bound.
 */
export async function sliceAvailabilityRequests(
  db: PostgresDb,
  instanceId: string,
  slice: {
    from: RequestPosition | null;
    direction: 'older' | 'newer';
    limit: number;
    customerId?: string | null;
  },
): Promise<AvailabilityRequestRecord[]> {
  const { from, customerId } = slice;
  const variant: SliceVariant = `${slice.direction}_${from ? 'from' : 'start'}_${customerId ? 'customer' : 'instance'}`;
  return requestSlice(db, variant).execute({
    instanceId,
    customerId: customerId ?? null,
    fromCreatedAt: from?.createdAt ?? null,
    fromId: from?.id ?? null,
    limit: slice.limit,
  });
}

/**
 * The newest `limit` requests of each of several customers in one query (a window over the customer
 * index), for a customer list that shows each customer's latest requests without a query per customer.
 * Each record carries the `customerId` it belongs to.
 */
export async function listLatestRequestsOfCustomers(
  db: PostgresDb,
  instanceId: string,
  customerIds: readonly string[],
  limit: number,
): Promise<(AvailabilityRequestRecord & { customerId: string | null })[]> {
  if (customerIds.length === 0) return [];
  const t = availabilityRequests;
  const ranked = db
    .select({
      id: t.id,
      rank: sql<number>`row_number() over (partition by ${t.customerId} order by ${t.createdAt} desc, ${bytewise(t.id)} desc)`.as(
        'rank',
      ),
    })
    .from(t)
    .where(and(eq(t.instanceId, instanceId), inArray(t.customerId, [...customerIds])))
    .as('ranked');
  return db
    .select({ ...recordColumns, customerId: t.customerId })
    .from(ranked)
    .innerJoin(t, eq(t.id, ranked.id))
    .innerJoin(addresses, eq(addresses.id, t.addressId))
    .where(sql`${ranked.rank} <= ${limit}`)
    .orderBy(desc(t.createdAt), desc(bytewise(t.id)));
}

/** Number of requests of each of several customers (the map in customer id order, as SQLite groups). */
export async function countRequestsOfCustomers(
  db: PostgresDb,
  instanceId: string,
  customerIds: readonly string[],
): Promise<Map<string, number>> {
  if (customerIds.length === 0) return new Map();
  const t = availabilityRequests;
  const rows = await db
    .select({ customerId: t.customerId, n: sql<number>`count(*)::int` })
    .from(t)
    .where(and(eq(t.instanceId, instanceId), inArray(t.customerId, [...customerIds])))
    .groupBy(t.customerId)
    .orderBy(asc(bytewise(t.customerId)));
  return new Map(rows.map((row) => [row.customerId ?? '', row.n]));
}
