/**
 * What the Mercure hub serves per topic kind (`<instance_id>/<kind>`, see `eventStreamTopicKinds`): the event
 * bus type it listens to and replays from, and the REST document each event carries as `data` — the same
 * JSON the kind's REST reads answer. One table, so the hub has one code path for every kind.
 */
import { reviveOrderRecord } from '../db/shared/orders.js';
import {
  type AvailabilityRequestEvent,
  type EventBus,
  type OrderEvent,
  orderEventType,
  requestEventType,
} from '../events.js';
import type { EventStreamTopicKind } from '../resolvers/event-stream-token.js';
import { availabilityRequestDocument } from './documents.js';
import { orderDocument } from './order-documents.js';

/** An event of the bus as the hub reads it: only its history id is common to every kind. */
export interface FeedEvent {
  /** Its id in the event bus's history; absent on one published around the history. */
  eventId?: string;
}

/** How the hub serves one topic kind. */
export interface MercureFeed {
  /** The event bus type of the kind's events of `instanceId`: what its history is kept under. */
  busType(instanceId: string): string;
  /** Listens to the kind's events of `instanceId` on the bus, from now on, until `return()`. */
  listen(events: EventBus, instanceId: string): AsyncIterator<FeedEvent> & AsyncIterable<FeedEvent>;
  /**
   * The `data` of one event: its record as a REST document. `detail` is the payload as published, or as
   * read back from Redis (a live event or a history entry), whose dates the event serializer revives only
   * where their keys end in `At`.
   */
  document(detail: unknown): unknown;
}

/** The feeds by topic kind (issue 35 added `order`). */
export const mercureFeeds: Record<EventStreamTopicKind, MercureFeed> = {
  availability_request: {
    busType: requestEventType,
    listen: (events, instanceId) => events.subscribe('availabilityRequest:changed', instanceId),
    // One list record of `GET /availability-requests`: its dates all end in `At`.
    document: (detail) => availabilityRequestDocument((detail as AvailabilityRequestEvent).record),
  },
  order: {
    busType: orderEventType,
    listen: (events, instanceId) => events.subscribe('order:changed', instanceId),
    // The `data` of `GET /orders/{id}`; its completion dates come through Redis as strings.
    document: (detail) => orderDocument(reviveOrderRecord((detail as OrderEvent).record)),
  },
};
