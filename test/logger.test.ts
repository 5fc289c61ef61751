import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat } from '../src/logger.js';

const loggerModule = fileURLToPath(new URL('../src/logger.ts', import.meta.url));

describe('chooseLogFormat', () => {
  it.each([
    { isTTY: true, nodeEnv: 'development', format: 'pretty' },
    { isTTY: true, nodeEnv: 'test', format: 'pretty' },
    { isTTY: true, nodeEnv: undefined, format: 'pretty' },
    { isTTY: true, nodeEnv: 'production', format: 'json' },
    { isTTY: false, nodeEnv: 'development', format: 'json' },
    { isTTY: undefined, nodeEnv: 'development', format: 'json' },
    { isTTY: undefined, nodeEnv: 'production', format: 'json' },
  ] as const)(
    'when isTTY is $isTTY and NODE_ENV is $nodeEnv, then lines are $format',
    ({ isTTY, nodeEnv, format }) => {
      expect(chooseLogFormat({ isTTY, nodeEnv })).toBe(format);
    },
  );
});

describe('createLogger', () => {
  it('when the format is pretty, then a line reads as level, message and fields, not JSON, and is written before the process is killed', () => {
    const script = `
      import { createLogger } from ${JSON.stringify(loggerModule)};
      const logger = createLogger('info', { format: 'pretty' });
      logger.info({ instanceCode: 'DEMO' }, 'demo instance created');
      process.kill(process.pid, 'SIGKILL');
    `;
    // Off a terminal and without FORCE_COLOR (which vitest sets), pino-pretty writes no colour codes.
    const { FORCE_COLOR: _forced, ...env } = process.env;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...env, NODE_OPTIONS: '' },
    });

    expect(child.signal).toBe('SIGKILL');
    const lines = child.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: demo instance created$/),
      '    instanceCode: "DEMO"',
    ]);
  });

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
