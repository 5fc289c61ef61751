import '../runtime-check.js';
import { Command, CommanderError } from 'commander';
import { ZodError } from 'zod';
import { ConfigError, loadConfig } from '../config.js';
import type { Services } from '../context.js';
import type { ApplicationRow, PricePlanWithRules, SourceRow } from '../db/rows.js';
import { AppError } from '../errors.js';
import { createLogger } from '../logger.js';
import {
  assignInstancePricePlan,
  copyDatabaseToPostgres,
  createApplication,
  createInstance,
  createInstancePricePlan,
  importInstanceProductFile,
  listInstancePricePlans,
  listInstanceSources,
  registerInstanceSource,
  setInstanceSourceEnabled,
} from '../resolvers/operator.js';
import { setApplicationDisabledIn } from '../resolvers/revocation.js';
import { zodProblems } from '../resolvers/validation.js';
import { camelizeBody, snakePath } from '../rest/keys.js';
import { createServices } from '../server/services.js';
import { addSonataCommand, sonataOutput } from './sonata.js';
import { updateSonataCommand } from './sonata-update.js';

/*
 * The operator CLI: `npm run --silent cli -- <command>`. Works on the same DATABASE_URL (and REDIS_URL) as a
 * running service (SQLite WAL with a busy timeout). Prints JSON on stdout; errors as JSON on stderr, exit 1.
 * Every command closes what it opened — the Redis connections, then the store — so the process exits on
 * its own in every environment the service runs in.
 */

/**
 * Runs one command on the services of the environment (`DATABASE_URL`, `REDIS_URL`, …) and prints its
 * result as JSON; closes Redis (when `REDIS_URL` opened it) and then the store, whether it succeeded or not.
 */
async function withServices<T>(run: (services: Services) => Promise<T>): Promise<void> {
  const config = loadConfig(process.env);
  const services = await createServices(config, { logger: createLogger('silent') });
  try {
    process.stdout.write(`${JSON.stringify(await run(services), null, 2)}\n`);
  } finally {
    try {
      await services.redis?.close();
    } finally {
      await services.db.close();
    }
  }
}

const program = new Command('gateway').description('Connectivity Gateway operator CLI').exitOverride();

const instance = program.command('instance').description('Manage instances (tenants)');
instance
  .command('create')
  .description('Create an instance')
  .requiredOption('--name <name>', 'display name, e.g. "Acme Telecom"')
  .requiredOption('--code <code>', 'short upper-case code used in quote numbers, e.g. ACM')
  .option('--demo-catalog', 'load the NL demo catalogue and its sources', false)
  .action((options: { name: string; code: string; demoCatalog: boolean }) =>
    withServices(async (services) => {
      const { instance: created, catalog } = await createInstance(services, options);
      return { id: created.id, name: created.name, code: created.code, catalog };
    }),
  );

const application = program.command('application').description('Manage client credentials');
application
  .command('create')
  .description('Create client credentials; the secret is printed once')
  .requiredOption('--instance <id-or-code>', 'the instance')
  .requiredOption('--roles <roles>', 'comma-separated: instance_admin,connectivity_check,ordering')
  .option('--name <name>', 'a label for the credentials')
  .action((options: { instance: string; roles: string; name?: string }) =>
    withServices(async (services) => {
      const created = await createApplication(services, {
        instance: options.instance,
        roles: options.roles.split(',').map((role) => role.trim()),
        ...(options.name ? { name: options.name } : {}),
      });
      return {
        client_id: created.clientId,
        client_secret: created.clientSecret,
        instance_id: created.instanceId,
        roles: created.roles,
      };
    }),
  );

/** An application as the CLI prints it (never its secret). */
function applicationOutput(row: ApplicationRow) {
  return {
    client_id: row.clientId,
    instance_id: row.instanceId,
    name: row.name,
    disabled_at: row.disabledAt?.toISOString() ?? null,
  };
}

for (const [name, disabled] of [
  ['disable', true],
  ['enable', false],
] as const) {
  application
    .command(name)
    .description(
      disabled
        ? 'Disable client credentials: they can no longer sign in, and every instance refuses their tokens ' +
            '(revoked): within a second with REDIS_URL, within 5 s without'
        : 'Enable disabled client credentials again: they can sign in anew (their old tokens stay revoked)',
    )
    .argument('<client_id>', 'the client id (cli_…)')
    .action((clientId: string) =>
      withServices(async (services) =>
        applicationOutput(await setApplicationDisabledIn(services, { clientId, disabled })),
      ),
    );
}

/** Parses a JSON-valued option. @throws {AppError} `VALIDATION` naming the option. */
function parseJsonOption(option: string, value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new AppError('VALIDATION', `${option} is not valid JSON: ${(error as Error).message}`);
  }
}

/** A price plan as the CLI prints it: markups in percent. */
function planOutput(plan: PricePlanWithRules) {
  const percent = (bp: number) => bp / 100;
  return {
    id: plan.id,
    name: plan.name,
    is_default: plan.isDefault,
    mrc_markup_percent: percent(plan.mrcMarkupBp),
    nrc_markup_percent: percent(plan.nrcMarkupBp),
    rules: plan.rules.map((rule) => ({
      network: rule.network,
      technology_type: rule.technologyType,
      connection_type: rule.connectionType,
      mrc_markup_percent: percent(rule.mrcMarkupBp),
      nrc_markup_percent: percent(rule.nrcMarkupBp),
    })),
  };
}

const pricePlan = program.command('price-plan').description('Manage price plans (margin rules)');
pricePlan
  .command('list')
  .description('List the price plans of an instance, default first')
  .requiredOption('--instance <id-or-code>', 'the instance')
  .action((options: { instance: string }) =>
    withServices(async (services) =>
      (await listInstancePricePlans(services, options.instance)).map(planOutput),
    ),
  );
pricePlan
  .command('create')
  .description('Create a price plan; markups in percent of the purchase price')
  .requiredOption('--instance <id-or-code>', 'the instance')
  .requiredOption('--name <name>', 'plan name, unique in the instance')
  .requiredOption('--mrc-markup <percent>', 'default markup on monthly charges, e.g. 25')
  .requiredOption('--nrc-markup <percent>', 'default markup on one-off charges, e.g. 15')
  .option('--default', 'make it the instance default', false)
  .option(
    '--rules <json>',
    'JSON array of overrides: [{"network":"KPN","connection_type":"DIA","mrc_markup_percent":30,"nrc_markup_percent":20}]',
  )
  .action(
    (options: {
      instance: string;
      name: string;
      mrcMarkup: string;
      nrcMarkup: string;
      default: boolean;
      rules?: string;
    }) =>
      withServices(async (services) => {
        const rules = options.rules
          ? (camelizeBody(parseJsonOption('--rules', options.rules)) as unknown[])
          : [];
        const plan = await createInstancePricePlan(services, options.instance, {
          name: options.name,
          isDefault: options.default,
          mrcMarkupPercent: Number(options.mrcMarkup),
          nrcMarkupPercent: Number(options.nrcMarkup),
          rules,
        });
        return planOutput(plan);
      }),
  );
pricePlan
  .command('assign')
  .description('Give a customer a price plan')
  .requiredOption('--instance <id-or-code>', 'the instance')
  .requiredOption('--customer <id>', 'the customer id (cus_…)')
  .requiredOption('--plan <id>', 'the price plan id (ppl_…)')
  .action((options: { instance: string; customer: string; plan: string }) =>
    withServices(async (services) => {
      const assigned = await assignInstancePricePlan(services, {
        instance: options.instance,
        customerId: options.customer,
        pricePlanId: options.plan,
      });
      return { customer_id: assigned.customerId, price_plan_id: assigned.pricePlanId };
    }),
  );

const instanceProduct = program
  .command('instance-product')
  .description('Manage the instance catalogue (instance and mandatory products)');
instanceProduct
  .command('import')
  .description('Import products from a JSON file (format: data/instance-products/demo.json; prices in cents)')
  .requiredOption('--instance <id-or-code>', 'the instance')
  .requiredOption('--file <path>', 'the JSON file')
  .action((options: { instance: string; file: string }) =>
    withServices(async (services) => {
      const rows = await importInstanceProductFile(services, options.instance, options.file);
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        mandatory: row.mandatory,
        mrc_minor: row.mrcMinor,
        nrc_minor: row.nrcMinor,
        currency: row.currency,
        fulfilment: row.fulfilment,
      }));
    }),
  );

/**
 * A source as the CLI prints it; credentials are never printed. A `mef-sonata` source adds `sonata`, its
 * settings without the client secret (`oauth2.has_client_secret` instead).
 */
function sourceOutput(source: SourceRow) {
  return {
    id: source.id,
    key: source.key,
    name: source.name,
    network: source.network,
    type: source.type,
    country_codes: source.countryCodes,
    enabled: source.enabled,
    endpoint_url: source.endpointUrl,
    has_credentials: source.credentials !== null,
    timeout_ms: source.timeoutMs,
    concurrency: source.concurrency,
    ...sonataOutput(source),
  };
}

const source = program.command('source').description('Manage the sources of an instance');
source
  .command('list')
  .description('List the sources of an instance')
  .requiredOption('--instance <id-or-code>', 'the instance')
  .action((options: { instance: string }) =>
    withServices(async (services) =>
      (await listInstanceSources(services, options.instance)).map(sourceOutput),
    ),
  );
source
  .command('add')
  .description('Register a supplier API (the supplier contract, docs/supplier-contract.md) as an http source')
  .requiredOption('--instance <id-or-code>', 'the instance')
  .requiredOption('--key <key>', 'kebab-case key, unique in the instance')
  .requiredOption('--name <name>', 'display name')
  .requiredOption('--network <network>', 'network name, e.g. KPN')
  .requiredOption('--url <url>', 'the supplier availability endpoint')
  .option('--countries <codes>', 'comma-separated ISO 3166 alpha-2 codes', 'NL')
  .option('--credentials <secret>', 'bearer credential sent to the supplier')
  .option('--timeout-ms <ms>', 'time allowed per call', '10000')
  .option('--concurrency <n>', 'calls in flight at once', '4')
  .option('--disabled', 'register it disabled', false)
  .action(
    (options: {
      instance: string;
      key: string;
      name: string;
      network: string;
      url: string;
      countries: string;
      credentials?: string;
      timeoutMs: string;
      concurrency: string;
      disabled: boolean;
    }) =>
      withServices(async (services) =>
        sourceOutput(
          await registerInstanceSource(services, options.instance, {
            key: options.key,
            name: options.name,
            network: options.network,
            endpointUrl: options.url,
            countryCodes: options.countries.split(',').map((code) => code.trim()),
            credentials: options.credentials ?? null,
            timeoutMs: Number(options.timeoutMs),
            concurrency: Number(options.concurrency),
            enabled: !options.disabled,
          }),
        ),
      ),
  );
addSonataCommand(source, (instance, input) =>
  withServices(async (services) => sourceOutput(await registerInstanceSource(services, instance, input))),
);
updateSonataCommand(source, (update) =>
  withServices(async (services) => sourceOutput(await update(services))),
);
for (const [name, enabled] of [
  ['enable', true],
  ['disable', false],
] as const) {
  source
    .command(name)
    .description(`${enabled ? 'Enable' : 'Disable'} a source`)
    .requiredOption('--instance <id-or-code>', 'the instance')
    .requiredOption('--source <id>', 'the source id (src_…)')
    .action((options: { instance: string; source: string }) =>
      withServices(async (services) =>
        sourceOutput(
          await setInstanceSourceEnabled(services, {
            instance: options.instance,
            sourceId: options.source,
            enabled,
          }),
        ),
      ),
    );
}

const database = program.command('database').description('Move the database');
database
  .command('copy-to-postgres')
  .description(
    'Copy this SQLite database (DATABASE_URL) into an empty PostgreSQL database, in one transaction, ' +
      'verified by row counts and checksums',
  )
  .requiredOption('--to <url>', 'the target, postgres://user:password@host:port/database')
  .action((options: { to: string }) =>
    withServices(async (services) => {
      const tables = await copyDatabaseToPostgres(services, { to: options.to });
      return { tables, total_rows: tables.reduce((sum, table) => sum + table.rows, 0) };
    }),
  );

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  const detail =
    error instanceof AppError
      ? {
          error: error.code,
          message: error.message,
          problems: error.problems.map((problem) => ({ ...problem, path: snakePath(problem.path) })),
        }
      : error instanceof ZodError
        ? {
            error: 'VALIDATION',
            message: 'The file is invalid.',
            problems: zodProblems(error).map((problem) => ({ ...problem, path: snakePath(problem.path) })),
          }
        : error instanceof ConfigError
          ? { error: 'CONFIGURATION', message: error.message }
          : { error: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
  process.stderr.write(`${JSON.stringify(detail)}\n`);
  process.exit(1);
}
