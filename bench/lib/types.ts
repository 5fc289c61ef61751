/**
 * Shapes shared by the benchmark harness (`npm run bench`), its scenarios and its report.
 *
 * Every scenario measures a *subject* (the gateway) and a *baseline* (a raw server doing the same work)
 * in the same run, alternating A/B/A/B, so the ratio between them is what a reader compares across
 * machines — absolute figures are not comparable between runs.
 */

/** One measured run of one server under one load. */
export interface Measurement {
  /** Scenario id, e.g. `rest-list`. */
  scenario: string;
  /** `baseline` (A) or `gateway` (B). */
  role: 'baseline' | 'gateway';
  /** What ran, e.g. `raw node:http + better-sqlite3` or `gateway REST`. */
  label: string;
  /** 1-based round of the A/B/A/B sequence. */
  round: number;
  /** Operations per second (requests, or delivered messages for fan-out); null when not meaningful. */
  throughput: number | null;
  /** Unit of {@link throughput}, e.g. `req/s`, `msg/s`. */
  throughputUnit: string;
  /** Latency percentiles in milliseconds (request latency, or publish→receive for fan-out). */
  p50Ms: number | null;
  p99Ms: number | null;
  /** Peak resident set size of the server process during the run (VmHWM), in MiB. */
  peakRssMiB: number | null;
  /** Errors seen by the load generator (non-2xx, resets, timeouts, lost messages). */
  errors: number;
  /** Scenario-specific figures (e.g. `rssPerSubscriberKiB`, `boundMs`, `wallMs`). */
  extra: Record<string, number>;
}

/** What every scenario gets from the harness. */
export interface BenchContext {
  /** `--quick`: fewer and shorter rounds, smaller fan-out; the whole run stays under two minutes. */
  quick: boolean;
  /** Seconds each HTTP load lasts. */
  durationSeconds: number;
  /** Concurrent connections of each HTTP load. */
  connections: number;
  /**
   * Baseline-then-gateway pairs of each HTTP scenario (`--rounds`; 3, or 2 with `--quick`). Ratios are of
   * medians over rounds, so with three a load slowed by something outside the bench does not move them.
   */
  httpRounds: number;
  /** The seeded data set (see `seed.ts`). */
  dataset: Dataset;
  /**
   * The seeded data set on a PostgreSQL server (see `postgres.ts`), copied there on the first call and
   * shared by every PostgreSQL scenario after it; the harness stops it after the last scenario.
   */
  postgres(): Promise<PostgresDataset>;
  /** Writes a progress line to stderr. */
  log(message: string): void;
}

/** The seeded benchmark database and the credentials into it. */
export interface Dataset {
  /** Path of the pristine seeded SQLite file; scenarios copy it before writing (see `copyDataset`). */
  databasePath: string;
  /**
   * Every seeded instance, in this order: BENCHA, BENCHB, BENCHC (the demo catalogue and the seeded
   * requests; BENCHA also has the customers), then FANOUT (see {@link fanout}).
   */
  instances: DatasetInstance[];
  /**
   * FANOUT: no catalogue and no sources, so every request created there is stored `completed` and
   * publishes exactly one event (for the fan-out scenarios).
   */
  fanout: DatasetInstance;
}

/** One seeded instance. */
export interface DatasetInstance {
  id: string;
  code: string;
  clientId: string;
  clientSecret: string;
  /** Availability requests seeded in this instance. */
  availabilityRequests: number;
  /** Customers seeded in this instance. */
  customers: number;
}

/** A benchmark scenario: runs A/B/A/B itself and returns every measurement in run order. */
export interface Scenario {
  id: string;
  /** One line for the report: what is measured. */
  title: string;
  /** The target from issue 8, as text for the report (e.g. `≥ 0.75 × ceiling`). */
  target: string;
  /**
   * The target in checkable form; the report says "met" when every goal holds on the summary, and gives
   * no verdict when there are none (a reference scenario, or a target not yet expressed as goals).
   */
  goals?: Goal[];
  run(context: BenchContext): Promise<Measurement[]>;
  /**
   * Scenarios of one group share servers (e.g. the SQLite HTTP scenarios' gateway and ceiling): when the run
   * moves on to a scenario of another group, the harness disposes every scenario of the group it left, so
   * idle servers of one store never run beside the measurements of the next.
   */
  group?: string;
  /**
   * Releases what the scenario kept beyond its run (servers shared between scenarios). The harness calls it
   * once after the last scenario, also after a failure; it must tolerate being called for a scenario that
   * never ran.
   */
  dispose?(): Promise<void>;
}

/**
 * One checkable bound on a scenario's summary (see `bench/lib/report.ts`):
 * - `throughputRatio`: median gateway throughput ÷ median baseline throughput;
 * - `p99Ratio`: median gateway p99 ÷ median baseline p99;
 * - `gatewayP99Ms`: the gateway's median p99 in milliseconds;
 * - `extra:<name>`: the median over the gateway's rounds of `Measurement.extra[name]`.
 */
export interface Goal {
  metric: 'throughputRatio' | 'p99Ratio' | 'gatewayP99Ms' | `extra:${string}`;
  /** The metric must be ≥ this. */
  atLeast?: number;
  /** The metric must be ≤ this; a latency target such as "p99 < 50 ms" is written `atMost: 50`. */
  atMost?: number;
}

/** A database on the bench's PostgreSQL server that one server may write to; `remove()` drops it. */
export interface PostgresCopy {
  url: string;
  remove(): Promise<void>;
}

/** The seeded data set in PostgreSQL: `copy()` gives a private database with the same rows. */
export interface PostgresDataset {
  /** What the server is, for the report (version and where it came from). */
  description: string;
  copy(): Promise<PostgresCopy>;
  /** Drops the seed database and stops a server this run started. */
  stop(): Promise<void>;
}
