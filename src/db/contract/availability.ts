/**
 * The store's contract for availability requests: requests with their addresses, the list and its pages,
 * the products gathered for them and each source's outcome. Both dialects implement
 * {@link AvailabilityOperations}; the rows below are what they return, whichever database holds them.
 */

import type {
  AvailabilityRequestStatus,
  GatheringTaskStatus,
  SourceType,
  StoredCoordinatesPrecision,
  StoredFilters,
} from '../values.js';
import type { OfferTerms } from './catalog.js';
import type { OrderTerms } from './order-terms.js';

/** The address an availability request asks about, as normalised (and geocoded) by the service. */
export interface AddressRow {
  id: string;
  instanceId: string;
  /** `fields` when given as address fields, `coordinates` when given as a coordinate pair. */
  inputKind: 'fields' | 'coordinates';
  street: string;
  city: string;
  houseNumber: string;
  houseNumberAddition: string;
  /** Normalised: `1016 XA` is kept as `1016XA`. */
  postalCode: string;
  /** ISO 3166 alpha-2. */
  countryCode: string;
  continentCode: string;
  /** WGS84 decimal degrees; null only when the place could not be located. */
  latitude: number | null;
  longitude: number | null;
  /** How exact `latitude`/`longitude` are; null when the place is unknown. */
  coordinatesPrecision: StoredCoordinatesPrecision | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One search for offers at one address; its progress counts the matching sources that finished. */
export interface AvailabilityRequestRow {
  id: string;
  instanceId: string;
  addressId: string;
  createdByUserId: string | null;
  customerId: string | null;
  projectId: string | null;
  /** The price plan chosen at creation: the customer's (directly or via the project), else the default. */
  pricePlanId: string;
  filters: StoredFilters;
  status: AvailabilityRequestStatus;
  /** Matching sources at creation: one gathering task each. */
  sourcesTotal: number;
  /** Of those, the ones whose task ended (succeeded, or failed for good). */
  sourcesFinished: number;
  createdAt: Date;
  updatedAt: Date;
}

/** An offer gathered for a request: its terms, and its sale prices in integer minor units of `currency`. */
export interface ProductRow extends OfferTerms {
  id: string;
  instanceId: string;
  availabilityRequestId: string;
  /** The gathering task (an integer id, never shown outside the service) that found it. */
  gatheringTaskId: number;
  sourceId: string;
  network: string;
  /** The sale prices: the purchase prices with the markup of the request's price plan. */
  mrcMinor: number;
  nrcMinor: number;
  /** How to order it from its seller (`mef-sonata` sources); null when it is ordered by hand. */
  orderTerms: OrderTerms | null;
  createdAt: Date;
}

/**
 * What the API shows of a request (REST documents, GraphQL fields, events, cursors); a whole
 * {@link AvailabilityRequestRow} is one too. Reads of records fetch only these columns.
 */
export type ShownRequest = Pick<
  AvailabilityRequestRow,
  'id' | 'filters' | 'status' | 'sourcesTotal' | 'sourcesFinished' | 'createdAt' | 'updatedAt'
>;

/** What the API shows of an address; a whole {@link AddressRow} is one too. */
export type ShownAddress = Pick<
  AddressRow,
  | 'id'
  | 'street'
  | 'city'
  | 'houseNumber'
  | 'houseNumberAddition'
  | 'postalCode'
  | 'countryCode'
  | 'continentCode'
  | 'latitude'
  | 'longitude'
  | 'coordinatesPrecision'
>;

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
  /** The matching sources, in the order their tasks are queued; none creates the request `completed`. */
  sourceIds: string[];
}

/** A customer's monthly cap to enforce while creating a batch. */
export interface MonthlyLimitCheck {
  customerId: string;
  /** Requests the customer may create per calendar month. */
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

/** A batch of requests to create ({@link AvailabilityOperations.insertAvailabilityRequests}). */
export interface AvailabilityRequestBatch {
  instanceId: string;
  /** The user creating them, null for an application's token. */
  userId: string | null;
  /** Creation time of every row of the batch. */
  now: Date;
  requests: NewAvailabilityRequest[];
  /** Monthly caps to check before writing; none skips the check. */
  limits?: MonthlyLimitCheck[];
  /** Start of the month the limits count from (requests created at or after it); `now` when absent. */
  monthStart?: Date;
  /**
   * The creating request's W3C trace context (`traceparent` and `tracestate` as a JSON object, `src/telemetry/trace-context.ts`),
   * kept on each of the batch's gathering tasks ({@link ClaimedTask.traceContext}); absent or null without
   * tracing.
   */
  traceContext?: string | null;
}

/** A position in the newest-first order of requests: creation time and id. */
export interface RequestPosition {
  createdAt: Date;
  id: string;
}

/** A keyset slice of the newest-first order ({@link AvailabilityOperations.sliceAvailabilityRequests}). */
export interface RequestSlice {
  /** The cursor, excluded; null starts at the newest (`older`) or the oldest (`newer`). */
  from: RequestPosition | null;
  direction: 'older' | 'newer';
  limit: number;
  /** Only this customer's requests when given. */
  customerId?: string | null;
}

/** Outcome of one source for one request, for the single-request view. */
export interface SourceOutcome {
  sourceId: string;
  sourceName: string;
  sourceType: SourceType;
  network: string;
  status: GatheringTaskStatus;
  /** Attempts started so far (a released lease gives its attempt back). */
  attempts: number;
  /** Why the task failed, or what a succeeded source left out; null otherwise. */
  errorCode: string | null;
  errorMessage: string | null;
  /** Products the task stored. */
  productCount: number;
}

/**
 * Availability requests. Reads are scoped to one instance (another instance's id is "not found") unless
 * said otherwise; text sorts by bytes (code points) and ids break every tie, so both stores return the same
 * rows in the same order. A read never locks.
 */
export interface AvailabilityOperations {
  /**
   * Creates a batch of requests with their addresses and one `queued` gathering task per matching source
   * (due at `now`, in the given source order), atomically: every element is written, or none. A request
   * with no matching source is created `completed`, any other `pending` (DESIGN.md, "Status").
   *
   * With `limits`, each customer's requests created since `monthStart` are counted inside the same write
   * transaction as the inserts, serialised with any other batch for that customer, so concurrent batches
   * cannot overshoot a cap together.
   *
   * @returns the created records (every column) in the order of `requests`, or the first exceeded limit,
   *   in the order of `limits` (nothing written).
   * @throws the database's foreign-key error for an unknown customer, project or price plan.
   */
  insertAvailabilityRequests: (
    batch: AvailabilityRequestBatch,
  ) => Promise<{ records: StoredAvailabilityRequestRecord[] } | { exceeded: MonthlyLimitExceeded }>;
  /** One request of an instance by id; undefined when there is none (also for another instance's id). */
  findAvailabilityRequest: (instanceId: string, id: string) => Promise<AvailabilityRequestRecord | undefined>;
  /**
   * The requests with these ids, whatever their instance, in no particular order; ids not found are left
   * out. For the gathering worker's events (one read for a batch of changed requests), never for a
   * caller's input: it does not scope by instance.
   */
  findAvailabilityRequestsById: (ids: readonly string[]) => Promise<AvailabilityRequestRecord[]>;
  /**
   * Number of requests of an instance, read from its kept list total (no count of the rows); of one
   * customer when `customerId` is given, counted on the customer index.
   */
  countAvailabilityRequests: (instanceId: string, customerId?: string | null) => Promise<number>;
  /** A page of an instance's requests, newest first, ties by id descending (so pages never overlap). */
  listAvailabilityRequestsPage: (
    instanceId: string,
    page: { offset: number; limit: number },
  ) => Promise<AvailabilityRequestRecord[]>;
  /**
   * A keyset slice of an instance's (or one customer's) requests in newest-first order, for cursor
   * connections: `direction: 'older'` returns up to `limit` requests strictly after `from` in that order
   * (older ones), newest first; `'newer'` up to `limit` strictly before it, nearest first (oldest first).
   */
  sliceAvailabilityRequests: (
    instanceId: string,
    slice: RequestSlice,
  ) => Promise<AvailabilityRequestRecord[]>;
  /**
   * The newest `limit` requests of each of several customers of an instance, in one query, for a customer
   * list showing each customer's latest requests: all of them newest first, each with the `customerId` it
   * belongs to. None for no customers.
   */
  listLatestRequestsOfCustomers: (
    instanceId: string,
    customerIds: readonly string[],
    limit: number,
  ) => Promise<(AvailabilityRequestRecord & { customerId: string | null })[]>;
  /**
   * Number of requests of each of several customers of an instance, by customer id (in id order); a
   * customer without requests is absent from the map.
   */
  countRequestsOfCustomers: (
    instanceId: string,
    customerIds: readonly string[],
  ) => Promise<Map<string, number>>;
  /**
   * Each source's outcome for several requests of an instance, in one query (batch loading): by network,
   * then source name, ties by request id and source id.
   */
  listSourceOutcomes: (
    instanceId: string,
    requestIds: readonly string[],
  ) => Promise<(SourceOutcome & { availabilityRequestId: string })[]>;
  /**
   * The products of several requests of an instance, in one query (batch loading), in the single-request
   * order: network, technology, connection type, download, upload, contract term, id.
   */
  listProductsOfRequests: (instanceId: string, requestIds: readonly string[]) => Promise<ProductRow[]>;
}
