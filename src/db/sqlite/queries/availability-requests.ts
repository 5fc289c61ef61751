import { and, asc, desc, eq, gt, gte, inArray, lt, or, sql } from 'drizzle-orm';
import { newId } from '../../../ids.js';
import type { StoredFilters } from '../../values.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import { listTotal } from '../list-totals.js';
import { preparedQuery, preparedRowInsert, preparedVariants } from '../prepared.js';
import { prepareNumber, prepareTableRows, type SelectedRow } from '../prepared-rows.js';
import {
  recordColumns,
  recordQuery,
  type shownAddressColumns,
  type shownRequestColumns,
} from '../request-records.js';
import {
  addresses,
  type availabilityRequestProducts,
  availabilityRequests,
  gatheringTasks,
} from '../schema/index.js';

/** An address row. */
export type AddressRow = typeof addresses.$inferSelect;
/** An availability-request row. */
export type AvailabilityRequestRow = typeof availabilityRequests.$inferSelect;
/** A gathered product row. */
export type ProductRow = typeof availabilityRequestProducts.$inferSelect;

/** What the API shows of a request; a whole {@link AvailabilityRequestRow} is one too. */
export type ShownRequest = SelectedRow<typeof shownRequestColumns>;
/** What the API shows of an address; a whole {@link AddressRow} is one too. */
export type ShownAddress = SelectedRow<typeof shownAddressColumns>;

/** A request with its address, as every read returns it (the shown columns only). */
export interface AvailabilityRequestRecord {
  request: ShownRequest;
  address: ShownAddress;
}

/** A request with its address as stored, every column: what an insert returns. */
export interface StoredAvailabilityRequestRecord extends AvailabilityRequestRecord {
  request: AvailabilityRequestRow;
  address: AddressRow;
}

/** The address part of a new request, already normalised and geocoded. */
export type NewAddress = Omit<AddressRow, 'id' | 'instanceId' | 'createdAt' | 'updatedAt'>;

/** One element of a validated batch: its address, filters, attachments and the sources that match it. */
export interface NewAvailabilityRequest {
  address: NewAddress;
  filters: StoredFilters;
  customerId: string | null;
  projectId: string | null;
  pricePlanId: string;
  sourceIds: string[];
}

/** A customer's monthly cap to enforce while creating a batch. */
export interface MonthlyLimitCheck {
  customerId: string;
  limit: number;
  /** Requests of this batch for the customer. */
  requested: number;
}

/** Why a batch was not created: a customer's monthly limit would be exceeded. */
export interface MonthlyLimitExceeded {
  customerId: string;
  limit: number;
  /** Requests already created for the customer this month. */
  used: number;
  requested: number;
}

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
          availableAt: nowMs.as('available_at'),
          leaseOwner: none.as('lease_owner'),
          leaseExpiresAt: none.as('lease_expires_at'),
          errorCode: none.as('error_code'),
          errorMessage: none.as('error_message'),
          finishedAt: none.as('finished_at'),
          createdAt: nowMs.as('created_at'),
          updatedAt: nowMs.as('updated_at'),
        })
        .from(sql`json_each(${sql.placeholder('sourceIds')})`),
    )
    .prepare();
});

/**
 * Creates a batch of availability requests with their addresses and one queued gathering task per
 * matching source, all in one transaction: either every element is written or none.
 * A request with no matching source is created `completed` (DESIGN.md, "Status").
 *
 * Monthly limits are checked inside the same write transaction (counting requests created since
 * `monthStart`), so concurrent batches cannot overshoot a customer's cap together.
 *
 * @returns the created records in the order of `requests`, or the first exceeded limit (nothing written).
 */
export async function insertAvailabilityRequests(
  db: SqliteDb,
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
  return db.transaction(
    (tx) => {
      for (const check of input.limits ?? []) {
        const used =
          tx
            .select({ n: sql<number>`count(*)` })
            .from(availabilityRequests)
            .where(
              and(
                eq(availabilityRequests.customerId, check.customerId),
                gte(availabilityRequests.createdAt, input.monthStart ?? now),
              ),
            )
            .get()?.n ?? 0;
        if (used + check.requested > check.limit) return { exceeded: { ...check, used } };
      }
      const insertAddress = addressInsert(db);
      const insertRequest = requestInsert(db);
      const queueTasks = tasksInsert(db);
      const records = input.requests.map((element) => {
        const address: AddressRow = { id: newId('address'), instanceId, ...element.address, ...stamps };
        insertAddress.run(address);
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
        insertRequest.run(request);
        if (element.sourceIds.length > 0) {
          queueTasks.run({
            instanceId,
            requestId: request.id,
            nowMs: now.getTime(),
            sourceIds: JSON.stringify(element.sourceIds),
          });
        }
        return { request, address };
      });
      return { records };
    },
    { behavior: 'immediate' },
  );
}

const requestById = preparedQuery((db) =>
  prepareTableRows(
    db,
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
  db: SqliteDb,
  instanceId: string,
  id: string,
): Promise<AvailabilityRequestRecord | undefined> {
  return requestById(db).get({ instanceId, id });
}

const requestsById = preparedQuery((db) =>
  prepareTableRows(
    db,
    recordColumns,
    recordQuery(db).where(
      sql`${availabilityRequests.id} in (select value from json_each(${sql.placeholder('ids')}))`,
    ),
  ),
);

/**
 * The requests with these ids, whatever their instance, in no particular order; ids not found are left
 * out. For the gathering worker's events (one read for a batch of changed requests), never for a caller's
 * input: it does not scope by instance.
 */
export async function findAvailabilityRequestsById(
  db: SqliteDb,
  ids: readonly string[],
): Promise<AvailabilityRequestRecord[]> {
  if (ids.length === 0) return [];
  return requestsById(db).all({ ids: JSON.stringify(ids) });
}

const requestCount = preparedQuery((db) =>
  prepareNumber(
    db,
    db
      .select({ n: sql<number>`count(*)` })
      .from(availabilityRequests)
      .where(
        and(
          eq(availabilityRequests.instanceId, sql.placeholder('instanceId')),
          eq(availabilityRequests.customerId, sql.placeholder('customerId')),
        ),
      ),
  ),
);

/**
 * Number of requests of an instance, read from its list total (`listTotal`, no scan); of one customer when
 * `customerId` is given, counted on the customer index.
 */
export async function countAvailabilityRequests(
  db: SqliteDb,
  instanceId: string,
  customerId?: string | null,
): Promise<number> {
  if (!customerId) return listTotal(db, instanceId, 'availability_requests');
  return requestCount(db).get({ instanceId, customerId }) ?? 0;
}

const requestsPage = preparedQuery((db) =>
  prepareTableRows(
    db,
    recordColumns,
    recordQuery(db)
      .where(eq(availabilityRequests.instanceId, sql.placeholder('instanceId')))
      .orderBy(desc(availabilityRequests.createdAt), desc(availabilityRequests.id))
      .limit(boundLimit(sql.placeholder('limit')))
      .offset(sql.placeholder('offset')),
  ),
);

/** A page of an instance's requests, newest first, ties broken by id (so pages never overlap). */
export async function listAvailabilityRequestsPage(
  db: SqliteDb,
  instanceId: string,
  page: { offset: number; limit: number },
): Promise<AvailabilityRequestRecord[]> {
  return requestsPage(db).all({ instanceId, limit: page.limit, offset: page.offset });
}

/** A position in the newest-first order of requests: creation time and id. */
export interface RequestPosition {
  createdAt: Date;
  id: string;
}

/**
 * Keyset slice of an instance's requests in newest-first order, for cursor connections.
 * `direction: 'older'` returns up to `limit` requests strictly after `from` in that order (older ones);
 * `'newer'` returns up to `limit` strictly before it, nearest first.
 */
export async function sliceAvailabilityRequests(
  db: SqliteDb,
  instanceId: string,
  slice: {
    from: RequestPosition | null;
    direction: 'older' | 'newer';
    limit: number;
    customerId?: string | null;
  },
): Promise<AvailabilityRequestRecord[]> {
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
}

type SliceVariant = `${'older' | 'newer'}:${'first' | 'after'}:${'customer' | 'instance'}`;

/** The keyset queries behind {@link sliceAvailabilityRequests}, one per direction, bound and scope. */
const requestSlice = preparedVariants((db, variant: SliceVariant) => {
  const [direction, start, scope] = variant.split(':');
  const t = availabilityRequests;
  const createdAt = sql.placeholder('fromCreatedAtMs');
  const id = sql.placeholder('fromId');
  const bound =
    start === 'first'
      ? undefined
      : direction === 'older'
        ? or(lt(t.createdAt, createdAt), and(eq(t.createdAt, createdAt), lt(t.id, id)))
        : or(gt(t.createdAt, createdAt), and(eq(t.createdAt, createdAt), gt(t.id, id)));
  const order = direction === 'older' ? [desc(t.createdAt), desc(t.id)] : [asc(t.createdAt), asc(t.id)];
  return prepareTableRows(
    db,
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
      .limit(boundLimit(sql.placeholder('limit'))),
  );
});

/**
 * The newest `limit` requests of each of several customers in one query (a window over the customer
 * index), for a customer list that shows each customer's latest requests without a query per customer.
 * Each record carries the `customerId` it belongs to.
 */
export async function listLatestRequestsOfCustomers(
  db: SqliteDb,
  instanceId: string,
  customerIds: readonly string[],
  limit: number,
): Promise<(AvailabilityRequestRecord & { customerId: string | null })[]> {
  if (customerIds.length === 0) return [];
  const ranked = db
    .select({
      id: availabilityRequests.id,
      rank: sql<number>`row_number() over (partition by ${availabilityRequests.customerId} order by ${availabilityRequests.createdAt} desc, ${availabilityRequests.id} desc)`.as(
        'rank',
      ),
    })
    .from(availabilityRequests)
    .where(
      and(
        eq(availabilityRequests.instanceId, instanceId),
        inArray(availabilityRequests.customerId, [...customerIds]),
      ),
    )
    .as('ranked');
  return db
    .select({ ...recordColumns, customerId: availabilityRequests.customerId })
    .from(ranked)
    .innerJoin(availabilityRequests, eq(availabilityRequests.id, ranked.id))
    .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId))
    .where(sql`${ranked.rank} <= ${limit}`)
    .orderBy(desc(availabilityRequests.createdAt), desc(availabilityRequests.id))
    .all();
}

/** Number of requests of each of several customers. */
export async function countRequestsOfCustomers(
  db: SqliteDb,
  instanceId: string,
  customerIds: readonly string[],
): Promise<Map<string, number>> {
  if (customerIds.length === 0) return new Map();
  const rows = db
    .select({ customerId: availabilityRequests.customerId, n: sql<number>`count(*)` })
    .from(availabilityRequests)
    .where(
      and(
        eq(availabilityRequests.instanceId, instanceId),
        inArray(availabilityRequests.customerId, [...customerIds]),
      ),
    )
    .groupBy(availabilityRequests.customerId)
    .all();
  return new Map(rows.map((row) => [row.customerId ?? '', row.n]));
}
