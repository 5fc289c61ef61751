import type { ResultsFile } from './markdown.js';
import { formatNumber, ratio } from './report.js';
import { median } from './stats.js';

/** One scenario of a sitting: its gateway's figures on each side, medians over that side's runs. */
export interface SittingRow {
  id: string;
  /** The gateway's median throughput over the side's runs, in the scenario's unit; null when no run has it. */
  throughput: { a: number | null; b: number | null };
  unit: string;
  /** The gateway's median p99 over the side's runs, in ms. */
  p99Ms: { a: number | null; b: number | null };
  /** The scenario's own ratio (gateway ÷ its baseline in the same run), median over the side's runs. */
  ratioToBaseline: { a: number | null; b: number | null };
  /** B's throughput ÷ A's, and B's p99 ÷ A's. */
  throughputBOverA: number | null;
  p99BOverA: number | null;
  /** Runs on each side that have the scenario completed. */
  runs: { a: number; b: number };
}

const medianOrNull = (values: (number | null | undefined)[]): number | null => {
  const present = values.filter((value): value is number => typeof value === 'number');
  return present.length === 0 ? null : median(present);
};

/**
 * Compares two sides of a bench sitting — side A's results files against side B's (e.g. two runtimes, or
 * two commits, run A B A B on one machine) — per scenario present on either side, in A's order then B's
 * new ones: the gateway's figures as medians over each side's runs, and B ÷ A. A scenario that failed in a
 * run (`error`) does not count for that run.
 */
export function compareSitting(a: ResultsFile[], b: ResultsFile[]): SittingRow[] {
  const ids = [...new Set([...a, ...b].flatMap((file) => file.summaries.map((summary) => summary.id)))];
  const completed = (files: ResultsFile[], id: string) =>
    files
      .map((file) => file.summaries.find((summary) => summary.id === id))
      .filter((summary) => summary !== undefined && summary.error === undefined);
  return ids.map((id) => {
    const runsA = completed(a, id);
    const runsB = completed(b, id);
    const throughput = {
      a: medianOrNull(runsA.map((summary) => summary?.gateway?.throughput)),
      b: medianOrNull(runsB.map((summary) => summary?.gateway?.throughput)),
    };
    const p99Ms = {
      a: medianOrNull(runsA.map((summary) => summary?.gateway?.p99Ms)),
      b: medianOrNull(runsB.map((summary) => summary?.gateway?.p99Ms)),
    };
    return {
      id,
      throughput,
      unit: [...runsA, ...runsB][0]?.gateway?.throughputUnit ?? '',
      p99Ms,
      ratioToBaseline: {
        a: medianOrNull(runsA.map((summary) => summary?.throughputRatio)),
        b: medianOrNull(runsB.map((summary) => summary?.throughputRatio)),
      },
      throughputBOverA: ratio(throughput.b, throughput.a),
      p99BOverA: ratio(p99Ms.b, p99Ms.a),
      runs: { a: runsA.length, b: runsB.length },
    };
  });
}

/** {@link compareSitting}'s rows as the Markdown table BENCHMARKS.md shows, sides named `labels`. */
export function sittingTable(rows: SittingRow[], labels: { a: string; b: string }): string {
  const lines = [
    `| scenario | gateway throughput, ${labels.a} · ${labels.b} | ${labels.b} ÷ ${labels.a} | gateway p99 ms, ${labels.a} · ${labels.b} | ${labels.b} ÷ ${labels.a} (p99) | ratio to its baseline, ${labels.a} · ${labels.b} | runs |`,
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of rows)
    lines.push(
      `| ${row.id} | ${formatNumber(row.throughput.a, 0)} · ${formatNumber(row.throughput.b, 0)} ${row.unit} | ` +
        `${formatNumber(row.throughputBOverA)} | ${formatNumber(row.p99Ms.a)} · ${formatNumber(row.p99Ms.b)} | ` +
        `${formatNumber(row.p99BOverA)} | ${formatNumber(row.ratioToBaseline.a)} · ${formatNumber(row.ratioToBaseline.b)} | ` +
        `${row.runs.a} · ${row.runs.b} |`,
    );
  return lines.join('\n');
}
