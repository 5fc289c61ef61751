import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, tempDatabasePath, waitFor } from '../helpers/app.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A service process started by a test. */
interface RunningService {
  child: ChildProcessByStdio<null, Readable, Readable>;
  api: ApiClient;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<RunningService>();
const databases: { remove(): void }[] = [];

/**
 * Starts `src/main.ts` as `npm start` would, on `databasePath`, and resolves once it logs that it listens
 * (which it does after the first-start seed, so the seed output is complete by then).
 */
async function startService(databasePath: string): Promise<RunningService> {
  const port = await getPort({ host: '127.0.0.1' });
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databasePath,
      SOURCE_LATENCY_SCALE: '0',
      LOG_LEVEL: 'info',
      NODE_ENV: 'test',
      SEED_DEMO: 'true',
      TOKEN_SIGNING_SECRET: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const service: RunningService = {
    child,
    api: new ApiClient(`http://127.0.0.1:${port}`),
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
  };
  running.add(service);
  await waitFor(
    async () => ({
      listening: stdout.includes('connectivity gateway listening'),
      exited: child.exitCode !== null,
    }),
    (state) => state.listening || state.exited,
    20_000,
  );
  if (!stdout.includes('connectivity gateway listening')) {
    throw new Error(`the service did not start: ${stderr}`);
  }
  return service;
}

/** Sends SIGTERM and waits for the process to exit. */
async function stopService(
  service: RunningService,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  service.child.kill('SIGTERM');
  const exit = await service.exited;
  running.delete(service);
  return exit;
}

/** The demo credentials printed on first start, or null when none were printed. */
function printedCredentials(stdout: string): { clientId: string; clientSecret: string } | null {
  const clientId = /^ {2}client_id: +(\S+)$/m.exec(stdout)?.[1];
  const clientSecret = /^ {2}client_secret: +(\S+)$/m.exec(stdout)?.[1];
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}

function newDatabase(): string {
  const database = tempDatabasePath();
  databases.push(database);
  return database.path;
}

afterEach(async () => {
  for (const service of running) {
    if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
    await service.exited;
  }
  running.clear();
  for (const database of databases.splice(0)) database.remove();
});

describe('the service process', () => {
  it('when started on an empty database, then it prints demo credentials that work and answers its probes', async () => {
    const service = await startService(newDatabase());

    const credentials = printedCredentials(service.stdout());
    expect(credentials).toEqual({
      clientId: expect.stringMatching(/^cli_/),
      clientSecret: expect.any(String),
    });
    expect(service.stdout()).toContain('Demo instance DEMO created.');

    const health = await service.api.get('/healthz');
    expect([health.status, health.body]).toEqual([200, { status: 'ok' }]);
    const ready = await service.api.get('/readyz');
    expect([ready.status, ready.body]).toEqual([
      200,
      { status: 'ready', database: true, redis: null, worker: true },
    ]);

    const anonymous = await service.api.graphql('{ availabilityOptions(countryCode: "NL") { countryCode } }');
    expect(anonymous.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    const signIn = await service.api.post('/authentication', {
      client_id: credentials?.clientId,
      client_secret: credentials?.clientSecret,
    });
    expect(signIn.status).toBe(200);
    expect(signIn.body.data.user.roles).toEqual(['instance_admin', 'connectivity_check']);
    const options = await service.api
      .withToken(signIn.body.data.auth_token)
      .graphql('{ availabilityOptions(countryCode: "NL") { filters { networks } } }');
    expect(options).toEqual({
      data: {
        availabilityOptions: {
          filters: { networks: ['Colt', 'Eurofiber', 'KPN', 'Tele2', 'Zayo', 'Ziggo'] },
        },
      },
    });
  });

  it('when sent SIGTERM, then it exits with code 0', async () => {
    const service = await startService(newDatabase());

    const exit = await stopService(service);

    expect(exit).toEqual({ code: 0, signal: null });
    expect(service.stdout()).toContain('"msg":"shutting down"');
  });

  it('when restarted on the same database, then it prints no new credentials and the old ones still work', async () => {
    const databasePath = newDatabase();
    const first = await startService(databasePath);
    const credentials = printedCredentials(first.stdout());
    expect(await stopService(first)).toEqual({ code: 0, signal: null });

    const second = await startService(databasePath);

    expect(printedCredentials(second.stdout())).toBeNull();
    expect(second.stdout()).not.toContain('Demo instance');
    const signIn = await second.api.post('/authentication', {
      client_id: credentials?.clientId,
      client_secret: credentials?.clientSecret,
    });
    expect(signIn.status).toBe(200);
    expect(signIn.body.data.auth_token).toEqual(expect.any(String));
  });
});
