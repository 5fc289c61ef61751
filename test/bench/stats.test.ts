import { TypeID } from 'typeid-js';
import { describe, expect, it } from 'vitest';
import { formatNumber, ratio, summariseRole, summariseScenario } from '../../bench/lib/report.js';
import { LatencyRecorder, median } from '../../bench/lib/stats.js';
import { typeIdAt } from '../../bench/lib/typeid.js';
import type { Measurement } from '../../bench/lib/types.js';

function measurement(overrides: Partial<Measurement>): Measurement {
  return {
    scenario: 'rest-list',
    role: 'baseline',
    label: 'raw',
    round: 1,
    throughput: 100,
    throughputUnit: 'req/s',
    p50Ms: 1,
    p99Ms: 2,
    peakRssMiB: 50,
    errors: 0,
    extra: {},
    ...overrides,
  };
}

describe('LatencyRecorder', () => {
  it('when 100 latencies of 0.01–1.00 ms are recorded, then p50 and p99 are exact to the microsecond', () => {
    const recorder = new LatencyRecorder();
    for (let i = 1; i <= 100; i++) recorder.record(i / 100);

    expect(recorder.count).toBe(100);
    expect(recorder.percentileMs(50)).toBe(0.5);
    expect(recorder.percentileMs(99)).toBe(0.99);
    expect(recorder.percentileMs(100)).toBe(1);
  });

  it('when nothing was recorded, then percentiles are null', () => {
    expect(new LatencyRecorder().percentileMs(99)).toBeNull();
  });
});

describe('median', () => {
  it('when the count is odd or even, then it is the middle value or the mean of the middle two', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});

describe('ratio', () => {
  it('when both sides are known, then it is numerator ÷ denominator, else null', () => {
    expect(ratio(300, 400)).toBe(0.75);
    expect(ratio(null, 400)).toBeNull();
    expect(ratio(300, 0)).toBeNull();
  });
});

describe('summariseRole', () => {
  it('when rounds differ, then it takes medians, sums errors and takes the median of each extra', () => {
    const summary = summariseRole([
      measurement({ round: 1, throughput: 100, p50Ms: 1, p99Ms: 4, peakRssMiB: 50, extra: { a: 1 } }),
      measurement({ round: 2, throughput: 300, p50Ms: 3, p99Ms: 8, peakRssMiB: 70, extra: { a: 3, b: 5 } }),
    ]);

    expect(summary).toEqual({
      label: 'raw',
      rounds: 2,
      throughput: 200,
      throughputUnit: 'req/s',
      p50Ms: 2,
      p99Ms: 6,
      peakRssMiB: 60,
      errors: 0,
      extra: { a: 2, b: 5 },
    });
  });
});

describe('summariseScenario', () => {
  const rounds = [
    measurement({ role: 'baseline', round: 1, throughput: 1000, p99Ms: 10 }),
    measurement({ role: 'gateway', label: 'gw', round: 1, throughput: 700, p99Ms: 15 }),
    measurement({ role: 'baseline', round: 2, throughput: 1200, p99Ms: 12 }),
    measurement({ role: 'gateway', label: 'gw', round: 2, throughput: 900, p99Ms: 21 }),
    measurement({ scenario: 'other', role: 'gateway', throughput: 1 }),
  ];
  const scenario = { id: 'rest-list', title: 't', target: '≥ 0.75' };

  it('when goals hold, then the ratios are gateway ÷ baseline of the medians and the target is met', () => {
    const summary = summariseScenario(
      {
        ...scenario,
        goals: [
          { metric: 'throughputRatio', atLeast: 0.7 },
          { metric: 'gatewayP99Ms', atMost: 18 },
        ],
      },
      rounds,
    );

    expect(summary.baseline?.throughput).toBe(1100);
    expect(summary.gateway?.throughput).toBe(800);
    expect(summary.throughputRatio).toBeCloseTo(800 / 1100, 12);
    expect(summary.p99Ratio).toBe(18 / 11);
    expect(summary.goals.map((goal) => [goal.metric, goal.value, goal.met])).toEqual([
      ['throughputRatio', 800 / 1100, true],
      ['gatewayP99Ms', 18, true],
    ]);
    expect(summary.met).toBe(true);
  });

  it('when a goal misses, then the target is not met; without goals there is no verdict', () => {
    expect(
      summariseScenario({ ...scenario, goals: [{ metric: 'throughputRatio', atLeast: 0.75 }] }, rounds).met,
    ).toBe(false);
    expect(summariseScenario(scenario, rounds).met).toBeNull();
  });

  it('when the scenario failed, then it is not met and its goals have no value', () => {
    const summary = summariseScenario(
      { ...scenario, goals: [{ metric: 'extra:rssPerSubscriberKiB', atMost: 15 }] },
      [],
      'gateway answered 3 errors',
    );

    expect(summary).toMatchObject({ met: false, error: 'gateway answered 3 errors', baseline: null });
    expect(summary.goals[0]).toMatchObject({ value: null, met: false });
  });
});

describe('formatNumber', () => {
  it('when given values, then it prints fixed decimals, none from 1000 up, and — for none', () => {
    expect(formatNumber(0.756)).toBe('0.76');
    expect(formatNumber(1234.5)).toBe('1235');
    expect(formatNumber(null)).toBe('—');
  });
});

describe('typeIdAt', () => {
  it('when given a time, then the id is a UUIDv7 carrying that millisecond', () => {
    const uuid = TypeID.fromString(typeIdAt('avr', 1_795_352_604_550)).toUUID();

    expect(uuid.slice(0, 13).replace('-', '')).toBe((1_795_352_604_550).toString(16).padStart(12, '0'));
    expect(uuid[14]).toBe('7');
  });
});
