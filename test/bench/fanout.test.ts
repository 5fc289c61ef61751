import { describe, expect, it } from 'vitest';
import { summariseFanout } from '../../bench/lib/fanout-round.js';
import { gatheringBound, supplierKeyOf } from '../../bench/lib/gathering-bound.js';
import { receiveThreads } from '../../bench/scenarios/fanout.js';

describe('gatheringBound', () => {
  const calls = [
    { source: 'a', ms: 100 },
    { source: 'a', ms: 300 },
    { source: 'a', ms: 200 },
    { source: 'b', ms: 400 },
    { source: 'c', ms: 50 },
  ];

  it('when the worker pool binds, then the bound is Σ latency ÷ concurrency', () => {
    const bound = gatheringBound(calls, { concurrency: 2, perSourceConcurrency: 4 });

    expect(bound).toEqual({
      boundMs: 525,
      globalTermMs: 525,
      perSourceTermMs: 150,
      longestCallMs: 400,
      calls: 5,
      totalCallMs: 1050,
    });
  });

  it('when one source’s bulkhead binds, then the bound is that source’s Σ latency ÷ its concurrency', () => {
    const bound = gatheringBound(calls, {
      concurrency: 10,
      perSourceConcurrency: new Map([
        ['a', 1],
        ['b', 1],
        ['c', 1],
      ]),
    });

    expect(bound.perSourceTermMs).toBe(600);
    expect(bound.globalTermMs).toBe(105);
    expect(bound.boundMs).toBe(600);
  });

  it('when concurrency is ample, then the bound is the longest single call', () => {
    expect(gatheringBound(calls, { concurrency: 100, perSourceConcurrency: 100 }).boundMs).toBe(400);
  });

  it('when there are no calls, then the bound is 0', () => {
    expect(gatheringBound([], { concurrency: 64, perSourceConcurrency: 16 }).boundMs).toBe(0);
  });
});

describe('supplierKeyOf', () => {
  it.each([
    ['/suppliers/kpn-wba/availability', 'kpn-wba'],
    ['/suppliers/colt/availability?mode=503', 'colt'],
    ['/suppliers/colt/availability/x', null],
    ['/stats', null],
  ])('when the path is %s, then the key is %s', (path, key) => {
    expect(supplierKeyOf(path)).toBe(key);
  });
});

describe('summariseFanout', () => {
  it('when 2 of 3 subscribers get the first event and all get the second, then 1 is lost', () => {
    const sent = new Map([
      ['e1', 1000],
      ['e2', 1100],
    ]);
    const byEvent = new Map([
      ['e1', [1002, 1004]],
      ['e2', [1101, 1103, 1110]],
      ['warm-up', [900, 901, 902]],
    ]);

    const summary = summariseFanout(sent, { byEvent }, 3);

    expect(summary.delivered).toBe(5);
    expect(summary.lost).toBe(1);
    // 5 deliveries from the first publish (1000 ms) to the last receipt (1110 ms).
    expect(summary.throughput).toBeCloseTo(5 / 0.11, 9);
    expect(summary.latency.count).toBe(5);
    // Latencies 1, 2, 3, 4 and 10 ms; HdrHistogram (3 digits) reports a bucket's top, within 0.1 %.
    expect(summary.latency.percentileMs(50)).toBeCloseTo(3, 2);
    expect(summary.latency.percentileMs(100)).toBeCloseTo(10, 1);
  });

  it('when a receive time precedes its publish time, then it counts as 0 ms', () => {
    const summary = summariseFanout(new Map([['e1', 1000]]), { byEvent: new Map([['e1', [999.5]]]) }, 1);

    expect(summary.lost).toBe(0);
    expect(summary.latency.percentileMs(100)).toBe(0.001);
  });

  it('when nothing arrives, then every message is lost and throughput is 0', () => {
    const summary = summariseFanout(new Map([['e1', 1000]]), { byEvent: new Map() }, 4);

    expect(summary).toMatchObject({ delivered: 0, lost: 4, throughput: 0 });
  });
});

describe('receiveThreads', () => {
  it.each([
    [1000, 1],
    [2500, 1],
    [2501, 2],
    [5000, 2],
    [20000, 2],
  ])('when there are %i subscribers, then %i receiving threads', (subscribers, threads) => {
    expect(receiveThreads(subscribers)).toBe(threads);
  });
});
