import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createApplication, createInstance } from '../../src/resolvers/operator.js';
import { createServices } from '../../src/server/services.js';
import { startTestRedis } from '../../test/helpers/redis-server.js';
import { waitUntil, watchCompletions } from '../lib/completion-watch.js';
import { monotonicMs } from '../lib/fanout-subscribers.js';
import { benchAddress, processCpuMs, requestJson, signIn, startGateway } from '../lib/gateway-session.js';
import type { GatheringBound } from '../lib/gathering-bound.js';
import {
  type GatheringSuppliers,
  type SupplierMix,
  startGatheringSuppliers,
} from '../lib/gathering-suppliers.js';
import { type ServerProcess, startServer, watchRss } from '../lib/process.js';
import { copyDataset } from '../lib/seed.js';
import { LatencyRecorder } from '../lib/stats.js';
import type { BenchContext, Measurement, Scenario } from '../lib/types.js';
import { type BenchStore, gatewayEnvironment } from './http-servers.js';

/**
 * How the gateway runs: `single` — one process serving the API and running the worker (the embedded
 * default); `split` — an API-only process (`GATHERING_WORKER=off`) and a worker process (`npm run worker`)
 * sharing the database and a Redis of the bench's own (issue 17's shared mode).
 */
export type GatheringDeployment = 'single' | 'split';

/** The gateway's processes of one run: the one clients speak to, and all of them for CPU and memory. */
interface Deployment {
  api: ServerProcess;
  processes: ServerProcess[];
  stop(): Promise<void>;
}

async function startDeployment(
  databaseUrl: string,
  deployment: GatheringDeployment,
  extraEnv: Record<string, string> = {},
): Promise<Deployment> {
  const workerEnv = { GATHERING_CONCURRENCY: String(workerConcurrency), ...extraEnv };
  if (deployment === 'single') {
    const api = await startGateway(databaseUrl, workerEnv);
    return { api, processes: [api], stop: () => api.stop() };
  }
  const redis = await startTestRedis();
  const started: ServerProcess[] = [];
  try {
    const shared = { REDIS_URL: redis.url, ...extraEnv };
    started.push(await startGateway(databaseUrl, { ...shared, GATHERING_WORKER: 'off' }));
    started.push(
      await startServer({
        script: 'src/worker-main.ts',
        readyPath: '/readyz',
        env: { ...gatewayEnvironment, DATABASE_URL: databaseUrl, ...shared, ...workerEnv },
      }),
    );
  } catch (error) {
    for (const child of started) await child.stop();
    await redis.stop();
    throw error;
  }
  const [api] = started as [ServerProcess, ServerProcess];
  return {
    api,
    processes: started,
    stop: async () => {
      for (const child of started) await child.stop();
      await redis.stop();
    },
  };
}

/*
 * Gathering (issue 8): N availability requests × 6 simulated sources answering in 50–400 ms — `http`
 * sources of the supplier simulator (docs/supplier-contract.md), or half of them deferred MEF Sonata sellers
 * (issue 18, see `gathering-suppliers.ts`) — against the bound that those very latencies and the
 * configured concurrency allow (`gatheringBound`). Wall time runs from the first POST to the moment the
 * last request is seen `COMPLETED` on a graphql-ws subscription opened before it.
 */

/** Worker pool size (`GATHERING_CONCURRENCY`). */
const workerConcurrency = 64;
/**
 * Calls in flight per source (its bulkhead). 6 × 16 = 96 > 64, so the worker pool, not a source, is
 * meant to be the binding limit; the bound takes both into account whichever binds.
 */
const sourceConcurrency = 16;
const batchSize = 100;
/** The run ends when no event arrived for this long (ms) with requests still unfinished. */
const idleLimitMs = 30_000;

/**
 * Creates a fresh instance with the sources of `suppliers` in the database at `path` (through the
 * operator resolvers the CLI uses), and client credentials for it.
 */
async function setUpInstance(path: string, code: string, suppliers: GatheringSuppliers) {
  const services = await createServices(loadConfig({ DATABASE_URL: path, SEED_DEMO: 'false' }), {
    logger: createLogger('silent'),
  });
  try {
    await createInstance(services, { name: `Gathering bench ${code}`, code });
    await suppliers.register(services, code);
    return await createApplication(services, { instance: code, roles: ['connectivity_check'] });
  } finally {
    await services.db.close();
  }
}

/** What one gathering run measured; times in ms. */
export interface GatheringRun {
  requests: number;
  wallMs: number;
  bound: GatheringBound;
  latency: LatencyRecorder;
  /** Requests never seen completed on the stream, and of those, the ones the database has completed. */
  missing: number;
  lostCompletions: number;
  events: number;
  subscriptionErrors: number;
  peakRssMiB: number | null;
  /** CPU time the gateway used from the first POST to the last completion. */
  serverCpuMs: number | null;
  supplierP50Ms: number | null;
  supplierP99Ms: number | null;
}

/** A private copy of the seeded database: a SQLite file, or a PostgreSQL database (see `postgres.ts`). */
async function databaseCopy(
  context: BenchContext,
  store: BenchStore,
): Promise<{ url: string; remove(): Promise<void> }> {
  if (store === 'postgres') return (await context.postgres()).copy();
  const copy = copyDataset(context.dataset);
  return { url: copy.path, remove: async () => copy.remove() };
}

export async function gatheringRun(
  context: BenchContext,
  store: BenchStore,
  deployment: GatheringDeployment,
  mix: SupplierMix,
  requests: number,
  runIndex: number,
  /** Environment on top of the gateway's (e.g. tracing's `OTEL_*`, `bench/scenarios/tracing.ts`). */
  extraEnv: Record<string, string> = {},
): Promise<GatheringRun> {
  const database = await databaseCopy(context, store);
  const suppliers = await startGatheringSuppliers(mix, sourceConcurrency);
  const code = `GATH${'ABCDEFGHIJ'[runIndex] ?? 'X'}`;
  try {
    const credentials = await setUpInstance(database.url, code, suppliers);
    const running = await startDeployment(database.url, deployment, extraEnv);
    const server = running.api;
    const cpuOfAll = () => {
      const each = running.processes.map((child) => processCpuMs(child.pid));
      return each.some((ms) => ms === null) ? null : each.reduce<number>((sum, ms) => sum + (ms ?? 0), 0);
    };
    try {
      const token = await signIn(server.url, credentials.clientId, credentials.clientSecret);
      const watch = await watchCompletions(`${server.url.replace('http', 'ws')}/graphql`, token);
      try {
        const create = (addresses: number[]) =>
          requestJson(`${server.url}/availability-requests`, {
            token,
            body: addresses.map((index) => ({ address: benchAddress(index) })),
            expect: 201,
          }).then(({ body }) => (body.data as { id: string }[]).map((created) => created.id));
        // Warm-up: one request through the whole path (and the subscription proven live), then forgotten.
        const [warmUpId = ''] = await create([0]);
        await waitUntil(() => watch.completedAt.has(warmUpId), 30_000);
        if (!watch.completedAt.has(warmUpId)) context.log('  warm-up request not seen completed within 30 s');
        suppliers.reset();

        const rss = running.processes.map((child) => watchRss(child.pid));
        const cpuBefore = cpuOfAll();
        const submittedAt = new Map<string, number>();
        const firstPostAt = monotonicMs();
        for (let start = 0; start < requests; start += batchSize) {
          const postedAt = monotonicMs();
          const indexes = Array.from(
            { length: Math.min(batchSize, requests - start) },
            (_, k) => start + k + 1,
          );
          for (const id of await create(indexes)) submittedAt.set(id, postedAt);
        }
        context.log(
          `  ${requests} requests submitted in ${((monotonicMs() - firstPostAt) / 1000).toFixed(1)} s`,
        );
        const done = () => [...submittedAt.keys()].every((id) => watch.completedAt.has(id));
        await waitUntil(done, 600_000, () => monotonicMs() - watch.lastEventAt() > idleLimitMs);
        // The sum of each process's own peak: an upper bound of what they held at once.
        const peaks = rss.map((watch) => watch.stop());
        const peakRssMiB = peaks.some((peak) => peak === null)
          ? null
          : peaks.reduce<number>((sum, peak) => sum + (peak ?? 0), 0);
        const cpuAfter = cpuOfAll();

        const latency = new LatencyRecorder();
        let lastCompletion = firstPostAt;
        const missingIds: string[] = [];
        for (const [id, postedAt] of submittedAt) {
          const completed = watch.completedAt.get(id);
          if (completed === undefined) missingIds.push(id);
          else {
            latency.record(completed - postedAt);
            lastCompletion = Math.max(lastCompletion, completed);
          }
        }
        let lostCompletions = 0;
        for (const id of missingIds) {
          const { body } = await requestJson(`${server.url}/availability-requests/${id}`, { token });
          if (body.data?.status === 'completed') lostCompletions += 1;
        }
        const supplier = new LatencyRecorder();
        for (const ms of suppliers.callMs()) supplier.record(ms);
        return {
          requests,
          wallMs: lastCompletion - firstPostAt,
          bound: suppliers.bound({
            concurrency: workerConcurrency,
            perSourceConcurrency: sourceConcurrency,
          }),
          latency,
          missing: missingIds.length,
          lostCompletions,
          events: watch.events(),
          subscriptionErrors: watch.errors(),
          peakRssMiB,
          serverCpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
          supplierP50Ms: supplier.percentileMs(50),
          supplierP99Ms: supplier.percentileMs(99),
        };
      } finally {
        watch.close();
      }
    } finally {
      await running.stop();
    }
  } finally {
    await suppliers.stop();
    await database.remove();
  }
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The two rows of one run of scenario `scenario`: the bound (baseline) and the gateway's wall time. */
function measurements(
  scenario: string,
  deployment: GatheringDeployment,
  run: GatheringRun,
  round: number,
): Measurement[] {
  const { bound } = run;
  const perSecond = (ms: number) => (ms > 0 ? round2((run.requests * 1000) / ms) : null);
  return [
    {
      scenario,
      role: 'baseline',
      label: 'bound: supplier latency (and Sonata processing) ÷ concurrency',
      round,
      throughput: perSecond(bound.boundMs),
      throughputUnit: 'req/s',
      p50Ms: null,
      p99Ms: null,
      peakRssMiB: null,
      errors: 0,
      extra: {
        boundMs: Math.round(bound.boundMs),
        globalTermMs: Math.round(bound.globalTermMs),
        perSourceTermMs: Math.round(bound.perSourceTermMs),
        longestCallMs: Math.round(bound.longestCallMs),
        supplierCalls: bound.calls,
        ...(run.supplierP50Ms === null ? {} : { supplierP50Ms: run.supplierP50Ms }),
        ...(run.supplierP99Ms === null ? {} : { supplierP99Ms: run.supplierP99Ms }),
      },
    },
    {
      scenario,
      role: 'gateway',
      label:
        deployment === 'single'
          ? `gateway, GATHERING_CONCURRENCY=${workerConcurrency}, ${sourceConcurrency}/source`
          : `API process + worker process + Redis, GATHERING_CONCURRENCY=${workerConcurrency}, ${sourceConcurrency}/source`,
      round: round + 1,
      throughput: perSecond(run.wallMs),
      throughputUnit: 'req/s',
      p50Ms: run.latency.percentileMs(50),
      p99Ms: run.latency.percentileMs(99),
      peakRssMiB: run.peakRssMiB === null ? null : Math.round(run.peakRssMiB),
      errors: run.missing + run.subscriptionErrors,
      extra: {
        requests: run.requests,
        wallMs: Math.round(run.wallMs),
        boundMs: Math.round(bound.boundMs),
        wallToBound: bound.boundMs > 0 ? round2(run.wallMs / bound.boundMs) : 0,
        missingCompletions: run.missing,
        lostCompletions: run.lostCompletions,
        events: run.events,
        supplierCalls: bound.calls,
        ...(run.serverCpuMs === null ? {} : { serverCpuMs: run.serverCpuMs }),
      },
    },
  ];
}

/**
 * The gathering scenario of issue 8 on one store (`gathering` on SQLite, `pg-gathering` on PostgreSQL,
 * issue 16), on PostgreSQL also split into an API process and a worker process with Redis
 * (`pg-gathering-split`, issue 17), and with half the sources deferred MEF Sonata sellers
 * (`gathering-sonata` on SQLite, issue 18): 1,000 requests (150 with `--quick`) × 6 simulated sources.
 * Each run uses a fresh database copy, instance and simulators and yields two rows: the bound computed
 * from that run's own supplier latencies (baseline) and the gateway's wall time — twice (bound, run,
 * bound, run), once with `--quick`. Per-request p50/p99 is from a request's POST to its completion event;
 * CPU and peak RSS are the sums over the gateway's processes.
 */
export function gatheringScenario(
  store: BenchStore,
  deployment: GatheringDeployment = 'single',
  mix: SupplierMix = 'http',
): Scenario {
  const id = `${store === 'sqlite' ? 'gathering' : 'pg-gathering'}${deployment === 'split' ? '-split' : ''}${mix === 'sonata-half' ? '-sonata' : ''}`;
  const where =
    store === 'sqlite'
      ? ''
      : deployment === 'split'
        ? 'PostgreSQL, API + worker processes: '
        : 'PostgreSQL: ';
  const sources =
    mix === 'http'
      ? '6 simulated sources (50–400 ms)'
      : '3 http + 3 deferred MEF Sonata sources (50–400 ms a call, 300 ms a POQ or Quote)';
  const limit = mix === 'http' ? 1.2 : 1.3;
  return {
    id,
    title: `${where}Gathering: requests × ${sources}, wall time vs latency/concurrency bound`,
    target: `wall ≤ ${limit} × bound, no completion event lost`,
    goals: [
      { metric: 'extra:wallToBound', atMost: limit },
      { metric: 'extra:missingCompletions', atMost: 0 },
    ],
    async run(context) {
      const requests = context.quick ? 150 : 1000;
      const runs = context.quick ? 1 : 2;
      const rows: Measurement[] = [];
      for (let index = 0; index < runs; index += 1) {
        context.log(`${id} run ${index + 1}: ${requests} requests × ${sources}`);
        const run = await gatheringRun(context, store, deployment, mix, requests, index + 1);
        context.log(
          `  wall ${(run.wallMs / 1000).toFixed(2)} s, bound ${(run.bound.boundMs / 1000).toFixed(2)} s ` +
            `(×${(run.wallMs / run.bound.boundMs).toFixed(2)}), ${run.missing} missing, ${run.bound.calls} calls`,
        );
        rows.push(...measurements(id, deployment, run, index * 2 + 1));
      }
      return rows;
    },
  };
}
