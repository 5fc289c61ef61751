import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../helpers/app.js';

/** The repository root, where `npm start` runs. */
export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/** A service process started by a test, with what it has written so far. */
export interface ServiceProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then waits for the exit; SIGKILL if it has not exited after 15 s. */
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` in the repository root with `env` over the test's own environment, and resolves once
 * its standard output contains `readyText` (rejects with its standard error when it exits first or takes
 * longer than 30 s).
 */
export async function startServiceProcess(
  args: string[],
  env: Record<string, string>,
  readyText: string,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, args, {
    cwd: projectRoot,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
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
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
  };
  await waitFor(
    async () => ({ ready: stdout.includes(readyText), exited: child.exitCode !== null }),
    (state) => state.ready || state.exited,
    30_000,
  );
  if (!stdout.includes(readyText)) {
    await stop();
    throw new Error(`the process did not start: ${stderr}\n${stdout}`);
  }
  return { child, stdout: () => stdout, stderr: () => stderr, exited, stop };
}

/** The JSON lines of a process's standard output that parse (the demo seed's text lines are skipped). */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
