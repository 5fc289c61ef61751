import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** One answered supplier call: the source key it went to and how long the supplier took, in ms. */
export interface SupplierCall {
  source: string;
  ms: number;
}

/** The lower bound on gathering wall time and the terms it is the largest of (all in ms). */
export interface GatheringBound {
  boundMs: number;
  /** Σ latency ÷ the worker's concurrency: the worker pool can be no busier than full. */
  globalTermMs: number;
  /** max over sources of Σ that source's latency ÷ its concurrency: each bulkhead can be no busier than full. */
  perSourceTermMs: number;
  /** The longest single call: nothing finishes before it. */
  longestCallMs: number;
  calls: number;
  /** Σ latency over every call. */
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
 * Each term is a classic makespan lower bound (a pool of k slots finishes work W no sooner than W ÷ k;
 * no schedule beats its longest job), so the maximum is one too. It ignores what the gateway adds on
 * top — accepting and geocoding the requests, claiming tasks, storing offers, publishing events — and
 * assumes calls never wait for their inputs, so a real run's wall time ÷ bound is ≥ 1, and how much
 * above 1 is the overhead. `perSourceConcurrency` is one number for every source, or one per source key.
 * Latencies are in milliseconds; no calls give a bound of 0.
 */
export function gatheringBound(
  calls: readonly SupplierCall[],
  options: { concurrency: number; perSourceConcurrency: number | ReadonlyMap<string, number> },
): GatheringBound {
  const perSource = new Map<string, number>();
  let totalCallMs = 0;
  let longestCallMs = 0;
  for (const call of calls) {
    perSource.set(call.source, (perSource.get(call.source) ?? 0) + call.ms);
    totalCallMs += call.ms;
    longestCallMs = Math.max(longestCallMs, call.ms);
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

/** The source key of a supplier-simulator path (`/suppliers/<key>/availability`), or null. */
export function supplierKeyOf(path: string): string | null {
  return /^\/suppliers\/([a-z0-9-]+)\/availability(?:\?|$)/.exec(path)?.[1] ?? null;
}

/**
 * Records every supplier call an in-process HTTP server on `port` answers (the supplier simulator):
 * from the moment its request head is parsed to the moment its response is finished, through Node's
 * `http.server.*` diagnostics channels, so the simulator itself needs no hook. `calls` grows as calls
 * finish; `reset()` forgets those so far (e.g. after a warm-up); `stop()` stops recording.
 */
export function recordSupplierCalls(port: number): { calls: SupplierCall[]; reset(): void; stop(): void } {
  const calls: SupplierCall[] = [];
  const started = new WeakMap<IncomingMessage, { source: string; at: number }>();
  const ours = (socket: Socket) => socket.localPort === port;
  const onStart = (message: unknown) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    const source = supplierKeyOf(request.url ?? '');
    if (source && ours(socket)) started.set(request, { source, at: performance.now() });
  };
  const onFinish = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    const start = started.get(request);
    if (start) calls.push({ source: start.source, ms: performance.now() - start.at });
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
