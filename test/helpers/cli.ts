import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** What a CLI run printed and how it exited. */
export interface CliResult {
  /** The exit code; null when the run was killed (see `timedOut`). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Whether the process was still running after `timeoutMs` and was killed. */
  timedOut: boolean;
}

/** How to run the CLI beyond its arguments. */
export interface CliOptions {
  /** Environment on top of `DATABASE_URL` and `LOG_LEVEL=silent` (e.g. `REDIS_URL`). */
  env?: Record<string, string>;
  /**
   * How long the process may run before it is killed (SIGKILL) and reported as `timedOut`, in ms; default
   * 60 000. An operator's command must exit on its own: one that prints its result and hangs times out.
   */
  timeoutMs?: number;
}

/** Runs the operator CLI as a child process on `databasePath`, as an operator would. */
export function runCli(databasePath: string, args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databasePath,
      LOG_LEVEL: 'silent',
      ...options.env,
    };
    // The test runner's own options (vitest's loaders) are not the CLI's.
    delete env.NODE_OPTIONS;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: projectRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}
