import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { authenticate, viewerForToken } from '../../src/resolvers/authentication.js';
import { createCustomer } from '../../src/resolvers/customers.js';
import { createServices } from '../../src/server/services.js';
import { type Json, tempDatabasePath, tempSqlitePath, testConfig } from '../helpers/app.js';
import { type CliResult, runCli } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/postgres-server.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { testStore } from '../helpers/store.js';

/*
 * Issue 34, item 2: the operator CLI exits in every environment the service runs in, closing every
 * connection it opened. Every command runs as a real child process with the environment of a container of
 * the shared mode — DATABASE_URL (this project's store: a SQLite file, or a PostgreSQL database) and
 * REDIS_URL of a throwaway redis-server — and again without Redis, each under a time limit: a command that
 * prints its result and then hangs (as `instance create` did with REDIS_URL) is killed and fails.
 */

/** Longest a command may run; it takes 2–5 s (tsx compiling on start), a hang would take forever. */
const TIME_LIMIT_MS = 30_000;

const demoProducts = JSON.parse(
  readFileSync(new URL('../../data/instance-products/demo.json', import.meta.url), 'utf8'),
) as { products: { name: string }[] };

const offerings = [
  {
    product_offering_id: 'basic-internet-access-fiber-dia',
    technology_type: 'FIBER',
    connection_type: 'DIA',
    bandwidths: [{ download: 100_000, upload: 100_000 }],
    contract_terms: [36],
  },
];

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis?.stop();
});

/** Runs a command that must exit 0 in time, printing nothing on stderr; answers its printed JSON. */
async function succeeds(databaseUrl: string, env: Record<string, string>, args: string[]): Promise<Json> {
  const result: CliResult = await runCli(databaseUrl, args, { env, timeoutMs: TIME_LIMIT_MS });
  expect({ timedOut: result.timedOut, code: result.code, stderr: result.stderr }, args.join(' ')).toEqual({
    timedOut: false,
    code: 0,
    stderr: '',
  });
  return JSON.parse(result.stdout);
}

for (const mode of ['shared mode (REDIS_URL)', 'without Redis'] as const) {
  describe(`every CLI command on ${testStore}, ${mode}`, { timeout: 120_000 }, () => {
    const database = tempDatabasePath();
    const env = (): Record<string, string> => (mode === 'without Redis' ? {} : { REDIS_URL: redis.url });
    const run = (args: string[]) => succeeds(database.path, env(), args);
    const code = mode === 'without Redis' ? 'EVB' : 'EVA';
    let instanceId = '';
    let credentials: Json;
    let httpSourceId = '';

    afterAll(() => database.remove());

    it('instance create: prints the instance and its demo catalogue, and exits', async () => {
      const printed = await run([
        'instance',
        'create',
        '--name',
        'Every Telecom',
        '--code',
        code,
        '--demo-catalog',
      ]);

      expect(printed).toEqual({
        id: expect.stringMatching(/^ins_/),
        name: 'Every Telecom',
        code,
        catalog: { sources: 7, areas: expect.any(Number), offers: expect.any(Number) },
      });
      instanceId = printed.id;
    });

    it('application create: prints the credentials once, and exits', async () => {
      credentials = await run(['application', 'create', '--instance', code, '--roles', 'instance_admin']);

      expect(credentials).toEqual({
        client_id: expect.stringMatching(/^cli_/),
        client_secret: expect.any(String),
        instance_id: instanceId,
        roles: ['instance_admin'],
      });
    });

    it('application disable and enable: print the application with and without disabled_at, and exit', async () => {
      const disabled = await run(['application', 'disable', credentials.client_id]);
      const enabled = await run(['application', 'enable', credentials.client_id]);

      const application = { client_id: credentials.client_id, instance_id: instanceId, name: 'API client' };
      expect(disabled).toEqual({
        ...application,
        disabled_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(enabled).toEqual({ ...application, disabled_at: null });
    });

    it('price-plan list, create and assign: print the plans and the assignment, and exit', async () => {
      const listed = await run(['price-plan', 'list', '--instance', code]);
      const gold = await run([
        'price-plan',
        'create',
        '--instance',
        code,
        '--name',
        'Gold',
        '--mrc-markup',
        '30',
        '--nrc-markup',
        '10',
      ]);
      const customerId = await customerOf(database.path, credentials);
      const assigned = await run([
        'price-plan',
        'assign',
        '--instance',
        code,
        '--customer',
        customerId,
        '--plan',
        gold.id,
      ]);

      expect(listed.map((plan: Json) => [plan.name, plan.is_default])).toEqual([
        ['Standard', true],
        ['Partner', false],
      ]);
      expect(gold).toEqual({
        id: expect.stringMatching(/^ppl_/),
        name: 'Gold',
        is_default: false,
        mrc_markup_percent: 30,
        nrc_markup_percent: 10,
        rules: [],
      });
      expect(assigned).toEqual({ customer_id: customerId, price_plan_id: gold.id });
    });

    it('instance-product import: prints the imported products, and exits', async () => {
      const imported = await run([
        'instance-product',
        'import',
        '--instance',
        code,
        '--file',
        'data/instance-products/demo.json',
      ]);

      expect(imported.map((row: Json) => row.name)).toEqual(demoProducts.products.map((row) => row.name));
    });

    it('source list, add, add-sonata, update-sonata, disable and enable: print the sources, and exit', async () => {
      const listed = await run(['source', 'list', '--instance', code]);
      const added = await run([
        'source',
        'add',
        '--instance',
        code,
        '--key',
        'colt-api',
        '--name',
        'Colt (API)',
        '--network',
        'Colt',
        '--url',
        'http://127.0.0.1:4100/suppliers/colt/availability',
      ]);
      httpSourceId = added.id;
      const sonata = await run([
        'source',
        'add-sonata',
        '--instance',
        code,
        '--key',
        'eurofiber-sonata',
        '--name',
        'Eurofiber (Sonata)',
        '--network',
        'Eurofiber',
        '--base-url',
        'http://127.0.0.1:4100/sonata/eurofiber',
        '--token-url',
        'http://127.0.0.1:4100/sonata/eurofiber/oauth2/token',
        '--client-id',
        'connectivity-gateway',
        '--client-secret',
        'sonata-secret',
        '--offerings',
        JSON.stringify(offerings),
        '--interaction',
        'deferred',
        '--contact-name',
        'Gateway operations',
        '--contact-email',
        'noc@gateway.example',
        '--contact-number',
        '+31 20 555 0100',
      ]);
      const updated = await run([
        'source',
        'update-sonata',
        '--instance',
        code,
        '--source',
        'eurofiber-sonata',
        '--poll-max-ms',
        '2000',
        '--order-poll-initial-ms',
        '60000',
      ]);
      const disabled = await run(['source', 'disable', '--instance', code, '--source', httpSourceId]);
      const enabled = await run(['source', 'enable', '--instance', code, '--source', httpSourceId]);

      expect(listed.map((source: Json) => source.type)).toEqual(Array(7).fill('catalog'));
      expect(added).toEqual({
        id: expect.stringMatching(/^src_/),
        key: 'colt-api',
        name: 'Colt (API)',
        network: 'Colt',
        type: 'http',
        country_codes: ['NL'],
        enabled: true,
        endpoint_url: 'http://127.0.0.1:4100/suppliers/colt/availability',
        has_credentials: false,
        timeout_ms: 10_000,
        concurrency: 4,
      });
      expect([sonata.key, sonata.type, sonata.has_credentials, sonata.sonata.poll]).toEqual([
        'eurofiber-sonata',
        'mef-sonata',
        true,
        { initial_delay_ms: 250, max_delay_ms: 5000 },
      ]);
      expect([updated.id, updated.sonata.poll, updated.sonata.order_poll]).toEqual([
        sonata.id,
        { initial_delay_ms: 250, max_delay_ms: 2000 },
        { initial_delay_ms: 60_000, max_delay_ms: 300_000 },
      ]);
      expect([disabled.id, disabled.enabled, enabled.enabled]).toEqual([httpSourceId, false, true]);
    });

    // The copy reads a SQLite file into an empty PostgreSQL database: it needs the postgres project's server.
    it.runIf(testStore === 'postgres')(
      'database copy-to-postgres: prints the copied tables, and exits',
      async () => {
        const source = tempSqlitePath();
        const target = await createTestDatabase(inject('postgresAdminUrl'));
        try {
          const sqliteRun = (args: string[]) => succeeds(source.path, env(), args);
          await sqliteRun(['instance', 'create', '--name', 'Copied Telecom', '--code', 'CPY']);

          const copied = await sqliteRun(['database', 'copy-to-postgres', '--to', target.url]);

          expect(copied.tables.find((table: Json) => table.table === 'instances')).toEqual({
            table: 'instances',
            rows: 1,
            checksum: expect.any(String),
          });
          expect(copied.total_rows).toBe(
            copied.tables.reduce((sum: number, table: Json) => sum + table.rows, 0),
          );
        } finally {
          await target.drop();
          source.remove();
        }
      },
    );
  });
}

/** A customer of the application's instance, created through the resolvers on the same database. */
async function customerOf(databaseUrl: string, credentials: Json): Promise<string> {
  const services = await createServices(testConfig(databaseUrl));
  try {
    const { authToken } = await authenticate(services, {
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret,
    });
    const ctx = createContext(services, await viewerForToken(services, authToken));
    return (await createCustomer(ctx, { name: 'Every Customer' })).customer.id;
  } finally {
    await services.db.close();
  }
}
