import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { loadPostgresDataset, type PostgresDataset } from './lib/postgres.js';
import { buildGateway, repositoryRoot } from './lib/process.js';
import {
  machineInfo,
  ratioConvention,
  renderMachine,
  renderScenario,
  type ScenarioSummary,
  summariseScenario,
} from './lib/report.js';
import { loadDataset } from './lib/seed.js';
import type { BenchContext, Measurement, Scenario } from './lib/types.js';
import { balancedListScenario } from './scenarios/balanced.js';
import { fanoutScenarios } from './scenarios/fanout.js';
import { gatheringScenario } from './scenarios/gathering.js';
import { httpScenarios } from './scenarios/http.js';
import { orderScenario } from './scenarios/order-sonata.js';
import { gatheringTracingScenarios, tracingScenarios } from './scenarios/tracing.js';

/*
 * `npm run bench [-- --quick] [-- --only id,id] [-- --duration s] [-- --connections n] [-- --rounds n]`: seeds
 * (or reuses) the data set, runs the scenarios in order — on SQLite HTTP, fan-out, gathering and orders, then
 * on PostgreSQL (`pg-*`: HTTP, gathering and orders, the data set copied there once, see `lib/postgres.ts`)
 * — each A/B/A/B against its baseline (HTTP scenarios A/B `--rounds` times: 3 by default, 2 with `--quick`),
 * prints a table per scenario, and writes every measurement to bench/results/<timestamp>.json and
 * bench/results/latest.json. Exits 1 when a scenario failed (e.g. the gateway answered errors).
 */

const usage =
  'usage: npm run bench -- [--quick] [--only <scenario-id,...>] [--duration <seconds>] [--connections <n>] ' +
  '[--rounds <n>]';

function parseFlags() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      rounds: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  const positive = (value: string | undefined, name: string) => {
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed <= 0)
      throw new Error(`--${name} must be a positive number\n${usage}`);
    return parsed;
  };
  const rounds = (value: string | undefined) => {
    const parsed = positive(value, 'rounds');
    if (parsed !== undefined && (!Number.isInteger(parsed) || parsed < 2)) {
      throw new Error(`--rounds must be a whole number of at least 2 (A/B/A/B)\n${usage}`);
    }
    return parsed;
  };
  const only = values.only
    ?.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return {
    quick: values.quick ?? false,
    only: only && only.length > 0 ? only : null,
    durationSeconds: positive(values.duration, 'duration') ?? (values.quick ? 2 : 10),
    connections: positive(values.connections, 'connections') ?? 10,
    httpRounds: rounds(values.rounds) ?? (values.quick ? 2 : 3),
  };
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

async function main(): Promise<number> {
  const flags = parseFlags();
  // SQLite first, then PostgreSQL: each store's servers are stopped before the other's are measured.
  const all: Scenario[] = [
    ...httpScenarios('sqlite'),
    ...fanoutScenarios(),
    gatheringScenario('sqlite'),
    gatheringScenario('sqlite', 'single', 'sonata-half'),
    ...tracingScenarios(),
    ...gatheringTracingScenarios(),
    orderScenario('sqlite'),
    ...httpScenarios('postgres'),
    gatheringScenario('postgres'),
    gatheringScenario('postgres', 'split'),
    orderScenario('postgres'),
    balancedListScenario(),
  ];
  const unknown = (flags.only ?? []).filter((id) => !all.some((scenario) => scenario.id === id));
  if (unknown.length > 0) {
    throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${all.map((s) => s.id).join(', ')}`);
  }
  const selected = flags.only ? all.filter((scenario) => flags.only?.includes(scenario.id)) : all;
  const machine = machineInfo();
  const startedAt = new Date();
  process.stdout.write(`${renderMachine(machine)}\n${ratioConvention}\n\n`);

  let postgres: Promise<PostgresDataset> | null = null;
  const dispose = async () => {
    for (const scenario of all) await scenario.dispose?.().catch(() => {});
    const started = postgres;
    postgres = null;
    if (started) await (await started.catch(() => null))?.stop();
  };
  const interrupt = () => {
    log('interrupted: stopping servers');
    void dispose().then(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);

  const measurements: Measurement[] = [];
  const summaries: ScenarioSummary[] = [];
  try {
    log('building the gateway as deployed (npm run build, without its type check)');
    buildGateway();
    const dataset = await loadDataset(log);
    const context: BenchContext = {
      quick: flags.quick,
      durationSeconds: flags.durationSeconds,
      connections: flags.connections,
      httpRounds: flags.httpRounds,
      dataset,
      postgres: () => {
        postgres ??= loadPostgresDataset(dataset, log);
        return postgres;
      },
      log,
    };
    let previous: Scenario | undefined;
    for (const scenario of selected) {
      // Servers shared within a group are stopped once the run moves on to another group.
      if (previous?.group !== undefined && previous.group !== scenario.group) {
        for (const done of all.filter((other) => other.group === previous?.group)) {
          await done.dispose?.().catch(() => {});
        }
      }
      previous = scenario;
      log(`${scenario.id}: ${scenario.title}`);
      let error: string | undefined;
      try {
        measurements.push(...(await scenario.run(context)));
      } catch (caught) {
        error = caught instanceof Error ? caught.message : String(caught);
        log(`${scenario.id} FAILED: ${error}`);
      }
      const summary = summariseScenario(scenario, measurements, error);
      summaries.push(summary);
      process.stdout.write(`${renderScenario(summary)}\n\n`);
    }
  } finally {
    await dispose();
  }

  const directory = join(repositoryRoot, 'bench/results');
  mkdirSync(directory, { recursive: true });
  const document = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    flags,
    machine,
    ratioConvention,
    summaries,
    measurements,
  };
  const json = `${JSON.stringify(document, null, 2)}\n`;
  const path = join(directory, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(path, json);
  writeFileSync(join(directory, 'latest.json'), json);
  const failed = summaries.filter((summary) => summary.error !== undefined);
  if (failed.length > 0) process.stdout.write(`FAILED: ${failed.map((summary) => summary.id).join(', ')}\n`);
  process.stdout.write(
    `results written to ${relative(process.cwd(), path)} (and bench/results/latest.json)\n`,
  );
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
