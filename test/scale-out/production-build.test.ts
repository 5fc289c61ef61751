import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../scripts/build.js';
import { contractExampleBatch, waitFor } from '../helpers/app.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';

/*
 * The production start (issue 17, item 8): `npm run build` compiles src/ into a folder of JavaScript that
 * plain `node` runs. Built here into a temporary folder laid out as a deployment is — the build beside
 * `data/`, `package.json` and `node_modules/`, nothing else of the repository — so that a file the service
 * reads at run time and the build forgot fails here, not in production.
 *
 * The build skips type-checking (`tsc --noCheck`, the same JavaScript; `npm test` type-checks first) to
 * keep the suite short. These tests touch no shared store, so they run in the `sqlite` project only.
 */

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const onlyInSqliteProject = process.env.TEST_DATABASE === 'postgres';

describe.skipIf(onlyInSqliteProject)('the production build, run with plain node', () => {
  let deployment: string;
  let api: GatewayProcess | undefined;
  let worker: GatewayProcess | undefined;
  let credentials: { clientId: string; clientSecret: string };

  beforeAll(async () => {
    deployment = mkdtempSync(join(tmpdir(), 'gateway-build-'));
    build({ outDir: join(deployment, 'dist'), typeCheck: false });
    copyFileSync(join(projectRoot, 'package.json'), join(deployment, 'package.json'));
    symlinkSync(join(projectRoot, 'node_modules'), join(deployment, 'node_modules'));
    symlinkSync(join(projectRoot, 'data'), join(deployment, 'data'));

    const database = join(deployment, 'gateway.db');
    api = await startGatewayProcess({
      build: join(deployment, 'dist'),
      env: { DATABASE_URL: database, SEED_DEMO: 'true', LOG_LEVEL: 'info' },
      readyTimeoutMs: 45_000,
    });
    const seeded = /client_id: +(\S+)\n +client_secret: +(\S+)\n/.exec(api.output());
    if (!seeded?.[1] || !seeded[2]) throw new Error(`no demo credentials printed:\n${api.output()}`);
    credentials = { clientId: seeded[1], clientSecret: seeded[2] };
  }, 90_000);

  afterAll(async () => {
    await Promise.all([api?.stop(), worker?.stop()]);
    if (deployment) rmSync(deployment, { recursive: true, force: true });
  });

  it('when the build runs with plain node on a fresh SQLite file, then it is ready, seeds the demo instance and serves the contract’s flow', async () => {
    const ready = await fetch(`${api?.url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { status: 'ready', database: true, redis: null, worker: true },
    ]);
    const signIn = await fetch(`${api?.url}/authentication`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: credentials.clientId, client_secret: credentials.clientSecret }),
    });
    expect(signIn.status).toBe(200);
    const token: string = (await signIn.json()).data.auth_token;
    const headers = { 'x-auth-token': token, 'content-type': 'application/json' };

    const empty = await fetch(`${api?.url}/availability-requests`, { headers });
    expect(empty.status).toBe(200);
    expect((await empty.json()).data).toEqual([]);

    // Gathered by the build's worker from the demo catalogue (data/catalogs) at its seven sources.
    const created = await fetch(`${api?.url}/availability-requests`, {
      method: 'POST',
      headers,
      body: JSON.stringify([contractExampleBatch[0]]),
    });
    expect(created.status).toBe(201);
    const id: string = (await created.json()).data[0].id;
    const done = await waitFor(
      async () => (await (await fetch(`${api?.url}/availability-requests/${id}`, { headers })).json()).data,
      (request) => request.status === 'completed',
    );
    expect(done.sources.map((source: { status: string }) => source.status)).toEqual(
      Array(7).fill('succeeded'),
    );
    const list = await fetch(`${api?.url}/availability-requests`, { headers });
    expect((await list.json()).data.map((request: { id: string }) => request.id)).toEqual([id]);
  });

  it('when the build serves its files read beside the modules, then the dashboard, the API reference and the OpenAPI document answer', async () => {
    const dashboard = await fetch(`${api?.url}/dashboard/`);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toBe(
      readFileSync(join(projectRoot, 'src/dashboard/static/index.html'), 'utf8'),
    );

    const docs = await fetch(`${api?.url}/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);

    const openapi = await fetch(`${api?.url}/openapi.json`);
    expect(openapi.status).toBe(200);
    const { version } = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
    expect((await openapi.json()).info.version).toBe(version);
  });

  it('when the build’s worker entry point runs beside it on the same file, then its probes say the worker runs', async () => {
    worker = await startGatewayProcess({
      build: join(deployment, 'dist'),
      role: 'worker',
      env: { DATABASE_URL: join(deployment, 'gateway.db') },
      readyTimeoutMs: 45_000,
    });
    const ready = await fetch(`${worker.url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { status: 'ready', database: true, redis: null, worker: true },
    ]);
    const api404 = await fetch(`${worker.url}/availability-requests`);
    expect(api404.status).toBe(404);
  });

  it('when the build has run, then nothing it logged is an error (the WAL checkpoint thread and the migrations loaded)', async () => {
    await api?.stop();
    await worker?.stop();
    const levels = `${api?.output()}\n${worker?.output()}`
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { level: number; msg: string }).level);
    expect(levels.length).toBeGreaterThan(0);
    expect(levels.filter((level) => level >= 50)).toEqual([]);
  });
});
