import type { Update, UpdatesSubscriber } from './updates-subscriber.js';
import { UPDATES } from './updates-subscriber.js';

/*
 * A GraphQL-over-SSE subscriber of `availabilityRequestUpdated` (`POST /graphql`, `Accept: text/event-stream`),
 * the SSE side of `graphqlWsSubscriber`, for tests that watch requests' states from outside. It imports no
 * module of the service.
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
