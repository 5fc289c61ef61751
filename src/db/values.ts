/**
 * The enumerations and stored JSON shapes both stores' tables share (`src/db/sqlite/schema`,
 * `src/db/postgres/schema`), and that the rest of the code names.
 */

/** Statuses of an availability request (DESIGN.md, "Status"). */
export const availabilityRequestStatuses = ['pending', 'in_progress', 'completed'] as const;
export type AvailabilityRequestStatus = (typeof availabilityRequestStatuses)[number];

/**
 * How exact an address record's coordinates are (`src/geo`'s `CoordinatesPrecision`): the point the caller
 * gave, the address's own (PDOK/BAG), its postal code area's centre (Dutch PC4), its city's centre. Null
 * in the store when the place is unknown.
 */
export const coordinatesPrecisions = ['given', 'address', 'postal_code_area', 'city'] as const;
export type StoredCoordinatesPrecision = (typeof coordinatesPrecisions)[number];

/** The filters of a request as stored; every array is empty when that filter was not given. */
export interface StoredFilters {
  bandwidths: { download: number; upload: number }[];
  networks: string[];
  contractTerms: number[];
  connectionTypes: string[];
  technologyTypes: string[];
}

/** Task statuses: queued → running → succeeded | failed (a failed attempt may go back to queued). */
export const gatheringTaskStatuses = ['queued', 'running', 'succeeded', 'failed'] as const;
export type GatheringTaskStatus = (typeof gatheringTaskStatuses)[number];

/**
 * Source adapter kinds: `catalog` answers from the instance's catalogue tables, `http` calls a supplier's
 * availability API (docs/supplier-contract.md).
 */
export const sourceTypes = ['catalog', 'http', 'mef-sonata'] as const;
export type SourceType = (typeof sourceTypes)[number];

/**
 * The non-secret settings of a source whose type takes some (`mef-sonata`: everything of its settings but
 * the base URL, kept in `endpoint_url`, and the client secret, kept in `credentials`; docs/mef-sonata.md).
 * The store keeps them as given; the source's adapter validates them where they are written and read.
 */
export type StoredSourceSettings = { readonly [key: string]: unknown };

/**
 * A `mef-sonata` source's hub listeners at its seller (the adapter's `SonataHubListeners`): what they were
 * registered for, and the `EventSubscription.id` per API, null when the seller sends no notifications.
 */
export interface StoredHubListeners {
  fingerprint: string;
  poq: string | null;
  quote: string | null;
  /** The order hub's listener (MEF 123), once ordering registered one; absent before. */
  order?: string | null;
  /** The `query` the order listener was registered with (its event types). */
  orderQuery?: string;
  /** False while only the order listener is registered (the POQ and Quote ones come with the first query). */
  gatheringListeners?: false;
}

/** Kinds of quote lines, by the catalogue their product comes from. */
export const quoteLineKinds = [
  'availability_request_product',
  'instance_product',
  'mandatory_product',
] as const;
export type QuoteLineKind = (typeof quoteLineKinds)[number];

/**
 * The lists whose unfiltered totals are kept in `list_totals` per instance (issue 16, item 8): a list page
 * reads its `total_items` / `totalCount` from one row instead of counting the instance's rows.
 */
export const countedLists = ['availability_requests', 'customers', 'quotes'] as const;
export type CountedList = (typeof countedLists)[number];

/**
 * The topics of the events the store writes with the changes they report (the transactional outbox,
 * `outbox_events`): each names what changed; the relay publishes them on the event bus under that topic.
 */
export const eventTopics = ['availabilityRequest:changed', 'order:changed'] as const;
export type EventTopic = (typeof eventTopics)[number];

/**
 * What an `availabilityRequest:changed` event stores: whether the request was created or updated, and its
 * progress as the same transaction committed it. The rest of what a subscriber is shown of a request never
 * changes after it is created, so this and the request's row are its state at that commit.
 */
export interface StoredRequestChange {
  kind: 'created' | 'updated';
  status: AvailabilityRequestStatus;
  sourcesFinished: number;
  /** The request's `updatedAt`, in milliseconds since the epoch (UTC). */
  updatedAtMs: number;
}

/**
 * Statuses of an order (issue "Orders, part 1", item 6): `pending` until any line is submitted, `submitted`,
 * `in_progress` while any line is, then one of the four final ones once every line has ended.
 */
export const orderStatuses = [
  'pending',
  'submitted',
  'in_progress',
  'completed',
  'partially_completed',
  'failed',
  'cancelled',
] as const;
export type OrderStatus = (typeof orderStatuses)[number];
/** The order statuses no line moves out of again. */
export const finalOrderStatuses: readonly OrderStatus[] = [
  'completed',
  'partially_completed',
  'failed',
  'cancelled',
];

/**
 * Statuses of an order line: `pending` (not sent yet), `submitted` (the seller acknowledged it),
 * `in_progress` (in progress or held), and the final `completed`, `failed` (failed or rejected), `cancelled`.
 */
export const orderLineStatuses = [
  'pending',
  'submitted',
  'in_progress',
  'completed',
  'failed',
  'cancelled',
] as const;
export type OrderLineStatus = (typeof orderLineStatuses)[number];
/** The line statuses that are final. */
export const finalOrderLineStatuses: readonly OrderLineStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * Who fulfils an order line: `supplier`, ordered from its seller by the gateway (a `mef-sonata` source's
 * product), or `manual`, ordered by the reseller's own means and moved through its statuses by an admin.
 */
/**
 * Where a line's cancellation stands (issue "Orders, part 2", item 1): `requested` (asked, not sent yet),
 * `acknowledged`, `assessing_charge` (the seller asks the buyer to accept a cancellation charge), `done`
 * (the line is `cancelled`), `declined` (MEF `done.declined`: the line goes on) or `rejected` (the seller
 * refused the request itself). MEF 123 `MEFChargeableTaskStateType`, in this API's spelling.
 */
export const lineCancellationStates = [
  'requested',
  'acknowledged',
  'assessing_charge',
  'done',
  'declined',
  'rejected',
] as const;
export type LineCancellationState = (typeof lineCancellationStates)[number];

/**
 * How an order line is fulfilled: `supplier` (ordered from its seller by the order worker), `manual` (moved by
 * hand), `none` (nothing to deliver: completed when the order is placed, never waited for; issue 49).
 */
export const orderLineFulfilments = ['supplier', 'manual', 'none'] as const;
export type OrderLineFulfilment = (typeof orderLineFulfilments)[number];

/**
 * How an instance product's order line is fulfilled (issue 49): `manual` (the default: someone marks it
 * completed or failed) or `none` (a fee or an entitlement: the line is completed when the order is placed).
 */
export const instanceProductFulfilments = ['manual', 'none'] as const;
export type InstanceProductFulfilment = (typeof instanceProductFulfilments)[number];

/**
 * Where a supplier order (one seller order per source of an order) stands in the gateway's task: `placing`
 * (not known at the seller yet), `following` (placed, its progress read), `ended` (every item ended).
 */
export const supplierOrderStatuses = ['placing', 'following', 'ended'] as const;
export type SupplierOrderStatus = (typeof supplierOrderStatuses)[number];
