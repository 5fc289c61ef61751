import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createApplication, createInstance } from '../../src/resolvers/operator.js';
import { createServices } from '../../src/server/services.js';
import { waitUntil } from '../lib/completion-watch.js';
import { monotonicMs } from '../lib/fanout-subscribers.js';
import { processCpuMs, requestJson, signIn, startGateway } from '../lib/gateway-session.js';
import type { OrderBound } from '../lib/order-bound.js';
import { prepareOrderQuotes } from '../lib/order-quotes.js';
import {
  type OrderSellers,
  orderProcessingMs,
  orderSellers,
  startOrderSellers,
} from '../lib/order-sellers.js';
import { watchOrders } from '../lib/order-watch.js';
import { watchRss } from '../lib/process.js';
import { copyDataset } from '../lib/seed.js';
import { LatencyRecorder } from '../lib/stats.js';
import type { BenchContext, Measurement, Scenario } from '../lib/types.js';
import type { BenchStore } from './http-servers.js';

/*
 * Orders (issue 36, item 5): 200 quotes of three lines each — one product of each of three deferred MEF
 * Sonata sellers — ordered at once, each order three supplier orders the order worker places and polls until
 * the sellers complete them, against the bound those sellers' latencies and the configured concurrency allow
 * (`orderBound`). Wall time runs from the first `POST /orders` to the moment the last order is seen
 * `COMPLETED` on a graphql-ws `orderUpdated` subscription opened before it.
 */

/** The order worker's pool (`GATHERING_CONCURRENCY`), as the gathering scenarios run it. */
const workerConcurrency = 64;
/** Calls in flight per seller (its bulkhead, `sources.concurrency`), as the gathering scenarios' sources. */
const sourceConcurrency = 16;
const orderCount = 200;
/** The run ends when no event arrived for this long (ms) with orders still open. */
const idleLimitMs = 30_000;

/** What one order run measured; times in ms. */
interface OrderRun {
  orders: number;
  wallMs: number;
  /** From the first `POST /orders` to the last one's answer. */
  placeMs: number;
  bound: OrderBound;
  latency: LatencyRecorder;
  /** Orders never seen `COMPLETED`; of those, the ones the gateway has completed (their event was lost). */
  missing: number;
  lostCompletions: number;
  /** Orders that ended otherwise than completed (seen on the stream or read afterwards). */
  notCompleted: number;
  events: number;
  subscriptionErrors: number;
  supplierOrders: number;
  reads: number;
  peakRssMiB: number | null;
  serverCpuMs: number | null;
  supplierP50Ms: number | null;
  supplierP99Ms: number | null;
}

/** A private copy of the seeded database: a SQLite file, or a PostgreSQL database (see `postgres.ts`). */
async function databaseCopy(context: BenchContext, store: BenchStore) {
  if (store === 'postgres') return (await context.postgres()).copy();
  const copy = copyDataset(context.dataset);
  return { url: copy.path, remove: async () => copy.remove() };
}

/**
 * Creates a fresh instance with the sellers' sources in the database at `url` (through the operator
 * resolvers the CLI uses) and client credentials that may gather, quote and order.
 */
async function setUpInstance(url: string, code: string, sellers: OrderSellers) {
  const services = await createServices(loadConfig({ DATABASE_URL: url, SEED_DEMO: 'false' }), {
    logger: createLogger('silent'),
  });
  try {
    await createInstance(services, { name: `Order bench ${code}`, code });
    await sellers.register(services, code);
    return await createApplication(services, { instance: code, roles: ['connectivity_check', 'ordering'] });
  } finally {
    await services.db.close();
  }
}

async function orderRun(context: BenchContext, store: BenchStore, runIndex: number): Promise<OrderRun> {
  const database = await databaseCopy(context, store);
  const sellers = await startOrderSellers({ concurrency: sourceConcurrency });
  try {
    const credentials = await setUpInstance(database.url, `ORDR${'ABCDEFGHIJ'[runIndex] ?? 'X'}`, sellers);
    const server = await startGateway(database.url, { GATHERING_CONCURRENCY: String(workerConcurrency) });
    try {
      const token = await signIn(server.url, credentials.clientId, credentials.clientSecret);
      const prepared = monotonicMs();
      // One quote more than measured: the warm-up's.
      const [warmUpQuote = '', ...quoteIds] = await prepareOrderQuotes(server.url, token, orderCount + 1, 1);
      context.log(
        `  ${orderCount + 1} quotes of ${orderSellers.length} Sonata lines prepared in ` +
          `${((monotonicMs() - prepared) / 1000).toFixed(1)} s`,
      );
      const watch = await watchOrders(`${server.url.replace('http', 'ws')}/graphql`, token);
      try {
        const place = async (quoteId: string) => {
          const at = monotonicMs();
          const { body } = await requestJson(`${server.url}/orders`, {
            token,
            body: { quote_id: quoteId },
            expect: 201,
          });
          const lines = body.data.lines as { fulfilment: string }[];
          if (lines.length !== orderSellers.length || lines.some((line) => line.fulfilment !== 'supplier'))
            throw new Error(`order ${body.data.id} is not ${orderSellers.length} supplier lines`);
          return { id: body.data.id as string, at, answeredAt: monotonicMs() };
        };
        // Warm-up: one order through the whole path (tokens fetched, the subscription proven live).
        const warmUp = await place(warmUpQuote);
        await waitUntil(() => watch.endedAt.has(warmUp.id), 30_000);
        if (!watch.endedAt.has(warmUp.id)) context.log('  warm-up order not seen ended within 30 s');
        sellers.reset();

        const rss = watchRss(server.pid);
        const cpuBefore = processCpuMs(server.pid);
        const firstPostAt = monotonicMs();
        const firstPostPerf = performance.now();
        const placed = await Promise.all(quoteIds.map(place));
        const placeMs = monotonicMs() - firstPostAt;
        context.log(`  ${placed.length} orders placed in ${(placeMs / 1000).toFixed(2)} s`);
        const done = () => placed.every((order) => watch.endedAt.has(order.id));
        await waitUntil(done, 600_000, () => monotonicMs() - watch.lastEventAt() > idleLimitMs);
        const peakRssMiB = rss.stop();
        const cpuAfter = processCpuMs(server.pid);

        const latency = new LatencyRecorder();
        let lastCompletion = firstPostAt;
        let notCompleted = 0;
        const missingIds: string[] = [];
        for (const order of placed) {
          const ended = watch.endedAt.get(order.id);
          if (ended?.status === 'COMPLETED') {
            latency.record(ended.at - order.at);
            lastCompletion = Math.max(lastCompletion, ended.at);
          } else if (ended) notCompleted += 1;
          else missingIds.push(order.id);
        }
        let lostCompletions = 0;
        for (const id of missingIds) {
          const { body } = await requestJson(`${server.url}/orders/${id}`, { token });
          if (body.data?.status === 'completed') lostCompletions += 1;
          else notCompleted += 1;
        }
        const calls = sellers.calls();
        if (process.env.BENCH_TIMELINE) {
          writeTimeline(process.env.BENCH_TIMELINE, store, runIndex, {
            calls: calls.map((call) => ({ ...call, at: (call.at ?? Number.NaN) - firstPostPerf })),
            orders: placed.map((order) => ({
              postedAt: order.at - firstPostAt,
              answeredAt: order.answeredAt - firstPostAt,
              endedAt: (watch.endedAt.get(order.id)?.at ?? Number.NaN) - firstPostAt,
            })),
          });
        }
        const supplier = new LatencyRecorder();
        for (const call of calls) if (call.kind !== 'other') supplier.record(call.ms);
        return {
          orders: placed.length,
          wallMs: lastCompletion - firstPostAt,
          placeMs,
          bound: sellers.bound(workerConcurrency),
          latency,
          missing: missingIds.length,
          lostCompletions,
          notCompleted,
          events: watch.events(),
          subscriptionErrors: watch.errors(),
          supplierOrders: calls.filter((call) => call.kind === 'create').length,
          reads: calls.filter((call) => call.kind === 'read').length,
          peakRssMiB,
          serverCpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
          supplierP50Ms: supplier.percentileMs(50),
          supplierP99Ms: supplier.percentileMs(99),
        };
      } finally {
        watch.close();
      }
    } finally {
      await server.stop();
    }
  } finally {
    await sellers.stop();
    await database.remove();
  }
}

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The two rows of one run: the bound (baseline) and the gateway's wall time. */
function measurements(scenario: string, run: OrderRun, round: number): Measurement[] {
  const { bound } = run;
  const perSecond = (ms: number) => (ms > 0 ? round2((run.orders * 1000) / ms) : null);
  return [
    {
      scenario,
      role: 'baseline',
      label: 'bound: seller calls ÷ concurrency, or the longest placement → completed → read chain',
      round,
      throughput: perSecond(bound.boundMs),
      throughputUnit: 'orders/s',
      p50Ms: null,
      p99Ms: null,
      peakRssMiB: null,
      errors: 0,
      extra: {
        boundMs: Math.round(bound.boundMs),
        globalTermMs: Math.round(bound.globalTermMs),
        perSourceTermMs: Math.round(bound.perSourceTermMs),
        longestChainMs: Math.round(bound.longestCallMs),
        neededCalls: bound.calls,
        ...(run.supplierP50Ms === null ? {} : { supplierP50Ms: run.supplierP50Ms }),
        ...(run.supplierP99Ms === null ? {} : { supplierP99Ms: run.supplierP99Ms }),
      },
    },
    {
      scenario,
      role: 'gateway',
      label: `gateway, GATHERING_CONCURRENCY=${workerConcurrency}, ${sourceConcurrency}/seller`,
      round: round + 1,
      throughput: perSecond(run.wallMs),
      throughputUnit: 'orders/s',
      p50Ms: run.latency.percentileMs(50),
      p99Ms: run.latency.percentileMs(99),
      peakRssMiB: run.peakRssMiB === null ? null : Math.round(run.peakRssMiB),
      errors: run.missing + run.notCompleted + run.subscriptionErrors,
      extra: {
        orders: run.orders,
        wallMs: Math.round(run.wallMs),
        placeMs: Math.round(run.placeMs),
        boundMs: Math.round(bound.boundMs),
        wallToBound: bound.boundMs > 0 ? round2(run.wallMs / bound.boundMs) : 0,
        missingCompletions: run.missing + run.notCompleted,
        lostCompletions: run.lostCompletions,
        events: run.events,
        supplierOrders: run.supplierOrders,
        readsPerSupplierOrder: run.supplierOrders > 0 ? round2(run.reads / run.supplierOrders) : 0,
        extraReads: bound.extraReads,
        lookups: bound.lookups,
        ...(run.serverCpuMs === null ? {} : { serverCpuMs: run.serverCpuMs }),
      },
    },
  ];
}

/**
 * The order scenario of issue 36 on one store (`order-sonata` on SQLite, `pg-order-sonata` on PostgreSQL):
 * 200 orders of three lines, one per deferred Sonata seller (kpn-weas, colt, ziggo of the simulator: every
 * call 50–400 ms, an order completed 999 ms — three 333 ms steps — after the seller acknowledged it), placed
 * at once with `POST /orders` after their quotes were prepared (not timed). The gateway runs as deployed
 * with `GATHERING_CONCURRENCY=64`, 16 calls per seller, a 30 s source timeout and the adapter's default poll
 * back-off (250 ms, doubling, at most 5 s). Each run uses a fresh database copy, instance and seller and yields two rows: the
 * bound computed from that run's own seller latencies (baseline) and the gateway's wall time — twice
 * (bound, run, bound, run), once with `--quick`.
 *
 * The bound ({@link orderBound}), with every latency as the seller recorded it in that run:
 *
 *   needed calls = per supplier order: its placement, one read at the mean of its seller's reads, its
 *                  product read(s)
 *   bound = max( Σ needed ÷ 64, max over sellers ( Σ needed of the seller ÷ 16 ),
 *                max over supplier orders ( placement + 999 ms + mean read + mean product read ) )
 *
 * — a buyer told the very moment each order is done, reading it once: polls that found an order still open
 * count against the gateway. Per-order p50/p99 is from an order's `POST /orders` to its `COMPLETED` event.
 * Target: wall ≤ 1.3 × bound, and every order's `COMPLETED` event received (a completion the gateway has
 * but the subscriber lacks is a lost event; an order not completed fails the run too).
 */
export function orderScenario(store: BenchStore): Scenario {
  const id = store === 'sqlite' ? 'order-sonata' : 'pg-order-sonata';
  const limit = 1.3;
  return {
    id,
    title: `${store === 'sqlite' ? '' : 'PostgreSQL: '}Orders: ${orderCount} × 3 lines at deferred MEF Sonata sellers (50–400 ms a call, done ${orderProcessingMs} ms after acknowledged), wall time vs bound`,
    target: `wall ≤ ${limit} × bound, no order completion event lost`,
    goals: [
      { metric: 'extra:wallToBound', atMost: limit },
      { metric: 'extra:missingCompletions', atMost: 0 },
    ],
    async run(context) {
      const runs = context.quick ? 1 : 2;
      const rows: Measurement[] = [];
      for (let index = 0; index < runs; index += 1) {
        context.log(`${id} run ${index + 1}: ${orderCount} orders × ${orderSellers.length} Sonata sellers`);
        const run = await orderRun(context, store, index + 1);
        const { bound } = run;
        context.log(
          `  wall ${(run.wallMs / 1000).toFixed(2)} s, bound ${(bound.boundMs / 1000).toFixed(2)} s ` +
            `(×${(run.wallMs / bound.boundMs).toFixed(2)}; terms ${(bound.globalTermMs / 1000).toFixed(2)} / ` +
            `${(bound.perSourceTermMs / 1000).toFixed(2)} / ${(bound.longestCallMs / 1000).toFixed(2)} s), ` +
            `${run.missing} missing, ${run.notCompleted} not completed, ${run.supplierOrders} supplier orders, ` +
            `${run.reads} reads, ${bound.lookups} lookups; load average ${loadavg()[0]?.toFixed(1)}`,
        );
        rows.push(...measurements(id, run, index * 2 + 1));
      }
      return rows;
    },
  };
}

/**
 * `BENCH_TIMELINE=<prefix>`: writes a run's seller calls (kind, source, start and length, ms from the first
 * `POST /orders`) and each order's post, answer and `COMPLETED` times to `<prefix>-<store>-<run>.json`, to see
 * when the sellers' bulkheads were not full.
 */
function writeTimeline(prefix: string, store: BenchStore, runIndex: number, timeline: unknown): void {
  writeFileSync(`${prefix}-${store}-${runIndex}.json`, JSON.stringify(timeline));
}
