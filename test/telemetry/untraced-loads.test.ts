import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempSqlitePath } from '../helpers/app.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { startOtlpReceiver } from './otlp-receiver.js';
import { tracingEnv } from './traced-request.js';

/*
 * Issue 47: without tracing configured nothing of the OpenTelemetry SDK is loaded — only the API
 * (`@opentelemetry/api`, whose calls are no-ops without a provider). Each gateway process records the URL of
 * every module it loads (`./record-module-loads.mjs`, preloaded); the same gateway with an OTLP endpoint shows
 * what tracing loads, so the first check can fail. One process on SQLite each (the SQLite project only): what loads is the process's, not the store's.
 */

/** The `@opentelemetry/*` and `@envelop/opentelemetry` packages among the modules a process loaded. */
function tracingPackages(loaded: string): string[] {
  const names = loaded
    .split('\n')
    .map((url) => /\/node_modules\/(@opentelemetry\/[^/]+|@envelop\/opentelemetry)\//.exec(url)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)].sort();
}

describe('what a process loads for tracing', () => {
  const cleanups: (() => unknown)[] = [];

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  /** Starts a gateway with `env`, serves one request, stops it; the modules it loaded. */
  async function loadedBy(env: Record<string, string>): Promise<string> {
    const database = tempSqlitePath();
    cleanups.push(database.remove);
    const record = join(database.path, '..', 'loaded-modules.txt');
    const gateway: GatewayProcess = await startGatewayProcess({
      nodeArgs: ['--import', './test/telemetry/record-module-loads.mjs'],
      env: { DATABASE_URL: database.path, RECORD_MODULE_LOADS: record, ...env },
      readyTimeoutMs: 90_000,
    });
    cleanups.push(() => gateway.stop());
    expect((await fetch(`${gateway.url}/openapi.json`)).status).toBe(200);
    expect(await gateway.stop()).toEqual({ code: 0, signal: null });
    return readFileSync(record, 'utf8');
  }

  it('when no OTLP endpoint is configured, then of OpenTelemetry only the API is loaded; with one, the SDK, its exporter and instrumentations', async () => {
    const untraced = await loadedBy({});
    expect(untraced).toContain('/src/server/run.ts');
    expect(tracingPackages(untraced)).toEqual(['@opentelemetry/api']);

    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const traced = tracingPackages(await loadedBy(tracingEnv(receiver, 'gateway-loads')));
    expect(traced).toEqual(
      expect.arrayContaining([
        '@envelop/opentelemetry',
        '@opentelemetry/api',
        '@opentelemetry/context-async-hooks',
        '@opentelemetry/core',
        '@opentelemetry/exporter-trace-otlp-http',
        '@opentelemetry/instrumentation',
        '@opentelemetry/instrumentation-http',
        '@opentelemetry/instrumentation-ioredis',
        '@opentelemetry/instrumentation-pg',
        '@opentelemetry/instrumentation-undici',
        '@opentelemetry/resources',
        '@opentelemetry/sdk-trace',
      ]),
    );
  }, 240_000);
});
