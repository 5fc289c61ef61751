import { describe, expect, it } from 'vitest';
import type { ResultsFile } from '../../bench/lib/markdown.js';
import type { RoleSummary, ScenarioSummary } from '../../bench/lib/report.js';
import { compareSitting, sittingTable } from '../../bench/lib/sitting.js';

const role = (throughput: number, p99Ms: number): RoleSummary => ({
  label: 'x',
  rounds: 3,
  throughput,
  throughputUnit: 'req/s',
  p50Ms: 1,
  p99Ms,
  peakRssMiB: 100,
  errors: 0,
  extra: {},
});

const summary = (
  id: string,
  gateway: [number, number],
  baseline: number,
  error?: string,
): ScenarioSummary => ({
  id,
  title: id,
  target: '',
  baseline: role(baseline, 5),
  gateway: role(...gateway),
  throughputRatio: gateway[0] / baseline,
  p99Ratio: gateway[1] / 5,
  goals: [],
  met: null,
  ...(error ? { error } : {}),
});

const file = (...summaries: ScenarioSummary[]): ResultsFile => ({
  startedAt: '2026-12-07T13:00:00.000Z',
  flags: { quick: false },
  machine: { cpuModel: 'AMD EPYC', cores: 2, node: 'v24.22.3', os: 'Linux', commit: 'abc' },
  summaries,
});

describe('a bench sitting compared (bench:compare)', () => {
  it('when two sides ran A B A B, then each scenario has the medians of its side’s runs and B ÷ A', () => {
    const rows = compareSitting(
      [file(summary('rest-list', [3000, 8], 4000)), file(summary('rest-list', [3200, 10], 4000))],
      [
        file(summary('rest-list', [4000, 6], 5000), summary('new', [10, 1], 10)),
        file(summary('rest-list', [4400, 7], 5000), summary('new', [20, 1], 10, 'timed out')),
      ],
    );
    expect(rows).toEqual([
      {
        id: 'rest-list',
        throughput: { a: 3100, b: 4200 },
        unit: 'req/s',
        p99Ms: { a: 9, b: 6.5 },
        ratioToBaseline: { a: 0.775, b: (4000 / 5000 + 4400 / 5000) / 2 },
        throughputBOverA: 4200 / 3100,
        p99BOverA: 6.5 / 9,
        runs: { a: 2, b: 2 },
      },
      {
        id: 'new',
        throughput: { a: null, b: 10 },
        unit: 'req/s',
        p99Ms: { a: null, b: 1 },
        ratioToBaseline: { a: null, b: 1 },
        throughputBOverA: null,
        p99BOverA: null,
        runs: { a: 0, b: 1 },
      },
    ]);
    expect(sittingTable(rows, { a: 'Node 20', b: 'Node 24' }).split('\n')).toEqual([
      '| scenario | gateway throughput, Node 20 · Node 24 | Node 24 ÷ Node 20 | gateway p99 ms, Node 20 · Node 24 | Node 24 ÷ Node 20 (p99) | ratio to its baseline, Node 20 · Node 24 | runs |',
      '|---|---|---|---|---|---|---|',
      '| rest-list | 3100 · 4200 req/s | 1.35 | 9.00 · 6.50 | 0.72 | 0.78 · 0.84 | 2 · 2 |',
      '| new | — · 10 req/s | — | — · 1.00 | — | — · 1.00 | 0 · 1 |',
    ]);
  });
});
