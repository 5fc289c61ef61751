import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const loggerModule = fileURLToPath(new URL('../src/logger.ts', import.meta.url));

describe('createLogger', () => {
  it('when the process is killed right after logging, then every line it logged is on standard output', () => {
    // Three lines, then SIGKILL before the event loop runs again: an asynchronous destination would still
    // hold the lines after its first write (or all of them) in memory.
    const script = `
      import { createLogger } from ${JSON.stringify(loggerModule)};
      const logger = createLogger('info');
      for (const n of [1, 2, 3]) logger.info({ n }, 'line');
      process.kill(process.pid, 'SIGKILL');
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });

    expect(child.signal).toBe('SIGKILL');
    const lines = child.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map(({ n, msg, level }) => ({ n, msg, level }))).toEqual([
      { n: 1, msg: 'line', level: 30 },
      { n: 2, msg: 'line', level: 30 },
      { n: 3, msg: 'line', level: 30 },
    ]);
  });
});
