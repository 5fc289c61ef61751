import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import getPort from 'get-port';

/** A Redis server for tests: its URL, and `stop()`, which ends it and removes its folder. */
export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The Debian `redis-server` binary, or an error saying how to get it. */
function redisBinary(): string {
  const binary = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((path) => existsSync(path));
  if (!binary) {
    throw new Error(
      'No Redis server for the tests: install Debian’s redis-server package (.ci/run does), or set ' +
        'TEST_REDIS_URL to an existing server.',
    );
  }
  return binary;
}

/**
 * A Redis server of its own for one test file: `TEST_REDIS_URL` when set (an existing server; `stop()` then
 * only flushes nothing and returns), else a throwaway `redis-server` (Debian's package) on a free port of
 * 127.0.0.1 — or on `options.port`, to start one again where a stopped one was — without persistence, in a
 * temporary folder removed by `stop()`. Resolves once it answers.
 *
 * @throws Error when no `redis-server` is installed or it does not start within 10 s.
 */
export async function startTestRedis(options: { port?: number } = {}): Promise<TestRedis> {
  const existing = process.env.TEST_REDIS_URL;
  if (existing && options.port === undefined)
    return { url: existing, port: Number(new URL(existing).port || 6379), stop: async () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'gateway-redis-'));
  const port = options.port ?? (await getPort({ host: '127.0.0.1' }));
  const child: ChildProcess = spawn(
    redisBinary(),
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    const check = () => {
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
