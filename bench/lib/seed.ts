import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../../src/config.js';
import { users } from '../../src/db/sqlite/schema/index.js';
import { createApplication, createInstance } from '../../src/resolvers/operator.js';
import { createServices } from '../../src/server/services.js';
import { createRandom } from './nl-data.js';
import { repositoryRoot } from './process.js';
import { seedAvailabilityRequests, seedCustomers } from './seed-rows.js';
import type { Dataset, DatasetInstance } from './types.js';

/**
 * Version of the seed's shape. Bump it whenever the generated data changes (generators in `seed-rows.ts`
 * and `nl-data.ts`, counts below): it is part of the cache key together with the migrations.
 */
export const SEED_VERSION = 4;

/** Availability requests seeded, spread evenly over the {@link benchInstanceCodes}. */
export const SEEDED_REQUESTS = 100_000;
/** Customers seeded in the first bench instance. */
export const SEEDED_CUSTOMERS = 10_000;
/** Codes of the instances with the demo catalogue and the seeded requests. */
export const benchInstanceCodes = ['BENCHA', 'BENCHB', 'BENCHC'] as const;
/** Code of the catalogue-less instance for fan-out: every request created there completes at once. */
export const fanoutInstanceCode = 'FANOUT';

const cacheDirectory = join(repositoryRoot, 'bench/.cache');
const migrationsDirectory = join(repositoryRoot, 'src/db/sqlite/migrations');

/** Cache key: SHA-256 over the migration SQL files (in name order) and {@link SEED_VERSION}, 16 hex digits. */
export function seedHash(): string {
  const hash = createHash('sha256').update(`seed-version:${SEED_VERSION}\n`);
  for (const name of readdirSync(migrationsDirectory)
    .filter((file) => file.endsWith('.sql'))
    .sort()) {
    hash.update(`${name}\n`).update(readFileSync(join(migrationsDirectory, name)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** What is kept beside the cached database: everything in {@link Dataset} but its path. */
type SeedCredentials = Omit<Dataset, 'databasePath'>;

/**
 * The benchmark data set: built once (~20–40 s on 2 cores) into `bench/.cache/seed-<hash>.db` with its
 * credentials in `seed-<hash>.json`, then reused while the migrations and {@link SEED_VERSION} stay the same.
 * Contents: instances BENCHA, BENCHB, BENCHC with the NL demo catalogue and {@link SEEDED_REQUESTS}
 * completed availability requests between them (with addresses, gathering tasks and products), BENCHA
 * also with {@link SEEDED_CUSTOMERS} customers, and instance FANOUT without a catalogue (listed last in
 * `instances`, and as `fanout`).
 * Each instance has one application with roles `instance_admin` and `connectivity_check`.
 *
 * @param log progress lines (to stderr).
 */
export async function loadDataset(log: (message: string) => void): Promise<Dataset> {
  const hash = seedHash();
  const databasePath = join(cacheDirectory, `seed-${hash}.db`);
  const credentialsPath = join(cacheDirectory, `seed-${hash}.json`);
  if (existsSync(databasePath) && existsSync(credentialsPath)) {
    log(`dataset: cached ${databasePath}`);
    return { databasePath, ...(JSON.parse(readFileSync(credentialsPath, 'utf8')) as SeedCredentials) };
  }
  mkdirSync(cacheDirectory, { recursive: true });
  const buildPath = join(cacheDirectory, `seed-${hash}.building-${process.pid}.db`);
  const started = Date.now();
  log(`dataset: building ${databasePath} (once; cached afterwards)`);
  try {
    const credentials = await buildDataset(buildPath, log);
    flushToDisk(buildPath);
    renameSync(buildPath, databasePath);
    writeFileSync(credentialsPath, `${JSON.stringify(credentials, null, 2)}\n`);
    log(`dataset: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    removeStaleSeeds(hash, log);
    return { databasePath, ...credentials };
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${buildPath}${suffix}`, { force: true });
  }
}

/** Removes cached seeds of other hashes (older migrations or seed versions): ~270 MB each. */
function removeStaleSeeds(hash: string, log: (message: string) => void): void {
  for (const name of readdirSync(cacheDirectory)) {
    const match = /^seed-([0-9a-f]{16})\.(db|json)$/.exec(name);
    if (match && match[1] !== hash) {
      rmSync(join(cacheDirectory, name), { force: true });
      log(`dataset: removed stale ${name}`);
    }
  }
}

async function buildDataset(path: string, log: (message: string) => void): Promise<SeedCredentials> {
  const config = loadConfig({ DATABASE_URL: path, LOG_LEVEL: 'silent', SEED_DEMO: 'false' });
  // The token-signing secret is generated here and kept in the file, so every copy signs alike.
  const services = await createServices(config);
  const store = services.db;
  if (store.connection.dialect !== 'sqlite') throw new Error('the bench dataset is built in a SQLite file');
  const { db } = store.connection;
  // A scratch file: durability does not matter until it is renamed into the cache.
  db.$client.pragma('synchronous = OFF');
  db.$client.pragma('cache_size = -262144');
  const now = Date.now();
  const random = createRandom(20_260_801);
  try {
    const instances: DatasetInstance[] = [];
    for (const [index, code] of benchInstanceCodes.entries()) {
      const { instance } = await createInstance(services, {
        name: `Benchmark ${code.slice(-1)} Connectivity`,
        code,
        demoCatalog: true,
      });
      const credentials = await createApplication(services, {
        instance: instance.id,
        name: 'Benchmark client',
        roles: ['instance_admin', 'connectivity_check'],
      });
      const userId = applicationUserId(db, instance.id);
      const plans = await store.listPricePlans(instance.id);
      const plan = plans.find((candidate) => candidate.isDefault);
      if (!plan) throw new Error(`instance ${code} has no default price plan`);
      const share = Math.floor(SEEDED_REQUESTS / benchInstanceCodes.length);
      const count = index === 0 ? SEEDED_REQUESTS - share * (benchInstanceCodes.length - 1) : share;
      const rows = seedAvailabilityRequests(db, {
        instanceId: instance.id,
        userId,
        plan,
        count,
        now,
        days: 90,
        random,
      });
      log(`dataset: ${code}: ${rows.requests} requests, ${rows.tasks} tasks, ${rows.products} products`);
      const customerCount =
        index === 0
          ? seedCustomers(db, {
              instanceId: instance.id,
              userId,
              defaultPlanId: plan.id,
              otherPlanId: plans.find((candidate) => !candidate.isDefault)?.id ?? plan.id,
              count: SEEDED_CUSTOMERS,
              now,
              days: 720,
              random,
            })
          : 0;
      if (customerCount > 0) log(`dataset: ${code}: ${customerCount} customers`);
      instances.push({
        id: instance.id,
        code,
        clientId: credentials.clientId,
        clientSecret: credentials.clientSecret,
        availabilityRequests: rows.requests,
        customers: customerCount,
      });
    }
    const { instance: fanoutInstance } = await createInstance(services, {
      name: 'Benchmark fan-out',
      code: fanoutInstanceCode,
    });
    const fanoutCredentials = await createApplication(services, {
      instance: fanoutInstance.id,
      name: 'Benchmark client',
      roles: ['instance_admin', 'connectivity_check'],
    });
    const fanout: DatasetInstance = {
      id: fanoutInstance.id,
      code: fanoutInstanceCode,
      clientId: fanoutCredentials.clientId,
      clientSecret: fanoutCredentials.clientSecret,
      availabilityRequests: 0,
      customers: 0,
    };
    checkListTotals(db.$client);
    db.$client.pragma('wal_checkpoint(TRUNCATE)');
    return { instances: [...instances, fanout], fanout };
  } finally {
    await store.close();
  }
}

/**
 * Checks that `list_totals` holds every instance's count of each counted list. The seed inserts its rows
 * in bulk, past the service, so only migration 0003's triggers keep the totals that the gateway and the
 * raw ceiling both serve as `total_items`; a seed that went around them would make every list page wrong.
 *
 * @throws Error naming the first total that differs from the count.
 */
function checkListTotals(client: Database.Database): void {
  const counted = client
    .prepare(
      `select instance_id, 'availability_requests', count(*) from availability_requests group by instance_id
       union all select instance_id, 'customers', count(*) from customers group by instance_id
       union all select instance_id, 'quotes', count(*) from quotes group by instance_id`,
    )
    .raw()
    .all() as [string, string, number][];
  const kept = client.prepare('select instance_id, list, total from list_totals').raw().all() as [
    string,
    string,
    number,
  ][];
  const totals = new Map(kept.map(([instanceId, list, total]) => [`${instanceId} ${list}`, total]));
  const counts = new Map(counted.map(([instanceId, list, count]) => [`${instanceId} ${list}`, count]));
  for (const key of new Set([...totals.keys(), ...counts.keys()])) {
    const total = totals.get(key) ?? 0;
    const count = counts.get(key) ?? 0;
    if (total !== count) throw new Error(`list_totals of ${key} is ${total}, but there are ${count} rows`);
  }
}

/** The service-account user `createApplication` made in an instance (its only user). */
function applicationUserId(db: Parameters<typeof seedCustomers>[0], instanceId: string): string {
  const user = db.select({ id: users.id }).from(users).where(eq(users.instanceId, instanceId)).get();
  if (!user) throw new Error(`instance ${instanceId} has no user`);
  return user.id;
}

/**
 * Writes a file's dirty pages to disk now. A fresh seed or copy is about 250 MB that the kernel would
 * otherwise write back during the first measurements, which ran them slower than the rounds after.
 */
function flushToDisk(path: string): void {
  const descriptor = openSync(path, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * A private copy of the pristine seeded database for one server that may write to it (SQLite writes in
 * place, and WAL files sit beside the database). `remove()` deletes the copy and its WAL files.
 */
export function copyDataset(dataset: Dataset): { path: string; remove(): void } {
  const directory = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const path = join(directory, 'gateway.db');
  copyFileSync(dataset.databasePath, path);
  flushToDisk(path);
  return { path, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
