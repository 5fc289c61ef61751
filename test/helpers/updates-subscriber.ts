import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/*
 * A graphql-ws subscriber of `availabilityRequestUpdated`, for tests that watch requests' states from outside
 * (the shared-mode and scale-out tests). It imports no module of the service.
 */

/** One `availabilityRequestUpdated` event as these tests read it. */
export interface Update {
  id: string;
  status: 'PENDING' | 'IN_PROGRESS' | 'COMPLETED';
  networksProgressPercentage: number;
}

/** Every request's updates of the subscriber's instance (`ids: null`). */
export const UPDATES = `subscription ($ids: [ID!]) {
  availabilityRequestUpdated(ids: $ids) { id status networksProgressPercentage }
}`;

/** A graphql-ws subscriber: what it received, whether it is connected, and how to close. */
export interface UpdatesSubscriber<U = Update> {
  updates: U[];
  connected(): boolean;
  close(): unknown;
}

/**
 * A graphql-ws client at `base` (a gateway or nginx), signed in with `token` and subscribed with `query`
 * ({@link UPDATES} unless given; its variables are `{ ids: null }`) to every request of its instance; it does
 * not reconnect, so a dropped connection stays visible.
 */
export function graphqlWsSubscriber<U = Update>(
  base: string,
  token: string,
  query: string = UPDATES,
): UpdatesSubscriber<U> {
  const updates: U[] = [];
  let acknowledged = false;
  const client: Client = createClient({
    url: `${base.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authToken: token },
    retryAttempts: 0,
    on: {
      connected: () => {
        acknowledged = true;
      },
    },
  });
  client.subscribe<{ availabilityRequestUpdated: U }>(
    { query, variables: { ids: null } },
    {
      next: (result) => {
        if (result.data) updates.push(result.data.availabilityRequestUpdated);
      },
      error: () => {},
      complete: () => {},
    },
  );
  return { updates, connected: () => acknowledged, close: () => client.dispose() };
}
