import { describe, expect, it } from 'vitest';
import { summariseFanout } from '../../bench/lib/fanout-round.js';
import { receiveThreads } from '../../bench/scenarios/fanout.js';

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
