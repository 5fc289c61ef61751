import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type HttpLoad, measureLoad, runLoad } from '../lib/load.js';
import { type ServerProcess, startServer, whilePaused } from '../lib/process.js';
import { copyDataset } from '../lib/seed.js';
import type { BenchContext, Measurement, Scenario } from '../lib/types.js';
import { gatheringRun } from './gathering.js';
import { gatewayEnvironment, signIn } from './http-servers.js';

/*
 * What tracing costs (issue 37): the rest-list load on the gateway with OpenTelemetry tracing on — every
 * trace sampled, or one in ten (`parentbased_traceidratio`, 0.1) — against the same gateway without tracing,
 * A/B in the same run. The traced gateways export over OTLP/HTTP (protobuf, the default) to a sink in the
 * bench process that answers every export with 200: what is measured is the gateway's own cost (spans,
 * context, the batch exporter's encoding and sends), not a collector's. Three reference subjects without a goal
 * split that cost (see `tracingSubjects`).
 */

const listPath = '/availability-requests?page_size=25';
const restListShape = (body: string) => body.startsWith('{"data":[{"id":"avr_') && body.endsWith('}}');

/** The servers the tracing scenarios share: one gateway without tracing, and one per subject. */
interface TracingServers {
  untraced: ServerProcess;
  subjects: Map<string, ServerProcess>;
  tokens: Map<ServerProcess, string>;
}

/** A gateway measured against the untraced one: how it is started, and what it is held to. */
interface TracingSubject {
  id: string;
  title: string;
  label: string;
  env: Record<string, string>;
  nodeArgs?: string[];
  target: string;
  /** The throughput ratio's bounds (issue 47: at least, and for the A/A check at most too). */
  goal?: { atLeast: number; atMost?: number };
}

/** The OTLP sink: accepts `POST /v1/traces` and answers 200 with an empty export response. */
async function startOtlpSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    request.resume();
    request.once('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ratios = [1, 0.1] as const;

/** The traced environment at `ratio` of traces sampled, exporting to `sinkUrl`. */
const tracedEnv = (sinkUrl: string, ratio: number): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
  OTEL_SERVICE_NAME: `gateway-bench-${ratio}`,
  OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
  OTEL_TRACES_SAMPLER_ARG: String(ratio),
});

/**
 * The subjects: the two issue 47 sets goals for on Node 24 (every trace sampled ≥ 0.80 × untraced, one in ten
 * ≥ 0.85), an A/A check (a second gateway without tracing configured: nothing of the SDK loads, so it must be
 * within noise of the first, 0.95–1.05), and three references without a goal that show where the cost of
 * tracing lies — tracing at one in ten without the HTTP
 * instrumentation (`OTEL_NODE_DISABLED_INSTRUMENTATIONS=http`: the SDK, its context manager and the other
 * instrumentations, but no server span), tracing with the HTTP instrumentation on and no trace sampled
 * (`always_off`: nothing recorded or exported, so no sampling rate can cost less), and an AsyncLocalStorage store per request without any tracing
 * (`./lib/async-context-per-request.mjs`): the floor of carrying a context at all on this Node version.
 */
const tracingSubjects = (sinkUrl: string): TracingSubject[] => [
  ...ratios.map((ratio) => ({
    id: `rest-list-tracing-${Math.round(ratio * 100)}`,
    title: `rest-list with OpenTelemetry tracing, ${ratio * 100} % of traces sampled, against the same gateway untraced`,
    label: `gateway REST, traced (${ratio * 100} %)`,
    env: tracedEnv(sinkUrl, ratio),
    target: ratio === 1 ? 'traced ≥ 0.80 × untraced' : 'traced ≥ 0.85 × untraced',
    goal: { atLeast: ratio === 1 ? 0.8 : 0.85 },
  })),
  {
    id: 'rest-list-untraced-aa',
    title:
      'rest-list on a second gateway without tracing configured, against the first (A/A: nothing of the SDK is loaded)',
    label: 'gateway REST, untraced (second copy)',
    env: {},
    target: 'within noise of the first: 0.95–1.05 × untraced',
    goal: { atLeast: 0.95, atMost: 1.05 },
  },
  {
    id: 'rest-list-tracing-10-no-http',
    title:
      'rest-list with tracing at 10 % but without the HTTP instrumentation (no server spans), against the same gateway untraced',
    label: 'gateway REST, traced (10 %), no http instrumentation',
    env: { ...tracedEnv(sinkUrl, 0.1), OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'http' },
    target: 'reference: the cost of tracing without server spans',
  },
  {
    id: 'rest-list-tracing-off',
    title:
      'rest-list with tracing on but no trace sampled (sampler always_off, the HTTP instrumentation on), against the same gateway untraced',
    label: 'gateway REST, traced (0 %), http instrumentation on',
    env: { ...tracedEnv(sinkUrl, 0), OTEL_TRACES_SAMPLER: 'always_off' },
    target: 'reference: the floor of the HTTP instrumentation, below any sampling rate',
  },
  {
    id: 'rest-list-async-context',
    title:
      'rest-list with an AsyncLocalStorage store entered per request and no tracing, against the same gateway without it',
    label: 'gateway REST, AsyncLocalStorage per request',
    env: {},
    nodeArgs: ['--import', './bench/lib/async-context-per-request.mjs'],
    target: 'reference: the floor of carrying a context through a request',
  },
];

/**
 * The rest-list scenarios of {@link tracingSubjects} on SQLite (`rest-list-tracing-100`, `-10`, the A/A check
 * and the three references): each subject gateway against the untraced one (baseline), `httpRounds` A/B
 * rounds after a warm-up of both, every other server paused while one is measured. They share their servers
 * (group `tracing`), each gateway on its own copy of the dataset.
 */
export function tracingScenarios(): Scenario[] {
  let running: Promise<TracingServers> | null = null;
  const cleanups: (() => Promise<void> | void)[] = [];
  const start = async (context: BenchContext): Promise<TracingServers> => {
    const instance = context.dataset.instances.find((candidate) => candidate.code === 'BENCHA');
    if (!instance) throw new Error('the dataset has no BENCHA instance');
    const sink = await startOtlpSink();
    cleanups.push(() => sink.close());
    const gateway = async (env: Record<string, string>, nodeArgs?: string[]) => {
      const copy = copyDataset(context.dataset);
      cleanups.push(copy.remove);
      const server = await startServer({
        script: 'src/main.ts',
        env: { ...gatewayEnvironment, DATABASE_URL: copy.path, ...env },
        ...(nodeArgs ? { nodeArgs } : {}),
        readyPath: '/readyz',
      });
      cleanups.push(() => server.stop());
      return server;
    };
    context.log('tracing: starting a gateway without tracing and one per subject');
    const untraced = await gateway({});
    const subjects = new Map<string, ServerProcess>();
    for (const subject of tracingSubjects(sink.url))
      subjects.set(subject.id, await gateway(subject.env, subject.nodeArgs));
    const tokens = new Map<ServerProcess, string>();
    for (const server of [untraced, ...subjects.values()])
      tokens.set(server, await signIn(server.url, instance));
    return { untraced, subjects, tokens };
  };
  const dispose = async () => {
    running = null;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  // The sink's URL is not known before the servers start; ids, titles and goals do not depend on it.
  return tracingSubjects('').map(({ id, title, label, target, goal }) => {
    return {
      id,
      title,
      target,
      ...(goal === undefined ? {} : { goals: [{ metric: 'throughputRatio' as const, ...goal }] }),
      group: 'tracing',
      dispose,
      run: async (context) => {
        running ??= start(context);
        const servers = await running;
        const subject = servers.subjects.get(id) as ServerProcess;
        const all = [servers.untraced, ...servers.subjects.values()];
        const load = (server: ServerProcess): HttpLoad => ({
          method: 'GET',
          path: listPath,
          headers: { 'x-auth-token': servers.tokens.get(server) ?? '' },
          verifyBody: restListShape,
        });
        const connections = context.connections;
        // Both warmed alike right before the rounds, each alone: a subject left idle through the other
        // scenarios' rounds started slow (its first round at half its second in a --quick run), and a
        // subject warmed only before its own rounds met a baseline that had served all the rounds before.
        for (const server of [servers.untraced, subject])
          await whilePaused(
            all.filter((other) => other !== server),
            () => runLoad(server.url, load(server), { durationSeconds: context.quick ? 2 : 5, connections }),
          );
        const measurements: Measurement[] = [];
        for (let round = 1; round <= context.httpRounds; round++) {
          for (const role of ['baseline', 'gateway'] as const) {
            const server = role === 'baseline' ? servers.untraced : subject;
            const measurement = await whilePaused(
              all.filter((other) => other !== server),
              () =>
                measureLoad(
                  {
                    scenario: id,
                    role,
                    label: role === 'baseline' ? 'gateway REST, untraced' : label,
                    round,
                    server,
                  },
                  load(server),
                  { durationSeconds: context.durationSeconds, connections },
                ),
            );
            context.log(`${id}: round ${round} ${role}: ${measurement.throughput?.toFixed(0)} req/s`);
            measurements.push(measurement);
          }
        }
        return measurements;
      },
    };
  });
}

/**
 * `gathering-tracing-100` and `gathering-tracing-10` on SQLite: the gathering scenario's run (one process,
 * http suppliers) without tracing, then with it (every trace, or one in ten, exported to a sink), on fresh
 * copies of the dataset; the throughput is requests gathered a second over the wall time from the first
 * POST to the last completion event, so the ratio is the traced run's against the untraced one's.
 */
export function gatheringTracingScenarios(): Scenario[] {
  return ratios.map((ratio) => {
    const id = `gathering-tracing-${Math.round(ratio * 100)}`;
    return {
      id,
      title: `gathering with OpenTelemetry tracing, ${ratio * 100} % of traces sampled, against the same run untraced`,
      target: 'traced ≥ 0.95 × untraced',
      goals: [{ metric: 'throughputRatio', atLeast: 0.95 }],
      run: async (context) => {
        const requests = context.quick ? 150 : 1000;
        const sink = await startOtlpSink();
        try {
          const rows: Measurement[] = [];
          for (const role of ['baseline', 'gateway'] as const) {
            const env: Record<string, string> =
              role === 'baseline'
                ? {}
                : {
                    OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
                    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
                    OTEL_TRACES_SAMPLER_ARG: String(ratio),
                  };
            const run = await gatheringRun(
              context,
              'sqlite',
              'single',
              'http',
              requests,
              role === 'baseline' ? 1 : 2,
              env,
            );
            context.log(
              `${id} ${role}: ${requests} requests in ${(run.wallMs / 1000).toFixed(2)} s, ${run.missing} missing`,
            );
            rows.push({
              scenario: id,
              role,
              label: role === 'baseline' ? 'gathering, untraced' : `gathering, traced (${ratio * 100} %)`,
              round: 1,
              throughput: (requests * 1000) / run.wallMs,
              throughputUnit: 'requests/s',
              p50Ms: null,
              p99Ms: null,
              peakRssMiB: run.peakRssMiB,
              errors: run.missing,
              extra: {
                wallMs: Math.round(run.wallMs),
                boundMs: Math.round(run.bound.boundMs),
                missing: run.missing,
              },
            });
          }
          return rows;
        } finally {
          await sink.close();
        }
      },
    };
  });
}
