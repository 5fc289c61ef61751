import type { GatheringBound } from './gathering-bound.js';

/*
 * The bound of the order scenario (issue 36): what the calls a perfect buyer must make to deferred Sonata
 * sellers allow, built as the gathering bound is (`gatheringBound`, `sonataWork`).
 */

/**
 * What a call to the simulator's Sonata sellers is, for the order bound:
 * - `create`: `POST …/productOrder` (a placement);
 * - `read`: `GET …/productOrder/{id}` (a poll of a placed order);
 * - `lookup`: `GET …/productOrder?externalId=…` (looking for a placement that may have been sent before);
 * - `product`: `GET …/productInventory/v7/product/{id}` (the delivered product, read once per completed line);
 * - `other`: everything else (token, hub, charges, the POQs and Quotes of the preparation).
 */
export type OrderCallKind = 'create' | 'read' | 'lookup' | 'product' | 'other';

/**
 * One answered call to a seller: its source key, its kind, how long the seller took (ms) and, as recorded,
 * when it started (`performance.now()` of the bench process, ms).
 */
export interface OrderCall {
  source: string;
  kind: OrderCallKind;
  at?: number;
  ms: number;
}

/** A call to `/sonata/<key>/<mode>/…` as its source key and {@link OrderCallKind}; null for another path. */
export function orderCallOf(method: string, path: string): Omit<OrderCall, 'ms' | 'at'> | null {
  const match = /^\/sonata\/([a-z0-9-]+)\/(.*)$/.exec(path);
  if (!match?.[1]) return null;
  const [below = '', query = ''] = (match[2] ?? '').split('?');
  const order = /\/mefApi\/sonata\/productOrderingManagement\/v\d+\/productOrder(\/[^/]+)?$/.exec(below);
  const product = /\/mefApi\/sonata\/productInventory\/v\d+\/product\/[^/]+$/.test(below);
  let kind: OrderCallKind = 'other';
  if (order && method === 'POST' && order[1] === undefined) kind = 'create';
  else if (order && method === 'GET' && order[1] !== undefined) kind = 'read';
  else if (order && method === 'GET' && /(^|&)externalId=/.test(query)) kind = 'lookup';
  else if (product && method === 'GET') kind = 'product';
  return { source: match[1], kind };
}

/** The order bound and its terms (ms), as {@link GatheringBound}; `longestCallMs` is the longest chain. */
export interface OrderBound extends GatheringBound {
  /** Reads that found the order not yet ended (polls beyond one per placement), the buyer's waste. */
  extraReads: number;
  /** Lookups by `externalId`: only after a crash or an unanswered placement. */
  lookups: number;
}

/**
 * The shortest wall time in which a buyer could place and follow the supplier orders whose placements are
 * in `calls`, given at most `concurrency` calls at once (the order worker's `GATHERING_CONCURRENCY`) and
 * at most `perSourceConcurrency` at once per source (its bulkhead, `sources.concurrency`):
 *
 *   needed calls = every create, one read per create at the mean of that source's reads, every product read
 *   chain(create) = create + processingMs + mean read of its source + its source's product reads per create
 *                   × their mean
 *   bound = max( Σ needed ÷ concurrency,
 *                max over sources s of ( Σ needed of s ÷ concurrency of s ),
 *                max over creates of chain )
 *
 * As in `sonataWork`, a perfect buyer reads each order once, the moment the seller ends it (as if told by a
 * notification): reads that found it not yet ended are the buyer's waste and count against the gateway, and
 * so do lookups. Unlike a gathering query, a supplier order holds a worker slot only while a step runs (its
 * calls), not while the seller works, so the slot term is over the calls and the seller's `processingMs`
 * (acknowledged → completed) enters only through the chain: nothing can end before its own chain.
 * Token, hub and charge calls are left out. Latencies are in milliseconds; no creates give a bound of 0.
 */
export function orderBound(
  calls: readonly OrderCall[],
  options: { concurrency: number; perSourceConcurrency: number; processingMs: number },
): OrderBound {
  const bySource = new Map<string, { creates: number; reads: number[]; products: number[] }>();
  const of = (source: string) => {
    const found = bySource.get(source) ?? { creates: 0, reads: [], products: [] };
    bySource.set(source, found);
    return found;
  };
  let lookups = 0;
  for (const call of calls) {
    if (call.kind === 'create') of(call.source).creates += 1;
    else if (call.kind === 'read') of(call.source).reads.push(call.ms);
    else if (call.kind === 'product') of(call.source).products.push(call.ms);
    else if (call.kind === 'lookup') lookups += 1;
  }
  const mean = (values: readonly number[]) =>
    values.length === 0 ? 0 : values.reduce((sum, ms) => sum + ms, 0) / values.length;
  const perSourceSum = new Map<string, number>();
  let totalCallMs = 0;
  let neededCalls = 0;
  let longestCallMs = 0;
  let extraReads = 0;
  for (const call of calls.filter((each) => each.kind === 'create' || each.kind === 'product')) {
    perSourceSum.set(call.source, (perSourceSum.get(call.source) ?? 0) + call.ms);
    totalCallMs += call.ms;
    neededCalls += 1;
  }
  for (const [source, seen] of bySource) {
    const read = mean(seen.reads);
    const productsMs = seen.creates === 0 ? 0 : (seen.products.length / seen.creates) * mean(seen.products);
    perSourceSum.set(source, (perSourceSum.get(source) ?? 0) + seen.creates * read);
    totalCallMs += seen.creates * read;
    neededCalls += seen.creates;
    extraReads += Math.max(0, seen.reads.length - seen.creates);
    for (const call of calls) {
      if (call.kind !== 'create' || call.source !== source) continue;
      longestCallMs = Math.max(longestCallMs, call.ms + options.processingMs + read + productsMs);
    }
  }
  let perSourceTermMs = 0;
  for (const sum of perSourceSum.values()) {
    perSourceTermMs = Math.max(perSourceTermMs, sum / options.perSourceConcurrency);
  }
  const globalTermMs = totalCallMs / options.concurrency;
  return {
    boundMs: neededCalls === 0 ? 0 : Math.max(globalTermMs, perSourceTermMs, longestCallMs),
    globalTermMs,
    perSourceTermMs,
    longestCallMs,
    calls: neededCalls,
    totalCallMs,
    extraReads,
    lookups,
  };
}
