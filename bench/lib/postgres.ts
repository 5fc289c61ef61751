import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { postgresMigrationsFolder } from '../../src/db/postgres/migrate.js';
import { copyDatabaseToPostgres } from '../../src/resolvers/operator.js';
import { createServices } from '../../src/server/services.js';
import { startPostgresCluster } from '../../test/helpers/postgres-server.js';
import { repositoryRoot } from './process.js';
import { copyDataset, seedHash } from './seed.js';
import type { Dataset, PostgresDataset } from './types.js';

export type { PostgresCopy, PostgresDataset } from './types.js';

/*
 * The PostgreSQL side of the benchmark (issue 16): a server, the seeded data set copied into it once per
 * run, and a private database per measured server, each created from that copy.
 */

/** Where the bench's own cluster is kept between runs (when `BENCH_POSTGRES_URL` is not set). */
const cacheDirectory = join(repositoryRoot, 'bench/.cache/postgres');

/**
 * Settings of the bench's own cluster beyond PostgreSQL's defaults, as an operator sets them on a machine
 * like this one (24 GiB): shared buffers that hold the measured databases (the default 128 MB is meant for
 * any machine at all; with it, each create wrote back other pages' dirty buffers itself).
 */
const serverSettings = { shared_buffers: '2GB' };

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Cache key of the PostgreSQL seed: the SQLite seed's, and the PostgreSQL migrations (in name order). */
function postgresSeedName(): string {
  const hash = createHash('sha256').update(`${seedHash()}\n`);
  for (const name of readdirSync(postgresMigrationsFolder)
    .filter((file) => file.endsWith('.sql'))
    .sort()) {
    hash.update(`${name}\n`).update(readFileSync(join(postgresMigrationsFolder, name)));
  }
  return `bench_seed_${hash.digest('hex').slice(0, 16)}`;
}

/** Marks a finished seed database; one without the mark (an interrupted copy) is made again. */
const seededMark = 'connectivity-gateway bench seed, complete';

/**
 * Puts the seeded data set on a PostgreSQL server: `BENCH_POSTGRES_URL` (an existing server's admin URL;
 * the bench creates and drops databases of its own there), or else a cluster from Debian's `postgresql`
 * package kept in `bench/.cache/postgres` between runs, with PostgreSQL's default durability (fsync and
 * synchronous commit on, as deployed; see `startPostgresCluster`).
 *
 * The seed database (`bench_seed_<hash>`, see {@link postgresSeedName}) is made once — the SQLite seed
 * copied with the operator's own copy (`copyDatabaseToPostgres`: every row, counts and checksums compared,
 * about three minutes), then vacuumed and analysed, so every copy starts with statistics and a visibility
 * map as a long-running database has them — and reused while its hash stays the same. Seeds of other hashes
 * and copies left by an interrupted run are dropped.
 *
 * Each `copy()` is `CREATE DATABASE … TEMPLATE` of the seed: a file copy, a few seconds.
 */
export async function loadPostgresDataset(
  dataset: Dataset,
  log: (message: string) => void,
): Promise<PostgresDataset> {
  const existing = process.env.BENCH_POSTGRES_URL;
  const server = existing
    ? { adminUrl: existing, stop: async () => undefined }
    : await startPostgresCluster({
        directory: cacheDirectory,
        keep: true,
        durable: true,
        settings: serverSettings,
      });
  const seedName = postgresSeedName();
  const copies = new Set<string>();
  let copyCount = 0;
  try {
    const { version, seeded } = await withAdmin(server.adminUrl, async (admin) => {
      const { rows } = await admin.query<{ name: string; mark: string | null }>(
        `SELECT datname AS name, shobj_description(oid, 'pg_database') AS mark FROM pg_database
          WHERE datname LIKE 'bench\\_seed\\_%' OR datname LIKE 'bench\\_copy\\_%'`,
      );
      for (const row of rows) {
        if (row.name === seedName && row.mark === seededMark) continue;
        await admin.query(`DROP DATABASE "${row.name}" WITH (FORCE)`);
      }
      const found = rows.some((row) => row.name === seedName && row.mark === seededMark);
      const { rows: settings } = await admin.query<{ v: string }>(
        `SELECT current_setting('server_version') AS v`,
      );
      return { version: settings[0]?.v ?? 'unknown', seeded: found };
    });
    if (seeded) {
      log(`postgres: cached ${seedName} (PostgreSQL ${version})`);
    } else {
      await seedPostgres(dataset, server.adminUrl, seedName, log);
    }
    return {
      description: `PostgreSQL ${version} (${existing ? 'BENCH_POSTGRES_URL' : 'local cluster, default durability'})`,
      async copy() {
        copyCount += 1;
        const name = `bench_copy_${process.pid}_${copyCount}`;
        await withAdmin(server.adminUrl, (admin) =>
          admin.query(`CREATE DATABASE "${name}" TEMPLATE "${seedName}"`),
        );
        copies.add(name);
        return {
          url: databaseUrl(server.adminUrl, name),
          remove: async () => {
            copies.delete(name);
            await dropDatabase(server.adminUrl, name);
          },
        };
      },
      async stop() {
        for (const name of copies) await dropDatabase(server.adminUrl, name).catch(() => {});
        await server.stop();
      },
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Copies the SQLite seed into a new database `name`, analyses it, and marks it complete. */
async function seedPostgres(
  dataset: Dataset,
  adminUrl: string,
  name: string,
  log: (message: string) => void,
): Promise<void> {
  await withAdmin(adminUrl, (admin) =>
    admin.query(`CREATE DATABASE "${name}" TEMPLATE template0 ENCODING 'UTF8'`),
  );
  const started = Date.now();
  log(`postgres: copying the seeded data set into ${name} (once; kept afterwards)`);
  const source = copyDataset(dataset);
  const services = await createServices(
    loadConfig({ DATABASE_URL: source.path, LOG_LEVEL: 'silent', SEED_DEMO: 'false' }),
  );
  try {
    await copyDatabaseToPostgres(services, { to: databaseUrl(adminUrl, name) });
  } finally {
    await services.db.close();
    source.remove();
  }
  const seed = new pg.Client({ connectionString: databaseUrl(adminUrl, name) });
  await seed.connect();
  try {
    await seed.query('VACUUM ANALYZE');
  } finally {
    await seed.end();
  }
  await withAdmin(adminUrl, (admin) => admin.query(`COMMENT ON DATABASE "${name}" IS '${seededMark}'`));
  log(`postgres: seed copied and analysed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdmin(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
}
