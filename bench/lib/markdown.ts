import { formatNumber, type MachineInfo, ratioConvention, type ScenarioSummary } from './report.js';

/** What `bench/table.ts` reads of a results file (`bench/results/*.json`, written by `bench/run.ts`). */
export interface ResultsFile {
  startedAt: string;
  flags: { quick: boolean };
  machine: MachineInfo;
  summaries: ScenarioSummary[];
}

/** A goal's verdict as a table cell: `met`, `missed`, or `—` for a reference scenario. */
function verdict(summary: ScenarioSummary): string {
  if (summary.goals.length === 0) return '—';
  return summary.met ? 'met' : 'missed';
}

/** The figure a scenario is judged on, per its goals: a ratio, or the gateway's own figure. */
function keyFigures(summary: ScenarioSummary): string {
  if (summary.goals.length === 0) return '';
  return summary.goals.map((goal) => `${goal.metric} ${formatNumber(goal.value)}`).join('; ');
}

/**
 * One Markdown table of a results file: per scenario the baseline's and the gateway's median throughput,
 * p50 and p99, the gateway's peak RSS, both ratios, and the target with its verdict — for
 * BENCHMARKS.md, so the document always shows numbers a run printed.
 */
export function resultsTable(results: ResultsFile): string {
  const { machine } = results;
  const lines = [
    `Run of ${results.startedAt}${results.flags.quick ? ' (--quick)' : ''} on ${machine.cpuModel}, ` +
      `${machine.cores} cores, Node ${machine.node}, ${machine.os}; commit \`${machine.commit}\`.`,
    '',
    `${ratioConvention[0]?.toUpperCase()}${ratioConvention.slice(1)}.`,
    '',
    '| scenario | baseline: throughput · p50 / p99 ms | gateway: throughput · p50 / p99 ms · peak RSS MiB | throughput ratio | p99 ratio | target | result |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const summary of results.summaries) {
    const { baseline, gateway } = summary;
    const figures = (role: typeof baseline) =>
      role
        ? `${formatNumber(role.throughput, 0)} ${role.throughputUnit} · ${formatNumber(role.p50Ms)} / ${formatNumber(role.p99Ms)}`
        : '—';
    const figuresKey = keyFigures(summary);
    lines.push(
      `| ${summary.id} | ${figures(baseline)} | ${figures(gateway)} · ${formatNumber(gateway?.peakRssMiB ?? null, 0)} | ` +
        `${formatNumber(summary.throughputRatio)} | ${formatNumber(summary.p99Ratio)} | ${summary.target} | ` +
        `${verdict(summary)}${figuresKey ? ` (${figuresKey})` : ''} |`,
    );
  }
  return lines.join('\n');
}
