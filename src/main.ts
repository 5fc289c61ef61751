import { ConfigError, loadConfig } from './config.js';
import { warmUpGeocoder } from './geo/index.js';
import { startApp } from './server/app.js';
import { seedDemoInstance } from './server/seed.js';

/** Entry point of `npm start`: parse the configuration, start the service, stop cleanly on a signal. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  warmUpGeocoder();
  const app = await startApp(config);
  const { logger } = app.services;
  if (config.SEED_DEMO) {
    const seed = await seedDemoInstance(app.services);
    if (seed) {
      logger.info({ instanceId: seed.instanceId, instanceCode: seed.instanceCode }, 'demo instance created');
      process.stdout.write(
        `\nDemo instance ${seed.instanceCode} created. Its credentials (shown only now):\n` +
          `  client_id:     ${seed.clientId}\n  client_secret: ${seed.clientSecret}\n\n`,
      );
    }
  }
  logger.info({ url: app.url, database: config.DATABASE_URL }, 'connectivity gateway listening');
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

await main();
