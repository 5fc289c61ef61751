import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerProcess, startServer, whilePaused } from '../lib/process.js';
import { copyDataset } from '../lib/seed.js';
import type { BenchContext, DatasetInstance } from '../lib/types.js';

/*
 * The servers the HTTP scenarios share: started once on the first scenario that needs them and reused by
 * every HTTP scenario after it (read-only scenarios run first, writes last), each on its own copy of the
 * seeded database so the baseline's writes never show in the gateway's lists and vice versa. Two raw
 * ceilings: the current one reads list totals from `list_totals`, as the gateway does; the old-style one
 * counts them with `count(*)`, as both did before migration 0003, so a run measures the gateway against both.
 */

/**
 * Gateway environment for the benchmark. Production mode and the default log level (`info`: one line per
 * request, written to /dev/null by `startServer`), as deployed. The rate limits are raised out of reach, not
 * switched off: every request still goes through the per-token and per-instance limiter.
 */
export const gatewayEnvironment = {
  LOG_LEVEL: 'info',
  NODE_ENV: 'production',
  SEED_DEMO: 'false',
  RATE_LIMIT_PER_TOKEN: '1000000000',
  RATE_LIMIT_PER_INSTANCE: '1000000000',
} as const;

/** The gateway and the raw ceiling, both serving instance `instance`, and a gateway auth token for it. */
export interface RunningServers {
  gateway: ServerProcess;
  raw: ServerProcess;
  /** `X-Auth-Token` for the gateway (client credentials of `instance`; lives an hour). */
  token: string;
  instance: DatasetInstance;
  /**
   * The claims of the gateway's `sse_jwt` for `token`, without `iat` and `exp` (its topics, `sid`, `app`), in
   * the gateway's order: the raw ceilings sign the same ones.
   */
  eventStreamClaims: Record<string, unknown>;
}

/** The store the gateway and its raw ceiling serve: the seeded SQLite file, or its copy in PostgreSQL. */
export type BenchStore = 'sqlite' | 'postgres';

/** The raw ceiling's script per store. */
const rawCeilingScript: Record<BenchStore, string> = {
  sqlite: 'bench/baselines/raw-http.ts',
  postgres: 'bench/baselines/raw-http-pg.ts',
};

/**
 * Lazily started, shared HTTP servers on one store; `dispose()` stops them and removes their database
 * copies.
 */
export class HttpServers {
  private running: Promise<RunningServers> | null = null;
  private yoga: Promise<ServerProcess> | null = null;
  private yogaList: Promise<ServerProcess> | null = null;
  private scan: Promise<ServerProcess> | null = null;
  private readonly cleanups: (() => Promise<void> | void)[] = [];
  private readonly warmed = new Set<string>();
  /** Every server started and not yet stopped, for {@link HttpServers.alone}. */
  private readonly started = new Set<ServerProcess>();

  constructor(readonly store: BenchStore = 'sqlite') {}

  /** A private copy of the seeded database for one server: a file, or a PostgreSQL database. */
  private async databaseCopy(context: BenchContext): Promise<string> {
    if (this.store === 'sqlite') {
      const copy = copyDataset(context.dataset);
      this.cleanups.push(copy.remove);
      return copy.path;
    }
    const copy = await (await context.postgres()).copy();
    this.cleanups.push(copy.remove);
    return copy.url;
  }

  /** True the first time a server is to be warmed up on a request shape (method and path), false after. */
  firstWarmUp(server: ServerProcess, load: { method: string; path: string }): boolean {
    const key = `${server.url} ${load.method} ${load.path}`;
    if (this.warmed.has(key)) return false;
    this.warmed.add(key);
    return true;
  }

  /** The gateway and its raw ceiling on BENCHA, started on first use. */
  servers(context: BenchContext): Promise<RunningServers> {
    this.running ??= this.start(context);
    return this.running;
  }

  /** The stock Yoga hello-world, started on first use. */
  yogaServer(): Promise<ServerProcess> {
    this.yoga ??= startServer({
      script: 'bench/baselines/yoga-hello.ts',
      readyPath: '/graphql?query=%7Bhello%7D',
    }).then((server) => this.track(server));
    return this.yoga;
  }

  /**
   * The stock Yoga with graphql-jit answering the GraphQL list from memory (`bench/baselines/yoga-list.ts`),
   * started on first use with `page`, the gateway's GraphQL answer to the list query.
   */
  yogaListServer(page: string): Promise<ServerProcess> {
    this.yogaList ??= (async () => {
      const directory = mkdtempSync(join(tmpdir(), 'bench-yoga-list-'));
      this.cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
      const file = join(directory, 'page.json');
      writeFileSync(file, page);
      const server = await startServer({
        script: 'bench/baselines/yoga-list.ts',
        env: { BENCH_YOGA_PAGE: file },
        readyPath: '/graphql?query=%7B__typename%7D',
      });
      return this.track(server);
    })();
    return this.yogaList;
  }

  /**
   * Runs `measure` with every other server of this group paused ({@link ServerProcess.pause}): the measured
   * server has the machine to itself, whatever the others still do in the background — such as the
   * gateway's worker gathering the requests a create scenario queued, during its raw ceiling's rounds.
   */
  alone<T>(server: ServerProcess, measure: () => Promise<T>): Promise<T> {
    return whilePaused(
      [...this.started].filter((other) => other !== server),
      measure,
    );
  }

  /** Registers a started server: stopped on `dispose()`, paused while another one is measured. */
  private track(server: ServerProcess): ServerProcess {
    this.started.add(server);
    this.cleanups.push(() => {
      this.started.delete(server);
      return server.stop();
    });
    return server;
  }

  /**
   * The old-style raw ceiling (`RAW_LIST_TOTAL=scan`: unfiltered list totals by `count(*)`) on BENCHA, on a
   * copy of its own, started on first use.
   */
  scanCeiling(context: BenchContext): Promise<ServerProcess> {
    this.scan ??= this.startScanCeiling(context);
    return this.scan;
  }

  private async startScanCeiling(context: BenchContext): Promise<ServerProcess> {
    if (this.store !== 'sqlite') throw new Error('the old-style raw ceiling is measured on SQLite only');
    const { instance, eventStreamClaims } = await this.servers(context);
    const path = await this.databaseCopy(context);
    context.log('http: starting the old-style raw ceiling (list totals by count(*))');
    const server = await startServer({
      script: rawCeilingScript.sqlite,
      env: rawCeilingEnvironment(path, instance, eventStreamClaims, 'scan'),
      readyPath: '/healthz',
    });
    return this.track(server);
  }

  private async start(context: BenchContext): Promise<RunningServers> {
    const instance = measuredInstance(context);
    const gatewayDatabase = await this.databaseCopy(context);
    const rawDatabase = await this.databaseCopy(context);
    context.log(`http: starting the gateway, then the raw node:http ceiling on ${this.store}`);
    const gateway = this.track(
      await startServer({
        script: 'src/main.ts',
        env: { ...gatewayEnvironment, DATABASE_URL: gatewayDatabase },
        readyPath: '/readyz',
      }),
    );
    const token = await signIn(gateway.url, instance);
    const eventStreamClaims = await gatewayEventStreamClaims(gateway.url, token);
    // Stopped before its copy is removed (cleanups run in reverse).
    const raw = this.track(
      await startServer({
        script: rawCeilingScript[this.store],
        env: rawCeilingEnvironment(rawDatabase, instance, eventStreamClaims, 'table'),
        readyPath: '/healthz',
      }),
    );
    return { gateway, raw, token, instance, eventStreamClaims };
  }

  /** Stops every started server and removes the database copies; safe to call more than once. */
  async dispose(): Promise<void> {
    this.running = null;
    this.yoga = null;
    this.scan = null;
    this.warmed.clear();
    for (const cleanup of this.cleanups.splice(0).reverse()) await cleanup();
  }
}

/** A raw ceiling's environment (`bench/baselines/raw-http*.ts`): its database, instance, claims and totals. */
function rawCeilingEnvironment(
  databaseUrl: string,
  instance: DatasetInstance,
  eventStreamClaims: Record<string, unknown>,
  listTotal: 'table' | 'scan',
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    BENCH_INSTANCE_ID: instance.id,
    BENCH_SSE_CLAIMS: JSON.stringify(eventStreamClaims),
    RAW_LIST_TOTAL: listTotal,
  };
}

/**
 * The claims of the `sse_jwt` the gateway hands out with `token` (read off one list page), without `iat`
 * and `exp`, in the gateway's order: the topics its roles read, and `sid` and `app` naming the session.
 */
async function gatewayEventStreamClaims(baseUrl: string, token: string): Promise<Record<string, unknown>> {
  const page = await fetchText(`${baseUrl}/availability-requests?page_size=1`, {
    headers: { 'x-auth-token': token },
  });
  strictEqual(page.status, 200, `gateway list answered ${page.status}`);
  const {
    iat: _iat,
    exp: _exp,
    ...claims
  } = decodeJwt((JSON.parse(page.text) as { sse_jwt: string }).sse_jwt).payload;
  return claims;
}

/** BENCHA, the instance every HTTP scenario measures. */
function measuredInstance(context: BenchContext): DatasetInstance {
  const instance = context.dataset.instances.find((candidate) => candidate.code === 'BENCHA');
  if (!instance) throw new Error('the dataset has no BENCHA instance');
  return instance;
}

/** `POST /authentication` with the instance's client credentials; returns the auth token. */
export async function signIn(baseUrl: string, instance: DatasetInstance): Promise<string> {
  const response = await fetch(`${baseUrl}/authentication`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: instance.clientId, client_secret: instance.clientSecret }),
  });
  const body = (await response.json()) as { data?: { auth_token?: string } };
  if (response.status !== 200 || !body.data?.auth_token) {
    throw new Error(`sign-in to the gateway failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.data.auth_token;
}

/** One response's status and body text. */
export async function fetchText(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(url, init);
  return { status: response.status, text: await response.text() };
}

function decodeJwt(token: string): { header: unknown; payload: Record<string, unknown> } {
  const [header = '', payload = ''] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')),
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')),
  };
}

/** Where two texts first differ, with some context, for an assertion message. */
function firstDifference(a: string, b: string): string {
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  return `at character ${at}: gateway …${a.slice(Math.max(0, at - 60), at + 60)}… vs baseline …${b.slice(Math.max(0, at - 60), at + 60)}…`;
}

/**
 * Asserts that the gateway's and the baseline's REST list bodies are byte-for-byte identical apart from
 * the `sse_jwt`, and that the two tokens carry the same header and claims with the same lifetime (their
 * `iat` may differ by the second they were issued in; issued in the same second they must be identical).
 *
 * @throws AssertionError naming the first difference.
 */
export function assertSameRestList(gatewayText: string, baselineText: string): void {
  const gatewayToken = (JSON.parse(gatewayText) as { sse_jwt: string }).sse_jwt;
  const baselineToken = (JSON.parse(baselineText) as { sse_jwt: string }).sse_jwt;
  const a = gatewayText.replace(gatewayToken, '<sse_jwt>');
  const b = baselineText.replace(baselineToken, '<sse_jwt>');
  ok(a === b, `REST list bodies differ ${firstDifference(a, b)}`);
  const gatewayJwt = decodeJwt(gatewayToken);
  const baselineJwt = decodeJwt(baselineToken);
  deepStrictEqual(baselineJwt.header, gatewayJwt.header, 'sse_jwt headers differ');
  const { iat: gatewayIat, exp: gatewayExp, ...gatewayClaims } = gatewayJwt.payload;
  const { iat: baselineIat, exp: baselineExp, ...baselineClaims } = baselineJwt.payload;
  deepStrictEqual(baselineClaims, gatewayClaims, 'sse_jwt claims differ');
  strictEqual(Number(baselineExp) - Number(baselineIat), Number(gatewayExp) - Number(gatewayIat));
  if (gatewayIat === baselineIat) strictEqual(baselineToken, gatewayToken, 'sse_jwt signatures differ');
}

/** Asserts two bodies are byte-for-byte identical. @throws AssertionError naming the first difference. */
export function assertSameText(what: string, gatewayText: string, baselineText: string): void {
  ok(gatewayText === baselineText, `${what} bodies differ ${firstDifference(gatewayText, baselineText)}`);
}

interface RestRequestDocument {
  id: string;
  address: Record<string, unknown> & { coordinates: unknown };
  created_at: string;
  updated_at: string;
  filters: Record<string, unknown>;
  networks_progress_percentage: string;
  status: string;
}

/**
 * Asserts that a GraphQL `availabilityRequests` page carries the same requests, in the same order, with
 * the same values as a REST list page: every field of the REST document (timestamps to the second, as REST gives them,
 * the progress as a number, the status case-insensitively) and `totalCount` = `pagination.total_items`.
 */
export function assertGraphqlMatchesRest(graphqlText: string, restText: string): void {
  const graphql = JSON.parse(graphqlText) as {
    errors?: unknown;
    data?: { availabilityRequests: { totalCount: number; edges: { node: Record<string, never> }[] } };
  };
  ok(graphql.data && !graphql.errors, `the GraphQL list answered errors: ${graphqlText.slice(0, 500)}`);
  const rest = JSON.parse(restText) as { data: RestRequestDocument[]; pagination: { total_items: number } };
  const { totalCount, edges } = graphql.data.availabilityRequests;
  strictEqual(totalCount, rest.pagination.total_items, 'totalCount differs from total_items');
  const seconds = (timestamp: string) => Math.floor(Date.parse(timestamp) / 1000);
  // biome-ignore lint/suspicious/noExplicitAny: a parsed GraphQL document, checked field by field below.
  const fromGraphql = edges.map(({ node }: { node: Record<string, any> }) => ({
    id: node.id,
    address: {
      id: node.address.id,
      street: node.address.street,
      city: node.address.city,
      continent_code: node.address.continentCode,
      country_code: node.address.countryCode,
      postal_code: node.address.postalCode,
      house_number: node.address.houseNumber,
      house_number_addition: node.address.houseNumberAddition,
      coordinates: node.address.coordinates,
    },
    created_at: seconds(node.createdAt),
    updated_at: seconds(node.updatedAt),
    filters: {
      contract_terms: node.filters.contractTerms,
      connection_types: node.filters.connectionTypes,
      bandwidths: node.filters.bandwidths,
      technology_types: node.filters.technologyTypes,
      networks: node.filters.networks,
    },
    progress: Number(node.networksProgressPercentage),
    status: String(node.status).toLowerCase(),
  }));
  const fromRest = rest.data.map((doc) => {
    const { _document_type: _, ...address } = doc.address;
    return {
      id: doc.id,
      address,
      created_at: seconds(doc.created_at),
      updated_at: seconds(doc.updated_at),
      filters: doc.filters,
      progress: Number(doc.networks_progress_percentage),
      status: doc.status,
    };
  });
  deepStrictEqual(fromGraphql, fromRest, 'the GraphQL page differs from the REST page');
}
