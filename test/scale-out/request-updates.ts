import { EventSource } from 'eventsource';
import type { Update } from '../helpers/updates-subscriber.js';

/*
 * A request's updates as the scale-out tests watch them from outside: the states a request of the demo
 * catalogue goes through when the worker runs one task at a time, and a Mercure subscriber of the list
 * records (the Mercure side of `graphqlWsSubscriber`). It imports no module of the service.
 */

/** The demo catalogue has 7 sources at 1016XA; progress in sevenths, two decimals. */
const sevenths = Array.from({ length: 8 }, (_, k) => Math.round((k * 10_000) / 7) / 100);
/**
 * Every state of one request at 1016XA, in order, as `availabilityRequestUpdated` sends them when the worker
 * runs one task at a time (GATHERING_CONCURRENCY=1): created (pending, 0 of 7 sources), claimed (in progress,
 * 0 of 7), then one state per source.
 */
export const everyState: Omit<Update, 'id'>[] = [
  { status: 'PENDING', networksProgressPercentage: 0 },
  { status: 'IN_PROGRESS', networksProgressPercentage: 0 },
  ...sevenths.slice(1, 7).map((networksProgressPercentage) => ({
    status: 'IN_PROGRESS' as const,
    networksProgressPercentage,
  })),
  { status: 'COMPLETED', networksProgressPercentage: 100 },
];

/** One Mercure event as an EventSource client received it: its id and the list record's fields. */
export interface MercureEvent {
  eventId: string;
  id: string;
  status: 'pending' | 'in_progress' | 'completed';
  progress: string;
}

/** A Mercure subscriber: what it received, whether its stream is open, and how to close. */
export interface MercureSubscriber {
  events: MercureEvent[];
  isOpen(): boolean;
  close(): void;
}

/**
 * An EventSource at `base` (a gateway or nginx) on the `<instanceId>/availability_request` topic, authorised
 * by `sseJwt` (the list's `sse_jwt`); with `lastEventId`, it asks for what followed that event
 * (`lastEventID`).
 */
export function mercureEventSource(
  base: string,
  instanceId: string,
  sseJwt: string,
  lastEventId?: string,
): MercureSubscriber {
  const url = new URL(`${base}/.well-known/mercure`);
  url.searchParams.append('topic', `${instanceId}/availability_request`);
  if (lastEventId !== undefined) url.searchParams.append('lastEventID', lastEventId);
  const events: MercureEvent[] = [];
  let open = false;
  const source = new EventSource(url, {
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${sseJwt}`);
      return fetch(input, { ...init, headers });
    },
  });
  source.addEventListener('open', () => {
    open = true;
  });
  source.addEventListener('message', (event) => {
    const record = JSON.parse(event.data);
    events.push({
      eventId: event.lastEventId,
      id: record.id,
      status: record.status,
      progress: record.networks_progress_percentage,
    });
  });
  return { events, isOpen: () => open, close: () => source.close() };
}
