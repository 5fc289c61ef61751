import { execFileSync } from 'node:child_process';
import { arch, cpus, release, type } from 'node:os';
import Table from 'cli-table3';
import { repositoryRoot } from './process.js';
import { median } from './stats.js';
import type { Goal, Measurement, Scenario } from './types.js';

/** The convention every ratio in the report follows; printed above the tables. */
export const ratioConvention =
  'ratios are gateway ÷ baseline of the medians over rounds: throughput ratio (higher is better, 1.00 = as fast ' +
  'as the baseline) and p99 ratio (lower is better, 1.00 = as quick as the baseline)';

/** Medians over the rounds of one role in one scenario. */
export interface RoleSummary {
  label: string;
  rounds: number;
  throughput: number | null;
  throughputUnit: string;
  p50Ms: number | null;
  p99Ms: number | null;
  peakRssMiB: number | null;
  /** Sum over the rounds. */
  errors: number;
  /** Median per key over the rounds that report it. */
  extra: Record<string, number>;
}

/** A goal with the value it was checked against (null when the summary lacks it, which fails the goal). */
export interface GoalResult extends Goal {
  value: number | null;
  met: boolean;
}

/** A scenario's result: medians per role, ratios, and whether its goals were met. */
export interface ScenarioSummary {
  id: string;
  title: string;
  target: string;
  baseline: RoleSummary | null;
  gateway: RoleSummary | null;
  /** Gateway ÷ baseline median throughput. */
  throughputRatio: number | null;
  /** Gateway ÷ baseline median p99. */
  p99Ratio: number | null;
  goals: GoalResult[];
  /** Every goal met; null when the scenario has no goals or did not complete. */
  met: boolean | null;
  /** Why the scenario did not complete, when it did not. */
  error?: string;
}

/** `numerator ÷ denominator`, or null when either is missing or the denominator is 0. */
export function ratio(numerator: number | null, denominator: number | null): number | null {
  if (numerator === null || denominator === null || denominator === 0) return null;
  return numerator / denominator;
}

function medianOf(values: (number | null)[]): number | null {
  return median(values.filter((value): value is number => value !== null));
}

/** Medians over `measurements` (one role's rounds); null for none. */
export function summariseRole(measurements: readonly Measurement[]): RoleSummary | null {
  const first = measurements[0];
  if (!first) return null;
  const keys = [...new Set(measurements.flatMap((m) => Object.keys(m.extra)))];
  const extra: Record<string, number> = {};
  for (const key of keys) {
    const value = medianOf(measurements.map((m) => m.extra[key] ?? null));
    if (value !== null) extra[key] = value;
  }
  return {
    label: first.label,
    rounds: measurements.length,
    throughput: medianOf(measurements.map((m) => m.throughput)),
    throughputUnit: first.throughputUnit,
    p50Ms: medianOf(measurements.map((m) => m.p50Ms)),
    p99Ms: medianOf(measurements.map((m) => m.p99Ms)),
    peakRssMiB: medianOf(measurements.map((m) => m.peakRssMiB)),
    errors: measurements.reduce((sum, m) => sum + m.errors, 0),
    extra,
  };
}

function goalValue(goal: Goal, summary: Omit<ScenarioSummary, 'goals' | 'met'>): number | null {
  if (goal.metric === 'throughputRatio') return summary.throughputRatio;
  if (goal.metric === 'p99Ratio') return summary.p99Ratio;
  if (goal.metric === 'gatewayP99Ms') return summary.gateway?.p99Ms ?? null;
  return summary.gateway?.extra[goal.metric.slice('extra:'.length)] ?? null;
}

/**
 * Summarises a scenario's measurements: medians per role, the gateway ÷ baseline ratios, and its goals
 * checked against them. `error` marks a scenario that failed (its goals then count as not met).
 */
export function summariseScenario(
  scenario: Pick<Scenario, 'id' | 'title' | 'target' | 'goals'>,
  measurements: readonly Measurement[],
  error?: string,
): ScenarioSummary {
  const own = measurements.filter((m) => m.scenario === scenario.id);
  const baseline = summariseRole(own.filter((m) => m.role === 'baseline'));
  const gateway = summariseRole(own.filter((m) => m.role === 'gateway'));
  const partial = {
    id: scenario.id,
    title: scenario.title,
    target: scenario.target,
    baseline,
    gateway,
    throughputRatio: ratio(gateway?.throughput ?? null, baseline?.throughput ?? null),
    p99Ratio: ratio(gateway?.p99Ms ?? null, baseline?.p99Ms ?? null),
    ...(error === undefined ? {} : { error }),
  };
  const goals = (scenario.goals ?? []).map((goal): GoalResult => {
    const value = error === undefined ? goalValue(goal, partial) : null;
    const met =
      value !== null &&
      (goal.atLeast === undefined || value >= goal.atLeast) &&
      (goal.atMost === undefined || value <= goal.atMost);
    return { ...goal, value, met };
  });
  const met = error !== undefined ? false : goals.length === 0 ? null : goals.every((goal) => goal.met);
  return { ...partial, goals, met };
}

/** A number for the table: `—` for none, otherwise `digits` decimals (0 at and above 1000). */
export function formatNumber(value: number | null | undefined, digits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value.toFixed(Math.abs(value) >= 1000 ? 0 : digits);
}

function goalText(goal: GoalResult): string {
  const bound = [
    goal.atLeast === undefined ? null : `≥ ${goal.atLeast}`,
    goal.atMost === undefined ? null : `≤ ${goal.atMost}`,
  ]
    .filter(Boolean)
    .join(', ');
  return `${goal.metric} ${formatNumber(goal.value)} (${bound}) ${goal.met ? 'ok' : 'missed'}`;
}

/** One scenario as text: a title line, a table with a row per role, and the target with its verdict. */
export function renderScenario(summary: ScenarioSummary): string {
  const unit = summary.gateway?.throughputUnit ?? summary.baseline?.throughputUnit ?? 'req/s';
  const table = new Table({
    head: ['', 'server', `throughput ${unit}`, 'p50 ms', 'p99 ms', 'peak RSS MiB', 'thr ratio', 'p99 ratio'],
    style: { head: [], border: [] },
  });
  for (const [role, row] of [
    ['baseline', summary.baseline],
    ['gateway', summary.gateway],
  ] as const) {
    const isGateway = role === 'gateway';
    table.push([
      role,
      row?.label ?? '—',
      formatNumber(row?.throughput, 0),
      formatNumber(row?.p50Ms),
      formatNumber(row?.p99Ms),
      formatNumber(row?.peakRssMiB, 1),
      isGateway ? formatNumber(summary.throughputRatio) : '1.00',
      isGateway ? formatNumber(summary.p99Ratio) : '1.00',
    ]);
  }
  const verdict = summary.error
    ? `FAILED: ${summary.error}`
    : summary.met === null
      ? 'no verdict (reference)'
      : `${summary.met ? 'met' : 'NOT met'}: ${summary.goals.map(goalText).join('; ')}`;
  const extras = Object.entries(summary.gateway?.extra ?? {})
    .filter(([key]) => !['connections', 'durationSeconds', 'requests'].includes(key))
    .map(([key, value]) => `${key} ${formatNumber(value)}`);
  return [
    `${summary.id} — ${summary.title}`,
    table.toString(),
    ...(extras.length > 0 ? [`gateway extra: ${extras.join(', ')}`] : []),
    `target: ${summary.target} → ${verdict}`,
  ].join('\n');
}

/** Where a run happened. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  node: string;
  os: string;
  /** `git rev-parse HEAD`, with `-dirty` when the work tree has changes; `unknown` outside git. */
  commit: string;
}

/** The machine and code this run measured. */
export function machineInfo(): MachineInfo {
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: repositoryRoot,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  let commit = 'unknown';
  try {
    commit =
      git('rev-parse', 'HEAD') + (git('status', '--porcelain', '--untracked-files=no') ? '-dirty' : '');
  } catch {
    // not a git checkout
  }
  const processors = cpus();
  return {
    cpuModel: processors[0]?.model.trim() ?? 'unknown',
    cores: processors.length,
    node: process.version,
    os: `${type()} ${release()} ${arch()}`,
    commit,
  };
}

/** The machine line of the report. */
export function renderMachine(machine: MachineInfo): string {
  return `machine: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node}, ${machine.os}; commit ${machine.commit}`;
}
