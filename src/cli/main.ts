import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { closeDatabase } from '../db/client.js';
import { AppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { createApplication, createInstance } from '../resolvers/operator.js';
import { createServices } from '../server/services.js';

/*
 * The operator CLI: `npm run --silent cli -- <command>`. Works on the same DATABASE_URL as a running
 * service (SQLite WAL with a busy timeout). Prints JSON on stdout; errors as JSON on stderr, exit 1.
 */

async function withServices<T>(
  run: (services: Awaited<ReturnType<typeof createServices>>) => Promise<T>,
): Promise<void> {
  const config = loadConfig(process.env);
  const services = await createServices(config, { logger: createLogger('silent') });
  try {
    process.stdout.write(`${JSON.stringify(await run(services), null, 2)}\n`);
  } finally {
    closeDatabase(services.db);
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
  .requiredOption('--roles <roles>', 'comma-separated: instance_admin,connectivity_check')
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

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  const detail =
    error instanceof AppError
      ? { error: error.code, message: error.message, problems: error.problems }
      : error instanceof ConfigError
        ? { error: 'CONFIGURATION', message: error.message }
        : { error: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
  process.stderr.write(`${JSON.stringify(detail)}\n`);
  process.exit(1);
}
