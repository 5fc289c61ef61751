import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  productionNodeFlags,
  repositoryRoot,
  type ServerProcess,
  startServer,
  whilePaused,
} from '../../bench/lib/process.js';
import { waitFor } from '../helpers/wait.js';

const ticker = { script: 'test/fixtures/bench/ticker.ts', readyPath: '/healthz' };

/** The ticks the server's 10 ms interval has counted so far. */
async function ticks(server: ServerProcess): Promise<number> {
  const response = await fetch(`${server.url}/ticks`);
  return Number(await response.text());
}

describe('pausing the servers of a bench scenario', () => {
  let measured: ServerProcess;
  let other: ServerProcess;
  beforeAll(async () => {
    [measured, other] = await Promise.all([startServer(ticker), startServer(ticker)]);
  });
  afterAll(async () => {
    await Promise.all([measured?.stop(), other?.stop()]);
  });

  it('when a load runs with the other server paused, then the other does not run meanwhile, the measured one answers, and the other runs again after', async () => {
    const before = await ticks(other);

    const answered = await whilePaused([other], async () => {
      const first = await ticks(measured);
      await sleep(500);
      return (await ticks(measured)) - first;
    });
    const after = await ticks(other);

    // Running, each would have counted about 50 ticks in the 500 ms; paused, at most the tick due at the
    // pause and the one due at the resume.
    expect(answered).toBeGreaterThan(10);
    expect(after - before).toBeLessThanOrEqual(3);
    await waitFor(
      () => ticks(other),
      (now) => now >= after + 10,
    );
  });

  it('when the load throws, then the other server is resumed all the same', async () => {
    const load = whilePaused([other], async () => {
      throw new Error('the load failed');
    });

    await expect(load).rejects.toThrow('the load failed');
    const after = await ticks(other);
    await waitFor(
      () => ticks(other),
      (now) => now >= after + 10,
    );
  });

  it('when a paused server is stopped, then it ends on SIGTERM, not on the SIGKILL 5 s later', async () => {
    const server = await startServer(ticker);
    server.pause();

    await server.stop();

    // A stopped process keeps a SIGTERM pending until it is continued: stop() continues it first.
    expect(server.child.signalCode).toBe('SIGTERM');
  });
});

describe('the node flags of the servers a bench starts', () => {
  const scripts = (
    JSON.parse(readFileSync(`${repositoryRoot}/package.json`, 'utf8')) as { scripts: Record<string, string> }
  ).scripts;

  it('when package.json starts the service, then every server script gives node the flags the bench reads from start:prod', () => {
    expect(productionNodeFlags()).toEqual(['--max-semi-space-size=32']);
    expect(scripts['start:prod']).toBe('node --max-semi-space-size=32 dist/main.js');
    expect(scripts['worker:prod']).toBe('node --max-semi-space-size=32 dist/worker-main.js');
    expect(scripts.start).toBe('tsx --max-semi-space-size=32 src/main.ts');
    expect(scripts.worker).toBe('tsx --max-semi-space-size=32 src/worker-main.ts');
  });

  it('when the bench starts a server, then the process runs with those flags before its own', async () => {
    const server = await startServer({ ...ticker, nodeArgs: ['--no-warnings'] });
    try {
      const response = await fetch(`${server.url}/exec-argv`);
      const execArgv = (await response.json()) as string[];

      expect(execArgv.slice(0, 2)).toEqual(['--max-semi-space-size=32', '--no-warnings']);
    } finally {
      await server.stop();
    }
  });
});
