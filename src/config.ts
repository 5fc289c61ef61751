import { isIP } from 'node:net';
import { z } from 'zod';

/** An IPv4/IPv6 address, or one with a `/prefix` of a length its family allows. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Service configuration, parsed once from the environment at start-up.
 * Nothing else in the code base reads `process.env`: every module receives the parsed {@link Config}.
 */
export const configSchema = z.object({
  /** TCP port of the HTTP server; 0 picks a free port (tests). */
  PORT: z.coerce.number().int().min(0).max(65_535).default(4000),
  /** Interface to listen on. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * TCP port of a listener of its own for `GET /metrics` (Prometheus), on `HOST` like `PORT`; 0 picks a free
   * port (tests). When set, `PORT` answers `/metrics` with 404, so a balancer or ingress that routes only
   * `PORT` never exposes the metrics (issue 37). Unset (the default), `/metrics` is served on `PORT`.
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).optional(),
  /**
   * The gateway's URL as suppliers reach it (e.g. `https://gateway.example.nl`, a path prefix allowed; no
   * query): MEF LSO Sonata sellers send their hub notifications to
   * `<PUBLIC_BASE_URL>/sonata-callbacks/<source id>/<token>/…` (docs/mef-sonata.md). Without it,
   * `mef-sonata` sources in the notifications mode register no listener and poll instead. In shared mode
   * every instance needs the same value: a worker registers it, an API instance receives the callbacks.
   */
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .refine((value) => {
      // Zod runs this refinement after a failed URL check too: an unparsable value must not throw here.
      const url = URL.parse(value);
      return url === null || (url.search === '' && url.hash === '');
    }, 'must have no query or fragment')
    .optional(),
  /**
   * The database: a SQLite file path or `:memory:` (the embedded default), or a PostgreSQL server as
   * `postgres://user:password@host:port/database` (`postgresql://` too). Any other URL (`file://…`) is
   * refused rather than taken for a relative path.
   */
  DATABASE_URL: z
    .string()
    .min(1)
    .refine((value) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^postgres(ql)?:\/\//i.test(value), {
      message: 'must be a SQLite file path, :memory: or a postgres:// URL',
    })
    .default('./data/gateway.db'),
  /** Most connections the PostgreSQL store opens at once (ignored for SQLite). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /**
   * Secret that signs the `sse_jwt` (HS256). When absent, one is generated on first start and
   * persisted in the database, so tokens stay valid across restarts.
   */
  TOKEN_SIGNING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /**
   * Redis, as `redis://[user:password@]host:port[/db]` (`rediss://` for TLS): turns on the shared mode of
   * several instances (issue 17) — events, wake-ups of the gathering workers across instances. Without it
   * everything live stays inside the process, the embedded default.
   */
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  /**
   * Comma-separated addresses or CIDR ranges of the proxies in front (e.g. `127.0.0.1` or `10.0.0.0/8`; also
   * `loopback`, `linklocal`, `uniquelocal`): a request from one of them is attributed to the client its
   * `X-Forwarded-For` names, for the anonymous sign-in limit (the logs keep both). Empty (the default)
   * trusts none.
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    )
    .superRefine((entries, ctx) => {
      const bad = entries.find(
        (entry) => !['loopback', 'linklocal', 'uniquelocal'].includes(entry) && !isAddressOrRange(entry),
      );
      if (bad !== undefined)
        ctx.addIssue({
          code: 'custom',
          message: `${JSON.stringify(bad)} is not an IP address, a CIDR range or loopback, linklocal, uniquelocal`,
        });
    }),
  /** Prepended to every Redis channel and key, so several deployments can share one Redis. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'must be 1–64 letters, digits or : _ . -')
    .default('gateway:'),
  /**
   * `on` (the default) runs the gathering worker in this instance; `off` makes an API-only instance, for
   * deployments whose workers run as `npm run worker` processes (issue 17). With `off`, tasks wait for a
   * worker elsewhere: pair it with `REDIS_URL` so they are woken at once.
   */
  GATHERING_WORKER: z.enum(['on', 'off']).default('on'),
  /**
   * On SIGTERM, how long requests in flight may take to finish before their connections are closed, in
   * seconds (event streams and WebSockets are ended at once; their clients reconnect elsewhere).
   */
  SHUTDOWN_TIMEOUT_SECONDS: z.coerce.number().min(0).max(600).default(10),
  /**
   * On SIGTERM, how long the instance keeps serving before it stops taking connections, in seconds: `/readyz`
   * answers 503 and every response carries `Connection: close`, so a balancer stops sending it traffic and
   * keeps no connection to it that could fail under a request. Behind a balancer, set it above the
   * balancer's health-check interval and its upstream keep-alive timeout (the shipped nginx file: 4 s);
   * 0 (the default) stops at once.
   */
  SHUTDOWN_DRAIN_SECONDS: z.coerce.number().min(0).max(300).default(0),
  /** Gathering tasks run at once by the in-process worker pool. */
  GATHERING_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /**
   * How often an idle gathering worker looks at the queue on its own, in milliseconds: for tasks whose
   * retry is due and leases of crashed workers. New tasks wake it at once (through Redis across instances).
   */
  GATHERING_IDLE_POLL_MS: z.coerce.number().int().min(10).max(3_600_000).default(1000),
  /** How long a claimed gathering task stays leased before another worker may reclaim it. */
  GATHERING_LEASE_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  /**
   * Whether this process may relay the outbox's events (issue 34): one process relays at a time, whichever
   * holds the relay's lease. `off` keeps a process out of it — an API instance that should spend nothing on
   * relaying, say — as long as another process of the deployment relays.
   */
  EVENT_RELAY: z.enum(['on', 'off']).default('on'),
  /**
   * How long the outbox relay's lease lasts unless renewed, in seconds (issue 34): when the process relaying
   * events dies without stopping, events wait up to this long before another process relays them.
   */
  EVENT_RELAY_LEASE_SECONDS: z.coerce.number().int().min(1).max(300).default(5),
  /**
   * How often the outbox relay looks for events on its own, in milliseconds, and how often the other
   * processes check whether the relay's lease expired. Events written in this process, or anywhere with
   * `REDIS_URL`, are relayed at once.
   */
  EVENT_RELAY_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /**
   * Attempts per gathering task before it ends as failed, and times its lease may expire (taken over without
   * costing an attempt) before it ends as `LEASE_EXPIRED`.
   */
  GATHERING_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /**
   * Multiplier on the simulated latency of catalogue sources (1 = as the catalogue declares it,
   * 0 = answer at once). Lets tests and demos run fast without changing the catalogue data.
   */
  SOURCE_LATENCY_SCALE: z.coerce.number().min(0).max(100).default(1),
  /** Events kept per instance for `Last-Event-ID` replays on the Mercure endpoint. */
  MERCURE_HISTORY_SIZE: z.coerce.number().int().min(0).max(100_000).default(1000),
  /** Seconds between keep-alive comments on idle event streams. */
  MERCURE_KEEPALIVE_SECONDS: z.coerce.number().min(0.05).max(300).default(15),
  /** Geocoder of addresses given as fields: `offline` (city precision, embedded) or `pdok` (BAG addresses). */
  GEOCODER: z.enum(['offline', 'pdok']).default('offline'),
  /** Base URL of a PDOK Locatieserver v3.1 (`…/locatieserver/search/v3_1`); required with `GEOCODER=pdok`. */
  PDOK_LOCATIESERVER_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Length of a rate-limit window, in seconds. */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(10),
  /** Requests one auth token may make per window. */
  RATE_LIMIT_PER_TOKEN: z.coerce.number().int().min(1).default(1200),
  /** Requests one instance may make per window, over all its tokens. */
  RATE_LIMIT_PER_INSTANCE: z.coerce.number().int().min(1).default(6000),
  /** Unauthenticated requests (sign-in) one client address may make per window. */
  RATE_LIMIT_PER_ANONYMOUS_ADDRESS: z.coerce.number().int().min(1).default(300),
  /** Seed a demo instance with the NL demo catalogue when the database has no instance yet. */
  SEED_DEMO: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((value) => value === 'true' || value === '1'),
});

/** The parsed configuration. */
export type Config = z.infer<typeof configSchema>;

const checkedConfigSchema = configSchema
  .refine((config) => config.GEOCODER !== 'pdok' || config.PDOK_LOCATIESERVER_URL !== undefined, {
    path: ['PDOK_LOCATIESERVER_URL'],
    message: 'is required when GEOCODER=pdok',
  })
  .refine(
    (config) =>
      config.METRICS_PORT === undefined || config.METRICS_PORT === 0 || config.METRICS_PORT !== config.PORT,
    {
      path: ['METRICS_PORT'],
      message: 'must differ from PORT',
    },
  );

/** Thrown when the environment holds an invalid value; the message names every offending variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Parses the configuration from an environment map (normally `process.env`).
 * Empty strings count as unset, so `PORT= npm start` uses the default.
 *
 * @throws {ConfigError} naming each invalid variable and why.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = checkedConfigSchema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return result.data;
}
