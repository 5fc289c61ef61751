import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import getPort from 'get-port';
import pg from 'pg';

const run = promisify(execFile);

/** A PostgreSQL server the tests use: its admin URL, and `stop()` for one this run started itself. */
export interface TestPostgres {
  adminUrl: string;
  stop(): Promise<void>;
  /**
   * Stops the server in `immediate` mode (what a crash, a failover or an OOM kill looks like to its clients:
   * every connection cut, no checkpoint), keeping its data; only for a cluster this run started.
   */
  crash?(): Promise<void>;
  /** Starts a {@link crash}ed server again on the same port and data (it recovers from its WAL first). */
  restart?(): Promise<void>;
}

/** The newest installed Debian PostgreSQL's `bin` folder (`/usr/lib/postgresql/<major>/bin`). */
function postgresBinaries(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const bin = majors.map((major) => join(root, major, 'bin')).find((dir) => existsSync(join(dir, 'initdb')));
  if (!bin) {
    throw new Error(
      'No PostgreSQL server for the tests: install Debian’s postgresql package (.ci/run does), or set ' +
        'TEST_POSTGRES_URL to an existing server’s admin URL.',
    );
  }
  return bin;
}

/**
 * Starts a throwaway PostgreSQL cluster this run owns: `initdb` in a temporary folder (as the `postgres`
 * user when running as root — initdb refuses root), a server on a free port of 127.0.0.1, trust
 * authentication, durability off (fsync, synchronous commit, full-page writes: a test database outlives
 * nothing). `stop()` stops it and removes the folder.
 *
 * `durable: true` keeps PostgreSQL's default durability, for tests that crash the server (`crash()`): with
 * synchronous commit off, a commit acknowledged in the last moments before an immediate stop is lost with
 * the WAL buffers, as no deployment would lose it.
 */
export function startThrowawayPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  return startPostgresCluster({
    directory: mkdtempSync(join(tmpdir(), 'gateway-pg-')),
    keep: false,
    durable: options.durable ?? false,
  });
}

/**
 * Starts a PostgreSQL cluster in `directory` (its data in `directory/data`, its socket in `directory`):
 * `initdb` first when there is no cluster there yet (as the `postgres` user when running as root), then a
 * server on a free port of 127.0.0.1 with trust authentication.
 *
 * - `durable: true` keeps PostgreSQL's default durability (fsync, synchronous commit, full-page writes), as
 *   a deployment runs, for measurements; otherwise they are off, as tests want.
 * - `keep: true` leaves the folder on `stop()` (a fast shutdown), so the next run starts on the same data
 *   (`npm run bench` keeps its seeded database that way); otherwise `stop()` removes it.
 */
export async function startPostgresCluster(options: {
  directory: string;
  keep: boolean;
  durable?: boolean;
  /** Further server settings (`-c name=value`), e.g. `{ shared_buffers: '2GB' }`. */
  settings?: Record<string, string>;
}): Promise<TestPostgres> {
  const bin = postgresBinaries();
  const dir = options.directory;
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  mkdirSync(dir, { recursive: true });
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const as = (command: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args])
      : run(join(bin, command), args);
  if (!existsSync(join(data, 'PG_VERSION'))) {
    await as('initdb', [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
  }
  const port = await getPort({ host: '127.0.0.1' });
  const durability = options.durable
    ? []
    : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    ...durability,
    '-c max_connections=200',
    ...Object.entries(options.settings ?? {}).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  const start = () =>
    as('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-o', settings, 'start']);
  await start();
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async crash() {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    async restart() {
      await start();
    },
    async stop() {
      if (options.keep) {
        await as('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
        return;
      }
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh, empty database on the test server for one test file: its URL, and `drop()`, which ends its
 * connections and drops it.
 */
export async function createTestDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gateway_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => dropDatabase(adminUrl, name),
  };
}

/**
 * A fresh database whose default collation is linguistic (ICU `en-US`), as on most production servers
 * (`en_US.UTF-8`): an order or comparison relying on the default collation differs there from SQLite's
 * byte order, and an index in that collation cannot serve a bytewise (`COLLATE "C"`) order. A server
 * without ICU gets a plain test database ({@link createTestDatabase}).
 */
export async function createLinguisticDatabase(
  adminUrl: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gateway_test_icu_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(
      `CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`,
    );
  } catch {
    return createTestDatabase(adminUrl);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => dropDatabase(adminUrl, name),
  };
}

/**
 * Drops a test database. Connections that a test's pool is still closing (`pool.end()` resolves before
 * their sockets are gone) are given up to 5 s to leave first: `WITH (FORCE)` would otherwise end them with
 * an error (57P01) that their already-ended pool no longer handles. Whatever is left then is forced.
 */
async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (let waited = 0; waited < 5_000; waited += 50) {
      const { rows } = await client.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
        [name],
      );
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
