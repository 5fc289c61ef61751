import { readFileSync } from 'node:fs';
import { gatewayEnvironment } from '../scenarios/http-servers.js';
import { type ServerProcess, startServer } from './process.js';

/*
 * The gateway as the subscription and gathering scenarios drive it: started on a private copy of the
 * dataset (`copyDataset`), signed in with client credentials, spoken to with JSON.
 */

/**
 * Starts the gateway (`src/main.ts`) on `databasePath` as the HTTP scenarios run it (`gatewayEnvironment`:
 * production mode, logging at `info` into /dev/null, no demo seed, rate limits out of reach), with the
 * sign-in limit per client address raised too; `env` overrides or adds variables (e.g.
 * `GATHERING_CONCURRENCY`). Ready when `/readyz` answers 2xx.
 */
export function startGateway(databasePath: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  return startServer({
    script: 'src/main.ts',
    readyPath: '/readyz',
    env: {
      ...gatewayEnvironment,
      RATE_LIMIT_PER_ANONYMOUS_ADDRESS: '1000000000',
      DATABASE_URL: databasePath,
      ...env,
    },
  });
}

/** An answer of {@link requestJson}: status and parsed JSON body (null when empty). */
export interface JsonAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked where they are read.
  body: any;
}

/**
 * Sends one JSON request (`body` serialised when given) with the auth token, if any, as `X-Auth-Token`.
 * @throws Error when the status is not the expected one (default: any 2xx).
 */
export async function requestJson(
  url: string,
  options: { method?: string; token?: string; body?: unknown; expect?: number } = {},
): Promise<JsonAnswer> {
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
  const response = await fetch(url, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.token ? { 'x-auth-token': options.token } : {}),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  const ok = options.expect === undefined ? response.ok : response.status === options.expect;
  if (!ok) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return { status: response.status, body: text === '' ? null : JSON.parse(text) };
}

/** Signs in with client credentials (`POST /authentication`) and returns the auth token. */
export async function signIn(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const { body } = await requestJson(`${baseUrl}/authentication`, {
    body: { client_id: clientId, client_secret: clientSecret },
  });
  return body.data.auth_token as string;
}

/** The contract's example address (Amsterdam, 1016 XA), with another house number per `index`. */
export function benchAddress(index: number) {
  return {
    country_code: 'NL',
    street: 'Lijnbaansgracht',
    city: 'Amsterdam',
    house_number: String(1 + (index % 300)),
    house_number_addition: '',
    postal_code: '1016 XA',
  };
}

/**
 * CPU time a process has used so far (user + system, Linux `/proc/<pid>/stat`), in milliseconds at the
 * kernel's 10 ms tick; null when /proc is not readable.
 */
export function processCpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
