import { createPubSub } from 'graphql-yoga';

/** The payload of an availability-request event: which request changed, in which instance. */
export interface AvailabilityRequestEvent {
  instanceId: string;
  availabilityRequestId: string;
  kind: 'created' | 'updated';
}

/**
 * The one event stream inside the service (DESIGN.md, "Architecture"): gathering and resolvers
 * publish, GraphQL subscriptions and the REST event stream read. Topics are scoped by instance.
 * A plain EventTarget with no listener cap, since Yoga's default warns past ten subscribers.
 */
export function createEventBus() {
  return createPubSub<{
    'availabilityRequest:changed': [instanceId: string, payload: AvailabilityRequestEvent];
  }>({ eventTarget: new EventTarget() });
}

/** The event bus type. */
export type EventBus = ReturnType<typeof createEventBus>;
