import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '../../src/config.js';
import type { Role } from '../../src/context.js';
import type { Logger } from '../../src/logger.js';
import { createApplication, createInstance } from '../../src/resolvers/operator.js';
import { type App, type AppRole, startApp } from '../../src/server/app.js';
import { ShiftedClock } from './clock.js';
import { isRestPath, validateRestResponse } from './openapi.js';
import { createTemplateDatabase, testStore } from './store.js';

/** A fresh temporary directory for one test's SQLite files; removed by the returned function. */
export function tempSqlitePath(): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  return { path: join(dir, 'gateway.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A fresh, empty database of the store under test (`TEST_DATABASE`, see `test/helpers/store.ts`) for one
 * test: `path` is the `DATABASE_URL` — a temporary SQLite file, or a new PostgreSQL database — and
 * `remove()` deletes it.
 */
export function tempDatabasePath(): { path: string; remove(): void } {
  if (testStore === 'sqlite') return tempSqlitePath();
  const database = createTemplateDatabase();
  return { path: database.url, remove: () => database.drop() };
}

/** Configuration for a test server: random port on 127.0.0.1, silent logs, no demo seed. */
export function testConfig(databasePath: string, env: Record<string, string> = {}): Config {
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: databasePath,
    LOG_LEVEL: 'silent',
    NODE_ENV: 'test',
    SEED_DEMO: 'false',
    SOURCE_LATENCY_SCALE: '0',
    ...env,
  });
}

/**
 * A parsed JSON document in a test. Tests assert response bodies by exact value, so a static type per
 * document would only restate the contract.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above; every use is checked by an exact assertion.
export type Json = any;

/** A JSON response as tests read it. */
export interface JsonResponse<T = Json> {
  status: number;
  headers: Headers;
  body: T;
}

/** An HTTP client for one base URL, optionally authenticated with an auth token. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null = null,
  ) {}

  withToken(token: string | null): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  async request<T = Json>(
    method: string,
    path: string,
    init: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<JsonResponse<T>> {
    const headers: Record<string, string> = { ...init.headers };
    if (this.token) headers['x-auth-token'] = this.token;
    let body: string | undefined;
    if (init.raw !== undefined) body = init.raw;
    else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    const parsed = text === '' ? null : JSON.parse(text);
    // Every REST response in the whole suite must match the OpenAPI document.
    if (isRestPath(path)) {
      validateRestResponse(method, path, response.status, response.headers.get('content-type'), parsed);
    }
    // Every REST error in the whole suite must be problem+json whose `status` is the HTTP status.
    if (response.status >= 400 && !path.startsWith('/graphql') && !path.startsWith('/dashboard')) {
      const type = response.headers.get('content-type');
      if (type !== 'application/problem+json; charset=utf-8' || parsed?.status !== response.status) {
        throw new Error(
          `${method} ${path} answered ${response.status} without a matching problem+json: ${type} ${text}`,
        );
      }
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  get<T = Json>(path: string): Promise<JsonResponse<T>> {
    return this.request<T>('GET', path);
  }

  post<T = Json>(path: string, body: unknown): Promise<JsonResponse<T>> {
    return this.request<T>('POST', path, { body });
  }

  /** Runs a GraphQL operation; returns the whole `{data, errors}` response body. */
  async graphql<T = Json>(
    query: string,
    variables: Record<string, unknown> = {},
  ): Promise<{ data?: T; errors?: Json[] }> {
    const response = await this.request('POST', '/graphql', { body: { query, variables } });
    return response.body;
  }
}

/** An instance created for a test, with an authenticated client. */
export interface TestTenant {
  instanceId: string;
  clientId: string;
  clientSecret: string;
  api: ApiClient;
}

/** A running test server on a temp database, plus helpers to make tenants. */
export interface TestServer {
  app: App;
  clock: ShiftedClock;
  databasePath: string;
  anonymous: ApiClient;
  /** Creates an instance (with the NL demo catalogue unless told otherwise) and signs in. */
  tenant(options?: { code?: string; demoCatalog?: boolean; roles?: Role[] }): Promise<TestTenant>;
  close(): Promise<void>;
}

let codeCounter = 0;

/**
 * Starts the whole service for a test on 127.0.0.1 and a random port, on a fresh SQLite file (or the
 * test run's store); `logger` replaces its logger (e.g. one writing into memory).
 */
export async function startTestServer(
  options: {
    env?: Record<string, string>;
    startWorker?: boolean;
    databasePath?: string;
    role?: AppRole;
    logger?: Logger;
  } = {},
): Promise<TestServer> {
  const temp = options.databasePath ? null : tempDatabasePath();
  const databasePath = options.databasePath ?? temp?.path ?? '';
  const clock = new ShiftedClock();
  const app = await startApp(testConfig(databasePath, options.env), {
    clock,
    ...(options.startWorker === undefined ? {} : { startWorker: options.startWorker }),
    ...(options.role === undefined ? {} : { role: options.role }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const anonymous = new ApiClient(app.url);
  return {
    app,
    clock,
    databasePath,
    anonymous,
    async tenant({ code, demoCatalog = true, roles = ['connectivity_check'] } = {}) {
      codeCounter += 1;
      const instanceCode =
        code ??
        `T${String.fromCharCode(65 + (codeCounter % 26))}${String.fromCharCode(65 + (Math.floor(codeCounter / 26) % 26))}`;
      const { instance } = await createInstance(app.services, {
        name: `Tenant ${instanceCode}`,
        code: instanceCode,
        demoCatalog,
      });
      const credentials = await createApplication(app.services, { instance: instance.id, roles });
      const signIn = await anonymous.post('/authentication', {
        client_id: credentials.clientId,
        client_secret: credentials.clientSecret,
      });
      if (signIn.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(signIn.body)}`);
      return {
        instanceId: instance.id,
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        api: anonymous.withToken(signIn.body.data.auth_token),
      };
    },
    async close() {
      await app.stop();
      temp?.remove();
    },
  };
}

export { waitFor } from './wait.js';

/** The contract's own example batch: an address given as fields and one given as coordinates. */
export const contractExampleBatch = [
  {
    address: {
      country_code: 'NL',
      street: 'Lijnbaansgracht',
      city: 'Amsterdam',
      house_number: '206',
      house_number_addition: 'H',
      postal_code: '1016 XA',
    },
  },
  { address: { coordinates: { latitude: 52.36801, longitude: 4.879151 } } },
] as const;
