import { EventSource } from 'eventsource';
import type { Update, UpdatesSubscriber } from './updates-subscriber.js';
import { UPDATES } from './updates-subscriber.js';

/*
 * Event-stream subscribers for tests that watch from outside: a GraphQL-over-SSE subscriber of
 * `availabilityRequestUpdated` (`POST /graphql`, `Accept: text/event-stream`), the SSE side of
 * `graphqlWsSubscriber`, and a Mercure subscriber of any topics. It imports no module of the service.
 */

/**
 * Subscribes at `base` (a gateway or nginx) with `token` to every request of its instance and collects each
 * `next` event's update as it arrives, until {@link UpdatesSubscriber.close}. `connected()` is true once the
 * response's headers came and until the stream ends.
 */
export function graphqlSseSubscriber(base: string, token: string): UpdatesSubscriber<Update> {
  const updates: Update[] = [];
  const controller = new AbortController();
  let open = false;
  void (async () => {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'x-auth-token': token },
      body: JSON.stringify({ query: UPDATES, variables: { ids: null } }),
      signal: controller.signal,
    });
    if (response.status !== 200 || !response.body) return;
    open = true;
    const decoder = new TextDecoder();
    let text = '';
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const blocks = text.split('\n\n');
      text = blocks.pop() ?? '';
      for (const block of blocks) {
        const lines = block.split('\n');
        if (!lines.includes('event: next')) continue;
        const data = lines
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trim())
          .join('\n');
        updates.push(JSON.parse(data).data.availabilityRequestUpdated as Update);
      }
    }
  })()
    .catch(() => undefined)
    .finally(() => {
      open = false;
    });
  return { updates, connected: () => open, close: () => controller.abort() };
}

/** One Mercure event as an EventSource client received it: its id and its parsed `data`. */
export interface ReceivedEvent {
  id: string;
  // biome-ignore lint/suspicious/noExplicitAny: a REST document, compared whole with toEqual.
  data: any;
}

/** One response of the hub to a Mercure subscriber: its status and its `Last-Event-ID` header. */
export interface HubResponse {
  status: number;
  lastEventId: string | null;
}

/**
 * A Mercure subscriber on the `eventsource` package at `base` (a gateway or nginx): it subscribes to `topics`
 * with `sseJwt` as `Authorization: Bearer`, and with `lastEventId` sends that `Last-Event-ID` on its first
 * connection (the EventSource sends the last id it received on its reconnections by itself). `opened`
 * resolves on the first `open`, rejects on an error before it.
 */
export function mercureSubscriber(
  base: string,
  options: { topics: readonly string[]; sseJwt: string; lastEventId?: string },
) {
  const url = new URL(`${base}/.well-known/mercure`);
  for (const topic of options.topics) url.searchParams.append('topic', topic);
  const events: ReceivedEvent[] = [];
  const responses: HubResponse[] = [];
  const source = new EventSource(url, {
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${options.sseJwt}`);
      if (options.lastEventId !== undefined && !headers.has('last-event-id'))
        headers.set('last-event-id', options.lastEventId);
      const response = await fetch(input, { ...init, headers });
      responses.push({ status: response.status, lastEventId: response.headers.get('last-event-id') });
      return response;
    },
  });
  source.addEventListener('message', (event) => {
    events.push({ id: event.lastEventId, data: JSON.parse(event.data) });
  });
  const opened = new Promise<void>((resolve, reject) => {
    source.addEventListener('open', () => resolve(), { once: true });
    source.addEventListener('error', (error) => reject(error), { once: true });
  });
  // Handled here too, so a subscriber whose test never waits for it leaves no unhandled rejection.
  opened.catch(() => undefined);
  return { events, responses, opened, close: () => source.close() };
}
