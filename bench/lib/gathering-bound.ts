import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * One answered supplier call: the source key it went to, how long the supplier took (ms), and for a Sonata
 * seller what the call was: `create` (POST of a POQ or Quote), `poll` (GET of one), `other` (token, hub).
 */
export interface SupplierCall {
  source: string;
  ms: number;
  kind?: 'create' | 'poll' | 'other';
}

/** The lower bound on gathering wall time and the terms it is the largest of (all in ms). */
export interface GatheringBound {
  boundMs: number;
  /** Σ latency ÷ the worker's concurrency: the worker pool can be no busier than full. */
  globalTermMs: number;
  /** max over sources of Σ that source's latency ÷ its concurrency: each bulkhead can be no busier than full. */
  perSourceTermMs: number;
  /** The longest single call (or slot job): nothing finishes before it. */
  longestCallMs: number;
  calls: number;
  /** Σ latency over every call (or slot job). */
  totalCallMs: number;
}

/**
 * The shortest wall time in which `calls` could possibly be made, given that at most `concurrency`
 * calls run at once over all sources (`GATHERING_CONCURRENCY`, the worker pool) and at most
 * `perSourceConcurrency` at once per source (its bulkhead, `sources.concurrency`):
 *
 *   bound = max( Σ latency ÷ concurrency,
 *                max over sources s of ( Σ latency of s ÷ concurrency of s ),
 *                max latency )
 *
 * A worker slot is held by a whole query, not only by its calls: a deferred Sonata query also waits for
 * the seller between them. `slotJobs` (default: `calls`) are what hold the slots, and the first term and
 * the last are taken over them (see {@link sonataWork}); the bulkhead holds calls only.
 *
 * Each term is a classic makespan lower bound (a pool of k slots finishes work W no sooner than W ÷ k;
 * no schedule beats its longest job), so the maximum is one too. It ignores what the gateway adds on
 * top — accepting and geocoding the requests, claiming tasks, storing offers, publishing events — and
 * assumes calls never wait for their inputs, so a real run's wall time ÷ bound is ≥ 1, and how much
 * above 1 is the overhead. `perSourceConcurrency` is one number for every source, or one per source key.
 * Latencies are in milliseconds; no calls give a bound of 0.
 */
export function gatheringBound(
  calls: readonly SupplierCall[],
  options: {
    concurrency: number;
    perSourceConcurrency: number | ReadonlyMap<string, number>;
    slotJobs?: readonly SupplierCall[];
  },
): GatheringBound {
  const perSource = new Map<string, number>();
  let totalCallMs = 0;
  let longestCallMs = 0;
  for (const call of calls) perSource.set(call.source, (perSource.get(call.source) ?? 0) + call.ms);
  for (const job of options.slotJobs ?? calls) {
    totalCallMs += job.ms;
    longestCallMs = Math.max(longestCallMs, job.ms);
  }
  let perSourceTermMs = 0;
  for (const [source, sum] of perSource) {
    const limit =
      typeof options.perSourceConcurrency === 'number'
        ? options.perSourceConcurrency
        : (options.perSourceConcurrency.get(source) ?? 1);
    perSourceTermMs = Math.max(perSourceTermMs, sum / limit);
  }
  const globalTermMs = totalCallMs / options.concurrency;
  return {
    boundMs: Math.max(globalTermMs, perSourceTermMs, longestCallMs),
    globalTermMs,
    perSourceTermMs,
    longestCallMs,
    calls: calls.length,
    totalCallMs,
  };
}

/** A call to the supplier simulator (`/suppliers/<key>/availability`) as its source key, or null. */
export function supplierCallOf(_method: string, path: string): Omit<SupplierCall, 'ms'> | null {
  const source = /^\/suppliers\/([a-z0-9-]+)\/availability(?:\?|$)/.exec(path)?.[1];
  return source ? { source } : null;
}

/**
 * A call to the simulator's Sonata sellers (`/sonata/<key>/…`) as its source key and kind: `create` for
 * `POST …/productOfferingQualification` or `…/quote`, `poll` for `GET` of one by id, `other` for the rest
 * (token, hub); null for another path.
 */
export function sonataCallOf(method: string, path: string): Omit<SupplierCall, 'ms'> | null {
  const match = /^\/sonata\/([a-z0-9-]+)\/(.*?)(?:\?|$)/.exec(path);
  if (!match?.[1]) return null;
  const below = /\/mefApi\/sonata\/[A-Za-z]+\/v\d+\/(productOfferingQualification|quote)(\/[^/]+)?$/.exec(
    `/${match[2] ?? ''}`,
  );
  const kind = !below
    ? 'other'
    : method === 'POST' && below[2] === undefined
      ? 'create'
      : method === 'GET' && below[2] !== undefined
        ? 'poll'
        : 'other';
  return { source: match[1], kind };
}

/**
 * What a perfect buyer of deferred Sonata sellers needs from `calls`: each POQ or Quote created, then read
 * once, at the moment the seller is done — as if told at once by a notification. A poll that found it not
 * yet done is the buyer's waste, not the seller's work, so it is left out.
 *
 * - `calls` (held by the source's bulkhead): every `create`, and per `create` one read taking the mean of
 *   that source's polls (all reads draw from the same latency; which one was last is chance).
 * - `jobs` (held by a worker slot): per `create`, its latency + `processingMs` (the seller's own time from
 *   acknowledging to done) + that mean read. A query's POQ and Quote are two jobs one after the other.
 *
 * Token and hub calls are left out of both (one token serves a source's whole run).
 */
export function sonataWork(
  calls: readonly SupplierCall[],
  processingMs: number,
): { calls: SupplierCall[]; jobs: SupplierCall[] } {
  const polls = new Map<string, { sum: number; count: number }>();
  for (const call of calls.filter((candidate) => candidate.kind === 'poll')) {
    const seen = polls.get(call.source) ?? { sum: 0, count: 0 };
    polls.set(call.source, { sum: seen.sum + call.ms, count: seen.count + 1 });
  }
  const meanPollMs = (source: string) => {
    const seen = polls.get(source);
    return seen ? seen.sum / seen.count : 0;
  };
  const needed: SupplierCall[] = [];
  const jobs: SupplierCall[] = [];
  for (const call of calls.filter((candidate) => candidate.kind === 'create')) {
    const read = meanPollMs(call.source);
    needed.push(call, { source: call.source, ms: read, kind: 'poll' });
    jobs.push({ source: call.source, ms: call.ms + processingMs + read });
  }
  return { calls: needed, jobs };
}

/**
 * Records every supplier call an in-process HTTP server on `port` answers (a simulator), as `callOf`
 * names it (a {@link SupplierCall} by default; the order bench names its own kinds; calls it returns null
 * for are not recorded): from the moment its request head is parsed to the moment its response is
 * finished, through Node's `http.server.*` diagnostics channels, so the simulator itself needs no hook. `calls` grows as calls finish; `reset()` forgets those so far (e.g.
 * after a warm-up); `stop()` stops recording.
 */
export function recordSupplierCalls<C extends { source: string } = Omit<SupplierCall, 'ms'>>(
  port: number,
  callOf: (method: string, path: string) => C | null,
): { calls: (C & { ms: number; at: number })[]; reset(): void; stop(): void } {
  const calls: (C & { ms: number; at: number })[] = [];
  const started = new WeakMap<IncomingMessage, { call: C; at: number }>();
  const ours = (socket: Socket) => socket.localPort === port;
  const onStart = (message: unknown) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    if (!ours(socket)) return;
    const call = callOf(request.method ?? 'GET', request.url ?? '');
    if (call) started.set(request, { call, at: performance.now() });
  };
  const onFinish = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    const start = started.get(request);
    if (start) calls.push({ ...start.call, at: start.at, ms: performance.now() - start.at });
  };
  subscribe('http.server.request.start', onStart);
  subscribe('http.server.response.finish', onFinish);
  return {
    calls,
    reset: () => {
      calls.length = 0;
    },
    stop: () => {
      unsubscribe('http.server.request.start', onStart);
      unsubscribe('http.server.response.finish', onFinish);
    },
  };
}
