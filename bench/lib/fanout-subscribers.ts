import { randomUUID } from 'node:crypto';
import { get } from 'node:http';
import WebSocket from 'ws';

/*
 * Subscribers of the fan-out scenarios, run in the harness process or in a worker thread
 * (`fanout-pool.ts`). Each subscriber notes, per event id, when the event arrived, on the monotonic
 * clock of {@link monotonicMs} — the same in every thread, so a worker's receive time and the publisher's
 * send time are comparable.
 *
 * The clients are thin on purpose: a graphql-ws (`graphql-transport-ws`) client on `ws` and an SSE reader
 * on `node:http`, which take the event id out of the raw message without parsing the rest. On two cores
 * the receiving side competes with the server under test: measured here, the graphql-ws library client
 * (full parse and validation of every message) cost ~30 % more harness CPU per message, and at 5,000
 * subscribers × 10 events/s on one thread it fell behind the raw-ws server (28k of 50k msg/s). The wire
 * protocol is the same, so the server does exactly the work it does for any graphql-ws or SSE client.
 */

/** What to subscribe to and how many times. */
export interface SubscriberSpec {
  /**
   * `graphql-ws`: one WebSocket per subscriber, event id at `data.availabilityRequestUpdated.id` of each
   * `next`; `sse`: one event stream per subscriber, event id at `id` of each event's JSON `data`.
   */
  transport: 'graphql-ws' | 'sse';
  /** `ws://…/graphql`, or the full event-stream URL (with topic and authorisation). */
  url: string;
  /**
   * Several servers to spread the subscribers over (instances sharing events through Redis): the pool's
   * receiving thread `k` connects its share to `urls[k % urls.length]` instead of {@link url}.
   */
  urls?: readonly string[];
  /** graphql-ws: the subscription document. */
  query?: string;
  /** graphql-ws: sent as the `connection_init` payload `{authToken}`. */
  authToken?: string;
  /** graphql-ws: the subscription id (default: a UUID per subscriber; the raw-ws baseline needs `bench`). */
  subscriptionId?: string;
  /** Subscribers to open. */
  count: number;
  /** Subscribers opened at once; the next batch starts when this one is ready (no SYN flood). */
  batchSize: number;
}

/** What the subscribers saw. Times are milliseconds on the monotonic clock ({@link monotonicMs}). */
export interface Receipts {
  /** Event id → receive time of each subscriber that got it (at most once per subscriber). */
  byEvent: Map<string, number[]>;
  /** Events a subscriber got more than once (not recorded again). */
  duplicates: number;
  /** Connection failures: refused or failed to open, closed while subscribed, subscription errors. */
  errors: number;
}

/** Milliseconds (µs resolution) on CLOCK_MONOTONIC, which every thread of the process shares. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1000n) / 1000;
}

/** One opened subscriber: resolves `ready` once it can receive (ack'd, or stream open), or rejects. */
interface Subscriber {
  ready: Promise<void>;
  close(): void;
}

const openTimeoutMs = 30_000;

/** A set of subscribers in this thread. */
export class LocalSubscribers {
  private readonly subscribers: Subscriber[] = [];
  private readonly byEvent = new Map<string, number[]>();
  private duplicates = 0;
  private errors = 0;
  private closing = false;

  constructor(private readonly spec: SubscriberSpec) {}

  /** Opens `spec.count` subscribers in batches of `spec.batchSize`; resolves with how many are ready. */
  async open(): Promise<{ ready: number; failed: number }> {
    let ready = 0;
    let failed = 0;
    for (let start = 0; start < this.spec.count; start += this.spec.batchSize) {
      const batch = Array.from({ length: Math.min(this.spec.batchSize, this.spec.count - start) }, () =>
        this.openOne(),
      );
      this.subscribers.push(...batch);
      const outcomes = await Promise.allSettled(batch.map((subscriber) => withTimeout(subscriber.ready)));
      for (const outcome of outcomes) {
        if (outcome.status === 'fulfilled') ready += 1;
        else failed += 1;
      }
    }
    this.errors += failed;
    return { ready, failed };
  }

  /** For each id, how many subscribers have received it so far. */
  deliveredCounts(ids: readonly string[]): number[] {
    return ids.map((id) => this.byEvent.get(id)?.length ?? 0);
  }

  /** Everything received so far. */
  receipts(): Receipts {
    return { byEvent: this.byEvent, duplicates: this.duplicates, errors: this.errors };
  }

  /** Closes every subscriber; closes after this are not counted as errors. */
  close(): void {
    this.closing = true;
    for (const subscriber of this.subscribers) subscriber.close();
  }

  private openOne(): Subscriber {
    const seen = new Set<string>();
    const receive = (id: unknown) => {
      const at = monotonicMs();
      if (typeof id !== 'string') return;
      if (seen.has(id)) {
        this.duplicates += 1;
        return;
      }
      seen.add(id);
      const times = this.byEvent.get(id);
      if (times) times.push(at);
      else this.byEvent.set(id, [at]);
    };
    const failed = () => {
      if (!this.closing) this.errors += 1;
    };
    return this.spec.transport === 'sse'
      ? openEventStream(this.spec.url, receive, failed)
      : openGraphQLWs(this.spec, receive, failed);
  }
}

function withTimeout(ready: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('not ready in time')), openTimeoutMs);
  });
  return Promise.race([ready, timeout]).finally(() => clearTimeout(timer));
}

/** The start of a `next` payload when `id` is the first field selected (as in the scenario's document). */
const nextMarker = Buffer.from('"availabilityRequestUpdated":{"id":"');

/** A graphql-ws message the fast path did not recognise. */
interface ProtocolMessage {
  type?: string;
  payload?: { data?: { availabilityRequestUpdated?: { id?: unknown } } | null; errors?: unknown };
}

/**
 * One graphql-ws subscriber: `connection_init` with `{authToken}`, `subscribe` on `connection_ack` (then
 * ready), `pong` to `ping`. A `next` with errors, an `error`, a `complete` or a close while subscribed is
 * a failure.
 */
function openGraphQLWs(spec: SubscriberSpec, receive: (id: unknown) => void, failed: () => void): Subscriber {
  const socket = new WebSocket(spec.url, 'graphql-transport-ws', { perMessageDeflate: false });
  let acknowledged = false;
  let closing = false;
  const ready = new Promise<void>((resolve, reject) => {
    socket.on('open', () =>
      socket.send(
        JSON.stringify({
          type: 'connection_init',
          payload: spec.authToken ? { authToken: spec.authToken } : {},
        }),
      ),
    );
    socket.on('error', (error) => {
      if (!acknowledged) reject(error);
    });
    socket.on('close', (code) => {
      if (!acknowledged) reject(new Error(`closed (${code}) before connection_ack`));
      else if (!closing) failed();
    });
    socket.on('message', (data: Buffer) => {
      const at = data.indexOf(nextMarker);
      if (at >= 0) {
        const start = at + nextMarker.length;
        receive(data.toString('latin1', start, data.indexOf(0x22, start)));
        return;
      }
      let message: ProtocolMessage;
      try {
        message = JSON.parse(data.toString('utf8')) as ProtocolMessage;
      } catch {
        failed();
        return;
      }
      if (message.type === 'connection_ack') {
        acknowledged = true;
        const subscribe = {
          id: spec.subscriptionId ?? randomUUID(),
          type: 'subscribe',
          payload: { query: spec.query },
        };
        socket.send(JSON.stringify(subscribe));
        resolve();
      } else if (message.type === 'ping') socket.send('{"type":"pong"}');
      else if (message.type === 'next' && !message.payload?.errors)
        receive(message.payload?.data?.availabilityRequestUpdated?.id);
      else if (message.type !== 'pong') failed();
    });
  });
  // A rejection nobody awaits yet (its batch awaits it) must not crash the thread.
  ready.catch(() => {});
  return {
    ready,
    close: () => {
      closing = true;
      socket.terminate();
    },
  };
}

/** The start of an event's data when `id` is the document's first key (the gateway's and raw-ws's). */
const dataMarker = 'data: {"id":"';

/**
 * One event-stream subscriber (`GET` with `Accept: text/event-stream`, its own connection): ready on a
 * 200, then each event (`\n\n`-terminated) yields the `id` of its JSON data. A non-200 answer fails the
 * open; the stream ending while subscribed is a failure.
 */
function openEventStream(url: string, receive: (id: unknown) => void, failed: () => void): Subscriber {
  let closing = false;
  const request = get(url, { agent: false, headers: { accept: 'text/event-stream' } });
  const ready = new Promise<void>((resolve, reject) => {
    request.on('error', (error) => reject(error));
    request.on('response', (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`event stream answered ${response.statusCode}`));
        return;
      }
      resolve();
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const at = event.indexOf(dataMarker);
          if (at >= 0)
            receive(event.slice(at + dataMarker.length, event.indexOf('"', at + dataMarker.length)));
          else if (event.includes('\ndata: ') || event.startsWith('data: ')) {
            try {
              receive((JSON.parse(event.slice(event.indexOf('data: ') + 6)) as { id?: unknown }).id);
            } catch {
              failed();
            }
          }
        }
      });
      response.on('close', () => {
        if (!closing) failed();
      });
    });
  });
  ready.catch(() => {});
  return {
    ready,
    close: () => {
      closing = true;
      request.destroy();
    },
  };
}
