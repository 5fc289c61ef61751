import { setTimeout as sleep } from 'node:timers/promises';
import { startSubscriberPool } from './fanout-pool.js';
import { monotonicMs, type Receipts, type SubscriberSpec } from './fanout-subscribers.js';
import type { ServerProcess } from './process.js';
import { watchRss } from './process.js';
import { LatencyRecorder, median } from './stats.js';

/** One server under fan-out load: where subscribers connect and how one event is published. */
export interface FanoutTarget {
  server: ServerProcess;
  /** Subscribers to open (count and batch size come from {@link FanoutOptions}). */
  subscriber: Omit<SubscriberSpec, 'count' | 'batchSize'>;
  /**
   * Publishes event number `sequence` (0-based; warm-up events are negative) and resolves with its id
   * as subscribers will see it. The caller notes the publish time just before calling.
   */
  publish(sequence: number): Promise<string>;
}

/** How a fan-out round runs. */
export interface FanoutOptions {
  subscribers: number;
  /** Measured events. */
  events: number;
  /** Milliseconds between two publishes (issue 8: one event every 100 ms). */
  intervalMs: number;
  /** Worker threads receiving (0 = the harness's main thread). */
  threads: number;
  /** Subscribers opened at once. */
  batchSize: number;
  /** Delivery ends when nothing new arrived for this long (ms) after the last publish. */
  drainIdleMs: number;
  log(message: string): void;
}

/** Publish→receive figures of one round, in milliseconds unless named otherwise. */
export interface FanoutSummary {
  latency: LatencyRecorder;
  /** Deliveries of measured events (one per subscriber and event at most). */
  delivered: number;
  /** `subscribers × events` minus {@link delivered}. */
  lost: number;
  /** Delivered messages per second, from the first publish to the last receipt. */
  throughput: number;
}

/** What one round measured. */
export interface FanoutResult extends FanoutSummary {
  ready: number;
  /** Messages lost (of published events), failed subscribers, failed publishes, duplicate deliveries. */
  errors: { lost: number; connections: number; publishes: number; duplicates: number };
  /** Resident set size of the server, in MiB: before subscribing, with every subscriber ready, peak. */
  rssBeforeMiB: number | null;
  rssConnectedMiB: number | null;
  peakRssMiB: number | null;
  /** Median round trip of one publish (the gateway's includes creating the request). */
  publishP50Ms: number | null;
  /** Time to open every subscriber, in ms. */
  openMs: number;
}

/**
 * Latencies and losses of the measured events: for each `sent` event (id → publish time), every
 * subscriber's receive time minus the publish time. Receipts of other ids (warm-up) are ignored; a
 * receive time before the publish time (clock noise) counts as 0. Times are in ms on one clock.
 */
export function summariseFanout(
  sent: ReadonlyMap<string, number>,
  receipts: Pick<Receipts, 'byEvent'>,
  subscribers: number,
): FanoutSummary {
  const latency = new LatencyRecorder();
  let delivered = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const [id, publishedAt] of sent) {
    first = Math.min(first, publishedAt);
    for (const receivedAt of receipts.byEvent.get(id) ?? []) {
      latency.record(Math.max(0, receivedAt - publishedAt));
      delivered += 1;
      last = Math.max(last, receivedAt);
    }
  }
  const seconds = (last - first) / 1000;
  return {
    latency,
    delivered,
    lost: subscribers * sent.size - delivered,
    throughput: delivered > 0 && seconds > 0 ? delivered / seconds : 0,
  };
}

/**
 * One fan-out round against one server: opens the subscribers, publishes warm-up events until every
 * subscriber got one (so subscriptions are live server-side), then publishes `events` events on a fixed
 * schedule (open loop: a slow publish does not delay the next one), waits for delivery, and closes
 * the subscribers. The server is left running.
 */
export async function measureFanout(target: FanoutTarget, options: FanoutOptions): Promise<FanoutResult> {
  const { server } = target;
  const { log } = options;
  const pool = startSubscriberPool(
    { ...target.subscriber, count: options.subscribers, batchSize: options.batchSize },
    options.threads,
  );
  const rssBeforeMiB = server.rssMiB();
  const rss = watchRss(server.pid);
  const publishErrors = { count: 0 };
  try {
    const openedAt = monotonicMs();
    const { ready, failed } = await pool.open();
    const openMs = monotonicMs() - openedAt;
    log(`  ${ready} subscribers ready (${failed} failed) in ${(openMs / 1000).toFixed(1)} s`);
    await warmUp(target, pool, ready, log);
    const rssConnectedMiB = server.rssMiB();

    const sent = new Map<string, number>();
    const publishMs: number[] = [];
    const start = monotonicMs();
    const publishes: Promise<void>[] = [];
    for (let sequence = 0; sequence < options.events; sequence += 1) {
      const wait = start + sequence * options.intervalMs - monotonicMs();
      if (wait > 0) await sleep(wait);
      const publishedAt = monotonicMs();
      publishes.push(
        target.publish(sequence).then(
          (id) => {
            sent.set(id, publishedAt);
            publishMs.push(monotonicMs() - publishedAt);
          },
          () => {
            publishErrors.count += 1;
          },
        ),
      );
    }
    await Promise.all(publishes);
    await drain(pool, [...sent.keys()], ready, options.drainIdleMs);

    const receipts = await pool.receipts();
    const summary = summariseFanout(sent, receipts, options.subscribers);
    return {
      ...summary,
      ready,
      errors: {
        lost: summary.lost,
        connections: receipts.errors,
        publishes: publishErrors.count,
        duplicates: receipts.duplicates,
      },
      rssBeforeMiB,
      rssConnectedMiB,
      peakRssMiB: rss.stop(),
      publishP50Ms: median(publishMs),
      openMs,
    };
  } finally {
    rss.stop();
    await pool.close();
  }
}

/** Publishes warm-up events until one reached every ready subscriber (at most 3 tries of 20 s). */
async function warmUp(
  target: FanoutTarget,
  pool: ReturnType<typeof startSubscriberPool>,
  ready: number,
  log: (message: string) => void,
): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const id = await target.publish(-attempt);
    const deadline = monotonicMs() + 20_000;
    let got = 0;
    while (monotonicMs() < deadline) {
      got = (await pool.deliveredCounts([id]))[0] ?? 0;
      if (got >= ready) return;
      await sleep(50);
    }
    log(`  warm-up ${attempt}: ${got} of ${ready} subscribers got the event`);
  }
}

/** Waits until every ready subscriber got every id, or nothing new arrived for `idleMs` (cap 3 min). */
async function drain(
  pool: ReturnType<typeof startSubscriberPool>,
  ids: readonly string[],
  ready: number,
  idleMs: number,
): Promise<void> {
  const expected = ready * ids.length;
  const cap = monotonicMs() + 180_000;
  let seen = -1;
  let changedAt = monotonicMs();
  while (monotonicMs() < cap) {
    const total = (await pool.deliveredCounts(ids)).reduce((sum, count) => sum + count, 0);
    if (total >= expected) return;
    if (total !== seen) {
      seen = total;
      changedAt = monotonicMs();
    } else if (monotonicMs() - changedAt > idleMs) return;
    await sleep(100);
  }
}
