import { desc } from 'drizzle-orm';
import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { OrderTerms } from '../../contract/order-terms.js';
import {
  availabilityRequestStatuses,
  coordinatesPrecisions,
  gatheringTaskStatuses,
  type StoredFilters,
} from '../../values.js';
import { sources } from './catalog.js';
import { idColumn, timestamps } from './columns.js';
import { customers, pricePlans, projects } from './customers.js';
import { instances, users } from './tenancy.js';

/** The address an availability request asks about, as normalised by the service. */
export const addresses = sqliteTable('addresses', {
  id: idColumn(),
  instanceId: text()
    .notNull()
    .references(() => instances.id),
  /** `fields` when given as address fields, `coordinates` when given as a coordinate pair. */
  inputKind: text({ enum: ['fields', 'coordinates'] }).notNull(),
  street: text().notNull(),
  city: text().notNull(),
  houseNumber: text().notNull(),
  houseNumberAddition: text().notNull(),
  /** Normalised: `1016 XA` is stored as `1016XA`. */
  postalCode: text().notNull(),
  countryCode: text().notNull(),
  continentCode: text().notNull(),
  /** WGS84 decimal degrees; null only when the place could not be located. */
  latitude: real(),
  longitude: real(),
  /**
   * `given` (coordinate input), `address` (e.g. PDOK/BAG), `postal_code_area` (its PC4 area's centre), `city`
   * (the city's centre); null when unknown.
   */
  coordinatesPrecision: text({ enum: coordinatesPrecisions }),
  ...timestamps,
});

/** One search for offers at one address; progress counts finished matching sources. */
export const availabilityRequests = sqliteTable(
  'availability_requests',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    addressId: text()
      .notNull()
      .references(() => addresses.id),
    createdByUserId: text().references(() => users.id),
    customerId: text().references(() => customers.id),
    projectId: text().references(() => projects.id),
    /** The price plan chosen at creation: the customer's (directly or via the project), else the default. */
    pricePlanId: text()
      .notNull()
      .references(() => pricePlans.id),
    filters: text({ mode: 'json' }).$type<StoredFilters>().notNull(),
    status: text({ enum: availabilityRequestStatuses }).notNull(),
    sourcesTotal: integer().notNull(),
    sourcesFinished: integer().notNull().default(0),
    ...timestamps,
  },
  (t) => [
    index('availability_requests_list_idx').on(t.instanceId, desc(t.createdAt), desc(t.id)),
    index('availability_requests_customer_idx').on(t.customerId, desc(t.createdAt), desc(t.id)),
  ],
);

/** A durable unit of gathering work: one availability request × one matching source. */
export const gatheringTasks = sqliteTable(
  'gathering_tasks',
  {
    /**
     * SQLite's rowid, assigned on insert. Tasks never leave the service, so they need no TypeID, and a
     * batch of 100 addresses writes 700 of them: an integer key saves the id, the primary-key index and
     * about a third of the create's SQL (`npm run bench`, rest-create-100).
     */
    id: integer().primaryKey(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    availabilityRequestId: text()
      .notNull()
      .references(() => availabilityRequests.id),
    sourceId: text()
      .notNull()
      .references(() => sources.id),
    status: text({ enum: gatheringTaskStatuses }).notNull(),
    attempts: integer().notNull().default(0),
    /**
     * Leases of the task that expired and were taken over (its worker stopped responding: killed, or cut off
     * from the store past the lease; issue 48): counted apart from `attempts`, so that an outage costs no
     * attempt, while a task that keeps killing its workers still ends (`LEASE_EXPIRED`).
     */
    leaseExpiries: integer().notNull().default(0),
    /** Earliest time (ms) the task may be claimed; pushed back after a failed attempt. */
    availableAt: integer({ mode: 'timestamp_ms' }).notNull(),
    leaseOwner: text(),
    leaseExpiresAt: integer({ mode: 'timestamp_ms' }),
    errorCode: text(),
    errorMessage: text(),
    finishedAt: integer({ mode: 'timestamp_ms' }),
    /**
     * The W3C trace context (`traceparent` and `tracestate` as a JSON object, `src/telemetry/trace-context.ts`) of the request
     * that created it, when tracing was on: its worker's span continues that trace (issue 37). Null
     * without tracing.
     */
    traceContext: text(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('gathering_tasks_request_source_unique').on(t.availabilityRequestId, t.sourceId),
    // Claims read queued tasks in (available_at, id) order; running ones (few) through the status prefix.
    index('gathering_tasks_claim_idx').on(t.status, t.availableAt, t.id),
  ],
);

/** An offer gathered for a request, with purchase and sale prices in minor currency units. */
export const availabilityRequestProducts = sqliteTable(
  'availability_request_products',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    availabilityRequestId: text()
      .notNull()
      .references(() => availabilityRequests.id),
    gatheringTaskId: integer()
      .notNull()
      .references(() => gatheringTasks.id),
    sourceId: text()
      .notNull()
      .references(() => sources.id),
    network: text().notNull(),
    technologyType: text().notNull(),
    connectionType: text().notNull(),
    downloadKbps: integer().notNull(),
    uploadKbps: integer().notNull(),
    contractTermMonths: integer().notNull(),
    purchaseMrcMinor: integer().notNull(),
    purchaseNrcMinor: integer().notNull(),
    mrcMinor: integer().notNull(),
    nrcMinor: integer().notNull(),
    currency: text().notNull(),
    /** How to order it from its seller (`mef-sonata` sources); null when it is ordered by hand. */
    orderTerms: text({ mode: 'json' }).$type<OrderTerms>(),
    createdAt: integer({ mode: 'timestamp_ms' }).notNull(),
  },
  (t) => [index('availability_request_products_request_idx').on(t.availabilityRequestId)],
);
