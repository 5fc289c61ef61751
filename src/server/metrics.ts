import type { IncomingMessage, ServerResponse } from 'node:http';
import { type DocumentNode, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { AppError } from '../errors.js';
import type { GatheringTaskSettled } from '../gathering/worker.js';
import { sendProblem } from '../rest/router.js';

/** Distinct GraphQL operation names one app labels; later new names count as `other`. */
const MAX_OPERATION_NAMES = 200;
/** A GraphQL name of sane length; anything else a client sends is `anonymous`. */
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

let sharedProcessRegistry: Registry | null = null;

/**
 * prom-client's default metrics (CPU, memory, event loop, GC, handles) describe the process, not one
 * app, and each collection starts observers that are never stopped: they are collected once per process
 * and merged into every app's scrape. The first app creates them when it is built, not at its first
 * scrape: prom-client counts `process_cpu_*_seconds_total` from the moment they are registered, so a
 * registry made at the first scrape would report (close to) no CPU for all the work done before it.
 */
function processMetrics(): Registry {
  if (!sharedProcessRegistry) {
    sharedProcessRegistry = new Registry();
    collectDefaultMetrics({ register: sharedProcessRegistry });
  }
  return sharedProcessRegistry;
}

/** Live counts the gauges read at scrape time. */
export interface MetricsSources {
  /** Event-bus listeners: GraphQL subscriptions plus one per instance the REST event stream follows. */
  openSubscriptions(): number;
  /** Open REST event-stream (`/.well-known/mercure`) connections. */
  eventStreamConnections(): number;
  /** Rate-limit checks answered in memory because Redis failed, since start (`RateLimits.storeFailures`). */
  rateLimitStoreFailures(): number;
  /** Whether the store answers a trivial query now (`storeAnswers`, dependency-health.ts). */
  storeUp(): Promise<boolean>;
  /** Whether Redis's command connection is up (`redisReady`); null without Redis, which leaves `redis_up` out. */
  redisUp(): boolean | null;
}

/**
 * The Prometheus metrics of one app, in a registry of its own (several apps in one test process never
 * share a series): HTTP requests by route, GraphQL operations, gathering attempts and source latency,
 * open subscriptions and event-stream connections, plus the process's default metrics.
 */
export class AppMetrics {
  /** This app's registry (without the process metrics, which {@link render} adds). */
  readonly registry = new Registry();
  /** The process's default metrics, shared by every app in the process (see {@link processMetrics}). */
  private readonly processRegistry = processMetrics();
  private readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving an HTTP request to the end of its response (event streams: until closed).',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly graphqlOperations = new Counter({
    name: 'graphql_operations_total',
    help: 'GraphQL operations executed or subscribed, over HTTP and WebSocket.',
    labelNames: ['operation_type', 'operation_name'] as const,
    registers: [this.registry],
  });
  private readonly gatheringTasks = new Counter({
    name: 'gathering_tasks_total',
    help: 'Gathering attempts by source key and outcome (succeeded, failed, retried).',
    labelNames: ['source', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly sourceLatency = new Histogram({
    name: 'source_latency_seconds',
    help: 'Time of one fetchOffers call to a source, by source key.',
    labelNames: ['source'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly operationNames = new Set<string>();

  constructor(sources: MetricsSources) {
    new Gauge({
      name: 'open_subscriptions',
      help: 'Listeners on the event bus: GraphQL subscriptions and REST event-stream instances.',
      registers: [this.registry],
      collect() {
        this.set(sources.openSubscriptions());
      },
    });
    new Gauge({
      name: 'event_stream_connections',
      help: 'Open REST event-stream connections.',
      registers: [this.registry],
      collect() {
        this.set(sources.eventStreamConnections());
      },
    });
    new Gauge({
      name: 'store_up',
      help: 'Whether the store (SQLite file or PostgreSQL) answered a trivial query at this scrape: 1 up, 0 down.',
      registers: [this.registry],
      async collect() {
        this.set((await sources.storeUp()) ? 1 : 0);
      },
    });
    if (sources.redisUp() !== null) {
      new Gauge({
        name: 'redis_up',
        help: "Whether this instance's Redis command connection is up at this scrape: 1 up, 0 down.",
        registers: [this.registry],
        collect() {
          this.set(sources.redisUp() ? 1 : 0);
        },
      });
    }
    new Counter({
      name: 'rate_limit_store_failures_total',
      help: 'Rate-limit checks this instance answered in memory because Redis failed (shared mode; one request makes one or two).',
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(sources.rateLimitStoreFailures());
      },
    });
  }

  /**
   * Starts timing one HTTP request. Call it as the request arrives.
   *
   * @param route the request's `routeLabel`, never a raw path.
   * @returns the function that counts the request and records its duration, by method, route and the
   *   response's status at that moment; call it when the response has ended (finished or closed). Only its
   *   first call records.
   */
  observeHttp(req: IncomingMessage, res: ServerResponse, route: string): () => void {
    const end = this.httpDuration.startTimer();
    let recorded = false;
    return () => {
      if (recorded) return;
      recorded = true;
      const labels = { method: req.method ?? 'UNKNOWN', route, status: String(res.statusCode) };
      this.httpRequests.inc(labels);
      end(labels);
    };
  }

  /** Records one gathering attempt; pass it as the worker's `onTaskSettled`. */
  readonly onTaskSettled = (info: GatheringTaskSettled): void => {
    this.gatheringTasks.inc({ source: info.sourceKey, outcome: info.outcome });
    this.sourceLatency.observe({ source: info.sourceKey }, info.durationMs / 1000);
  };

  /**
   * An envelop plugin for the Yoga server that counts every executed operation (`onExecute`: queries
   * and mutations) and every subscription (`onSubscribe`), over HTTP and over WebSocket alike, by type
   * and by operation name (`anonymous` when unnamed; `other` past the first
   * {@link MAX_OPERATION_NAMES} names, so clients cannot grow the label set without bound).
   */
  readonly graphqlPlugin: Plugin = {
    onExecute: ({ args }) => this.countOperation(args.document, args.operationName),
    onSubscribe: ({ args }) => this.countOperation(args.document, args.operationName),
  };

  /**
   * Counts a subscription that does not pass through Yoga's `subscribe` (graphql-ws subscriptions sharing
   * one execution); pass it as `serveGraphQLOverWebSocket`'s `onSubscription`.
   */
  readonly countSubscription = (document: DocumentNode, operationName: string | null | undefined): void =>
    this.countOperation(document, operationName);

  /** The exposition text of this app's metrics and the process metrics, with its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    const merged = Registry.merge([this.registry, this.processRegistry]);
    return { contentType: merged.contentType, body: await merged.metrics() };
  }

  /** Serves `GET /metrics` (and HEAD); any other method is a 405 problem+json. */
  async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return sendProblem(res, new AppError('METHOD_NOT_ALLOWED', 'Use GET on /metrics.'));
    }
    const { contentType, body } = await this.render();
    res.writeHead(200, {
      'content-type': contentType,
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  private countOperation(
    document: Parameters<typeof getOperationAST>[0],
    operationName: string | null | undefined,
  ): void {
    const operation = getOperationAST(document, operationName);
    if (!operation) return;
    this.graphqlOperations.inc({
      operation_type: operation.operation,
      operation_name: this.boundedName(operation.name?.value),
    });
  }

  private boundedName(name: string | undefined): string {
    if (name === undefined || !OPERATION_NAME.test(name)) return 'anonymous';
    if (this.operationNames.has(name)) return name;
    if (this.operationNames.size >= MAX_OPERATION_NAMES) return 'other';
    this.operationNames.add(name);
    return name;
  }
}
