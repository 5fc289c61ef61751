import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

/*
 * Clients that hold a session open with an auth token — a graphql-ws connection and a GraphQL-over-SSE
 * stream, each subscribed to `availabilityRequestUpdated` — and report how it ended, for the revocation
 * tests. They import no module of the service.
 */

const UPDATES = 'subscription { availabilityRequestUpdated { id status } }';

/** A graphql-ws connection: whether it was acknowledged, and the close code it ended with (null while open). */
export interface WsSession {
  acknowledged(): boolean;
  closeCode(): number | null;
  close(): void;
}

/**
 * A graphql-ws client (the `graphql-ws` package, as front-ends use it) at `base`, signed in with `token` in
 * `connection_init`, subscribed to every request of its instance; it never reconnects, so its close code
 * stays visible. Resolves once the server acknowledged the connection.
 *
 * @throws Error when the connection closes before it is acknowledged.
 */
export async function openWsSession(base: string, token: string): Promise<WsSession> {
  let acknowledged = false;
  let code: number | null = null;
  let settle: { resolve: () => void; reject: (error: Error) => void } | null = null;
  const ready = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const client = createClient({
    url: `${base.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authToken: token },
    retryAttempts: 0,
    lazy: false,
    // The close is what the tests read (below); graphql-ws would also print it.
    onNonLazyError: () => {},
    on: {
      connected: () => {
        acknowledged = true;
        settle?.resolve();
      },
      closed: (event) => {
        code = (event as { code?: number }).code ?? -1;
        settle?.reject(new Error(`graphql-ws closed with ${code} before it was acknowledged`));
      },
    },
  });
  client.subscribe({ query: UPDATES }, { next: () => {}, error: () => {}, complete: () => {} });
  await ready;
  return { acknowledged: () => acknowledged, closeCode: () => code, close: () => void client.dispose() };
}

/** A GraphQL-over-SSE stream: its HTTP status, whether it ended, and whether it ended with `complete`. */
export interface SseSession {
  status: number;
  ended(): boolean;
  completed(): boolean;
  close(): void;
}

/**
 * A GraphQL subscription over SSE (`POST /graphql`, `Accept: text/event-stream`, Yoga's distinct
 * connections mode) at `base` with `token` in `X-Auth-Token`. Resolves once the response's headers came.
 */
export async function openSseSession(base: string, token: string): Promise<SseSession> {
  const controller = new AbortController();
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { accept: 'text/event-stream', 'content-type': 'application/json', 'x-auth-token': token },
    body: JSON.stringify({ query: UPDATES }),
    signal: controller.signal,
  });
  let ended = false;
  let text = '';
  if (response.body) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      ended = true;
    })().catch(() => undefined);
  } else ended = true;
  return {
    status: response.status,
    ended: () => ended,
    completed: () => /^event: complete$/m.test(text),
    close: () => controller.abort(),
  };
}
