import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Services } from '../context.js';
import type { OutboxEvent, OutboxEventOf } from '../db/rows.js';
import { EventRelay } from '../event-relay.js';
import { orderEventType, type PublishedEvent } from '../events.js';
import { requestEventsOf } from '../resolvers/availability-events.js';
import { inPublishSpans } from '../telemetry/event-spans.js';

/**
 * The events to publish for a relay's batch, in its order: requests' records (`requestEventsOf`) and orders'
 * records as their events stored them; null where there is nothing left to tell.
 */
async function publishedEventsOf(
  services: Services,
  events: readonly OutboxEvent[],
): Promise<(PublishedEvent | null)[]> {
  const requestEvents = events.filter(
    (event): event is OutboxEventOf<'availabilityRequest:changed'> =>
      event.topic === 'availabilityRequest:changed',
  );
  const requests = requestEvents.length === 0 ? [] : await requestEventsOf(services, requestEvents);
  let next = 0;
  return events.map((event) => {
    if (event.topic === 'availabilityRequest:changed') return requests[next++] ?? null;
    const { kind, record } = event.payload;
    return { type: orderEventType(event.instanceId), detail: { instanceId: event.instanceId, kind, record } };
  });
}

/**
 * The outbox relay of an instance, not started (issue 34): it publishes the store's events on the event bus
 * (`services.events.target.publishAll`: through Redis in the shared mode, in process otherwise), each as its
 * request's record at that event's commit. It relays at once when this process writes events
 * (`services.events.written()`); with Redis, a process that does not hold the lease tells the one that
 * does, on the channel `<prefix>outbox`. Its lease and poll come from `EVENT_RELAY_LEASE_SECONDS` and
 * `EVENT_RELAY_POLL_MS`. With tracing, each event is published in its writer's trace (`inPublishSpans`).
 *
 * @returns the relay; `start()` it, and `stop()` it before Redis and the database close.
 */
export function createEventRelay(services: Services): EventRelay {
  const { config } = services;
  const wakeUps =
    services.redis?.broadcast<void>(
      'outbox',
      { encode: () => 'events-written', decode: () => undefined },
      'event relay wake-up',
    ) ?? null;
  const relay = new EventRelay({
    db: services.db,
    owner: `${hostname()}:${process.pid}:${randomUUID()}`,
    clock: services.clock,
    logger: services.logger.child({ component: 'event-relay' }),
    leaseMs: config.EVENT_RELAY_LEASE_SECONDS * 1000,
    pollMs: config.EVENT_RELAY_POLL_MS,
    publish: async (events) => {
      const published = await publishedEventsOf(services, events);
      const { target } = services.events;
      // Each event in the trace of its writer (issue 37): a `publish` span, whose context the message carries.
      const sent = (index: number) => published[index] !== null;
      return inPublishSpans(target.messagingSystem, events, sent, async (carriers) => {
        const out: PublishedEvent[] = [];
        for (const [index, event] of published.entries()) {
          const trace = carriers[index];
          if (event) out.push(trace ? { ...event, trace } : event);
        }
        const results = await target.publishAll(out);
        // An event whose request is gone has nothing to publish: done.
        let next = 0;
        return published.map((event) => (event === null ? true : (results[next++] ?? false)));
      });
    },
    ...(wakeUps ? { wakeLeader: () => wakeUps.publish() } : {}),
  });
  services.events.onWritten(() => relay.nudge());
  wakeUps?.listen(() => relay.wakeUp());
  return relay;
}
