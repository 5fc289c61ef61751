import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** How a gateway process ended: its exit code, or the signal that ended it. */
export interface GatewayExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A gateway running as a process of its own, as an operator runs it. */
export interface GatewayProcess {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  pid: number;
  /** What the process wrote to stdout and stderr so far (the last 256 KiB). */
  output(): string;
  /** Resolves when the process has ended (also after {@link kill} or {@link stop}). */
  exited: Promise<GatewayExit>;
  /** Sends `signal` (`SIGKILL` for a crash, `SIGTERM` for a graceful stop); resolves when the process ended. */
  kill(signal: NodeJS.Signals): Promise<GatewayExit>;
  /** Resident memory of the process right now, in bytes (Linux `/proc/<pid>/status`, `VmRSS`). */
  rssBytes(): number;
  /**
   * Ends the process if it still runs — SIGTERM, then SIGKILL after `graceMs` (default 10 000) — and
   * resolves when it has ended. Safe to call more than once; for `afterAll`.
   */
  stop(graceMs?: number): Promise<GatewayExit>;
}

/** What to run and with which environment. */
export interface GatewayProcessOptions {
  /** `api` (`npm start`, the default) or `worker` (`npm run worker`). */
  role?: 'api' | 'worker';
  /**
   * A production build (`npm run build`'s output folder): runs its `main.js` / `worker-main.js` with plain
   * `node`. Without it the sources run through tsx (`node --import tsx src/main.ts`), as `npm start` does.
   */
  build?: string;
  /**
   * Environment on top of the defaults: `HOST=127.0.0.1`, a free `PORT`, `LOG_LEVEL=warn`, `NODE_ENV=test`,
   * `SEED_DEMO=false`, `SOURCE_LATENCY_SCALE=0`. `DATABASE_URL` is required.
   */
  env: Record<string, string> & { DATABASE_URL: string };
  /** How long to wait for `/readyz` to answer 200, in ms (default 30 000: tsx compiles on start). */
  readyTimeoutMs?: number;
  /** The process's working directory; the repository by default. */
  cwd?: string;
  /**
   * A command that runs node for the gateway, node's path and arguments appended (e.g. `setpriv --reuid=65534
   * --regid=65534 --clear-groups`, to run it as an unprivileged user); none by default. It must exec node,
   * so that `pid` stays node's.
   */
  wrapper?: string[];
  /** The `node` binary to run; the one running the tests (`process.execPath`) by default. */
  node?: string;
  /** Node's own options before the script (e.g. `--import` of a module that runs first); none by default. */
  nodeArgs?: string[];
}

const MAX_OUTPUT = 256 * 1024;

/**
 * Starts a gateway as a child process of its own on a free port of 127.0.0.1 and resolves once its
 * `/readyz` answers 200.
 *
 * @throws Error (with the process's output) when it exits, or `/readyz` has not answered 200 within
 *   `readyTimeoutMs`; the process is then ended.
 */
export async function startGatewayProcess(options: GatewayProcessOptions): Promise<GatewayProcess> {
  const role = options.role ?? 'api';
  const port = Number(options.env.PORT ?? (await getPort({ host: '127.0.0.1' })));
  const args = [
    ...(options.nodeArgs ?? []),
    ...(options.build
      ? [join(options.build, role === 'api' ? 'main.js' : 'worker-main.js')]
      : ['--import', 'tsx', join('src', role === 'api' ? 'main.ts' : 'worker-main.ts')]),
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    NODE_ENV: 'test',
    SEED_DEMO: 'false',
    SOURCE_LATENCY_SCALE: '0',
    ...options.env,
  };
  // The test runner's own options (vitest's loaders, inspector flags) are not the gateway's.
  delete env.NODE_OPTIONS;
  const node = options.node ?? process.execPath;
  const [command = node, ...commandArgs] = [...(options.wrapper ?? []), node];
  const child: ChildProcess = spawn(command, [...commandArgs, ...args], {
    cwd: options.cwd ?? projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > MAX_OUTPUT) output = output.slice(-MAX_OUTPUT);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<GatewayExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  const kill = (signal: NodeJS.Signals) => {
    if (running()) child.kill(signal);
    return exited;
  };
  const stop = async (graceMs = 10_000) => {
    if (!running()) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (running()) child.kill('SIGKILL');
    }, graceMs);
    const exit = await exited;
    clearTimeout(timer);
    return exit;
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (!running()) {
      const exit = await exited;
      throw new Error(
        `the gateway (${role}) exited with ${exit.code ?? exit.signal} before ready:\n${output}`,
      );
    }
    const status = await fetch(`${url}/readyz`).then(
      (response) => response.arrayBuffer().then(() => response.status),
      () => 0,
    );
    if (status === 200) break;
    if (Date.now() > deadline) {
      await stop(1_000);
      throw new Error(
        `the gateway (${role}) was not ready within the timeout (last /readyz: ${status}):\n${output}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  return {
    url,
    port,
    pid: child.pid ?? 0,
    output: () => output,
    exited,
    kill,
    rssBytes: () => {
      const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      if (kib === undefined) throw new Error(`no VmRSS for process ${child.pid}`);
      return Number(kib) * 1024;
    },
    stop,
  };
}
