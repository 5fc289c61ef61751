import autocannon from 'autocannon';
import { type ServerProcess, watchRss } from './process.js';
import { LatencyRecorder } from './stats.js';
import type { Measurement } from './types.js';

/** One HTTP request shape for a load: what autocannon sends over and over. */
export interface HttpLoad {
  method: 'GET' | 'POST';
  /** Path with query string, e.g. `/availability-requests?page_size=25`. */
  path: string;
  headers?: Record<string, string>;
  /** Request bodies sent in rotation (one per request); none for a GET. */
  bodies?: readonly string[];
  /**
   * Checks each response body; a false answer counts as an error. GraphQL answers errors with 200, so a
   * status check alone would let a load of error documents pass for a fast one.
   */
  verifyBody?: (body: string) => boolean;
}

/** What one load measured. Latencies are of 2xx responses, in milliseconds (µs resolution). */
export interface LoadResult {
  /** Completed requests per second over the load. */
  throughput: number;
  p50Ms: number | null;
  p99Ms: number | null;
  /** Completed requests. */
  requests: number;
  /** Non-2xx responses, connection errors, timeouts and failed body checks. */
  errors: number;
  /** Status codes seen other than 2xx, with counts, for the error message. */
  statuses: Record<string, number>;
  /**
   * What went wrong, for the error message: the first few connection errors and timeouts (autocannon's
   * `reqError`, e.g. `ECONNRESET`), and the first 120 characters of the first few bodies that failed the check.
   */
  problems: string[];
}

/** How many problems a load keeps for its error message. */
const PROBLEMS_KEPT = 5;

/**
 * Runs one autocannon load against `baseUrl` for `durationSeconds` with `connections` keep-alive
 * connections. Latencies are recorded from autocannon's per-response timings into an HdrHistogram with
 * microsecond resolution (autocannon's own histogram rounds to whole milliseconds).
 */
export function runLoad(
  baseUrl: string,
  load: HttpLoad,
  options: { durationSeconds: number; connections: number },
): Promise<LoadResult> {
  const latencies = new LatencyRecorder();
  const bodies = load.bodies ?? [];
  const verify = load.verifyBody;
  const problems: string[] = [];
  const note = (problem: string) => {
    if (problems.length < PROBLEMS_KEPT) problems.push(problem);
  };
  let next = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${baseUrl}${load.path}`,
        method: load.method,
        headers: { ...load.headers, ...(bodies.length > 0 ? { 'content-type': 'application/json' } : {}) },
        connections: options.connections,
        duration: options.durationSeconds,
        ...(bodies.length > 0
          ? {
              requests: [
                {
                  setupRequest: (request: autocannon.Request) => {
                    const body = bodies[next++ % bodies.length];
                    return { ...request, body };
                  },
                },
              ],
            }
          : {}),
        ...(verify
          ? {
              verifyBody: (body: autocannon.Request['body']) => {
                const text = String(body ?? '');
                const good = verify(text);
                if (!good) note(`body ${JSON.stringify(text.slice(0, 120))}`);
                return good;
              },
            }
          : {}),
      },
      (error, result) => {
        if (error) return reject(error);
        const statuses: Record<string, number> = {};
        for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) {
          if (!code.startsWith('2')) statuses[code] = stats.count ?? 0;
        }
        resolve({
          throughput: result.requests.total / Math.max(result.duration, 0.001),
          p50Ms: latencies.percentileMs(50),
          p99Ms: latencies.percentileMs(99),
          requests: result.requests.total,
          errors: result.non2xx + result.errors + result.mismatches,
          statuses,
          problems,
        });
      },
    );
    instance.on('reqError', (error) =>
      note(`${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}`.trim()),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.record(responseTime);
    });
  });
}

/** Who a measured load belongs to. */
export interface LoadSubject {
  scenario: string;
  role: Measurement['role'];
  label: string;
  round: number;
  server: ServerProcess;
}

/**
 * Runs one load against `subject.server` while sampling the server's RSS, and returns it as a
 * {@link Measurement} (throughput in req/s; extra `connections`, `durationSeconds`, `requests`, and what
 * `extra` adds per request, multiplied by the throughput: e.g. `addressesPerSecond` for batches).
 *
 * @throws Error when any response failed (status, connection or body check): a benchmark of error
 *   responses measures nothing worth comparing.
 */
export async function measureLoad(
  subject: LoadSubject,
  load: HttpLoad,
  options: { durationSeconds: number; connections: number; perRequest?: Record<string, number> },
): Promise<Measurement> {
  const rss = watchRss(subject.server.pid);
  let result: LoadResult;
  let peakRssMiB: number | null;
  try {
    result = await runLoad(subject.server.url, load, options);
  } finally {
    peakRssMiB = rss.stop();
  }
  if (result.errors > 0) {
    throw new Error(
      `${subject.scenario} round ${subject.round}: ${subject.label} answered ${result.errors} of ` +
        `${result.requests} requests with errors (non-2xx: ${JSON.stringify(result.statuses)}; ` +
        `${result.problems.join('; ') || 'no detail'})`,
    );
  }
  const extra: Record<string, number> = {
    connections: options.connections,
    durationSeconds: options.durationSeconds,
    requests: result.requests,
  };
  for (const [name, perRequest] of Object.entries(options.perRequest ?? {})) {
    extra[name] = perRequest * result.throughput;
  }
  return {
    scenario: subject.scenario,
    role: subject.role,
    label: subject.label,
    round: subject.round,
    throughput: result.throughput,
    throughputUnit: 'req/s',
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    peakRssMiB,
    errors: result.errors,
    extra,
  };
}
