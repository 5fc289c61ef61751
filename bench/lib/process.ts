import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { build } from '../../scripts/build.js';

/** The repository root, for child processes' working directory. */
export const repositoryRoot = new URL('../..', import.meta.url).pathname;

/** A free TCP port on 127.0.0.1 (the OS picks it; it is released before being returned). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The production build the gateway's scripts run from, once {@link buildGateway} has made it. */
let gatewayBuild: string | null = null;

/**
 * Builds the gateway as it is deployed (`npm run build`: tsc's JavaScript in `dist/`, see `scripts/build.ts`),
 * once per run, so that {@link startServer} runs `src/…` scripts as `npm run start:prod` does: plain
 * `node dist/….js`, not tsx's loader, whose transform wraps every function made at run time in a naming
 * helper. Type checking is left to `npm run typecheck`.
 */
export function buildGateway(): void {
  gatewayBuild ??= build({ typeCheck: false });
}

/**
 * The command line of `script`: a gateway script (`src/….ts`) from the production build, anything else
 * (the baselines, the simulator) through tsx's loader in the same process.
 * @throws Error for a gateway script before {@link buildGateway}.
 */
function scriptArguments(script: string): string[] {
  if (!script.startsWith('src/')) return ['--import', 'tsx', script];
  if (!gatewayBuild) throw new Error(`buildGateway() must run before ${script} is started`);
  return [join(gatewayBuild, script.slice('src/'.length).replace(/\.ts$/, '.js'))];
}

/** A server started in its own process for a measurement. */
export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** Peak resident set size so far (Linux `VmHWM`), in MiB; null when /proc is not readable. */
  peakRssMiB(): number | null;
  /** Current resident set size (Linux `VmRSS`), in MiB; null when /proc is not readable. */
  rssMiB(): number | null;
  /**
   * Freezes the process (SIGSTOP) until `resume()`: while another server is measured, its timers and
   * background work (the gateway's worker gathering what a create scenario queued) take no CPU.
   */
  pause(): void;
  /** Lets a paused process run again (SIGCONT); harmless when it is not paused. */
  resume(): void;
  /**
   * SIGCONT (a paused process would not act on SIGTERM), SIGTERM, then SIGKILL after 5 s; resolves when the
   * process is gone.
   */
  stop(): Promise<void>;
}

function procStatusMiB(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The node flags `npm run start:prod` gives the gateway (package.json), e.g. `--max-semi-space-size=32`.
 * {@link startServer} starts every server with them, the baselines too, so that gateway and ceiling run with
 * the same V8 heap settings as production.
 *
 * @throws Error when `start:prod` is not a `node …` command line.
 */
export function productionNodeFlags(): string[] {
  const manifest = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const words = (manifest.scripts?.['start:prod'] ?? '').trim().split(/\s+/);
  if (words[0] !== 'node')
    throw new Error(`package.json's start:prod is not a node command line: ${words.join(' ')}`);
  return words.slice(1).filter((word) => word.startsWith('--'));
}

/**
 * Starts `node [production flags] [nodeArgs] script` from the repository root with `PORT` and `HOST=127.0.0.1` set, and
 * waits until `GET readyPath` answers 2xx (30 s at most). The gateway's scripts (`src/…`) run from its
 * production build ({@link buildGateway}); other TypeScript scripts through tsx's loader in the same
 * process. Either way the pid measured is the server's own. Output goes to /dev/null unless
 * `BENCH_VERBOSE` is set, so logging costs the server what it costs in production, not a pipe reader.
 *
 * @throws Error when the process exits or does not become ready in time.
 */
export async function startServer(options: {
  script: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
  readyPath?: string;
}): Promise<ServerProcess> {
  const port = await freePort();
  const output = process.env.BENCH_VERBOSE ? 'inherit' : openSync('/dev/null', 'w');
  // BENCH_CPU_PROF=<dir>: every server writes a V8 CPU profile there when it stops (open it in Chrome's
  // DevTools or speedscope); measurements taken while profiling are slower and are not for the report.
  // A server paused while another is measured (`pause()`) books the whole pause on the one sample taken
  // after it resumes: leave out samples of more than a fraction of a second when reading the profile.
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  // BENCH_NODE_ARGS='--perf-basic-prof …': node flags for every server, gateway and baselines alike, e.g. for
  // `perf record -g -p <pid>` to name JIT-compiled JavaScript frames beside SQLite's and the kernel's.
  const extra = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const nodeArgs = [...productionNodeFlags(), ...profile, ...extra, ...(options.nodeArgs ?? [])];
  const child = spawn(process.execPath, [...nodeArgs, ...scriptArguments(options.script)], {
    cwd: repositoryRoot,
    env: { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', output, output],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (gone) throw new Error(`${options.script} exited before it was ready`);
    try {
      const response = await fetch(`${url}${options.readyPath ?? '/'}`);
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.script} was not ready within 30 s`);
    }
    await sleep(100);
  }
  const pid = child.pid ?? 0;
  return {
    url,
    port,
    pid,
    child,
    peakRssMiB: () => procStatusMiB(pid, 'VmHWM'),
    rssMiB: () => procStatusMiB(pid, 'VmRSS'),
    pause: () => {
      if (!gone) child.kill('SIGSTOP');
    },
    resume: () => {
      if (!gone) child.kill('SIGCONT');
    },
    stop: async () => {
      if (gone) return;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Runs `measure` with each of `others` paused ({@link ServerProcess.pause}), and resumes them when it ends,
 * whether it resolves or throws: the measured server has the machine to itself, whatever the others would
 * do in the background meanwhile.
 */
export async function whilePaused<T>(others: Iterable<ServerProcess>, measure: () => Promise<T>): Promise<T> {
  const paused = [...others];
  for (const other of paused) other.pause();
  try {
    return await measure();
  } finally {
    for (const other of paused) other.resume();
  }
}

/**
 * Samples a process's resident set size (VmRSS) every `intervalMs` until `stop()` is called, and returns
 * the highest value seen, in MiB (null when /proc is not readable). Use it around one load, so servers
 * that serve several loads in a row report each load's own peak.
 */
export function watchRss(pid: number, intervalMs = 50): { stop(): number | null } {
  let peak: number | null = procStatusMiB(pid, 'VmRSS');
  const timer = setInterval(() => {
    const now = procStatusMiB(pid, 'VmRSS');
    if (now !== null && (peak === null || now > peak)) peak = now;
  }, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      const now = procStatusMiB(pid, 'VmRSS');
      if (now !== null && (peak === null || now > peak)) peak = now;
      return peak;
    },
  };
}
