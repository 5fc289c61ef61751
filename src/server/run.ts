import { ConfigError, loadConfig } from '../config.js';
import { warmUpGeocoder } from '../geo/index.js';
import { type AppRole, startApp } from './app.js';
import { seedDemoInstance } from './seed.js';

/**
 * Runs one instance from the environment until SIGTERM or SIGINT: `api` is `npm start` (the whole service,
 * with the demo instance seeded on a first start when `SEED_DEMO` says so), `worker` is `npm run worker` (only
 * the gathering worker and its probes, issue 17). An invalid configuration ends the process with exit code 1
 * and every offending variable named on stderr.
 */
export async function runService(role: AppRole): Promise<void> {
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
  if (role === 'api') warmUpGeocoder();
  const app = await startApp(config, { role });
  const { logger } = app.services;
  if (role === 'api' && config.SEED_DEMO) {
    const seed = await seedDemoInstance(app.services);
    if (seed) {
      logger.info({ instanceId: seed.instanceId, instanceCode: seed.instanceCode }, 'demo instance created');
      process.stdout.write(
        `\nDemo instance ${seed.instanceCode} created. Its credentials (shown only now):\n` +
          `  client_id:     ${seed.clientId}\n  client_secret: ${seed.clientSecret}\n\n`,
      );
    }
  }
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
  // Only now: whoever waits for this line may signal at once, and must find the handlers in place.
  logger.info(
    { url: app.url, database: redactedUrl(config.DATABASE_URL), role, redis: config.REDIS_URL !== undefined },
    role === 'api' ? 'connectivity gateway listening' : 'gathering worker running; probes listening',
  );
}

/** A database URL without its password, for the start-up log line. */
function redactedUrl(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed?.password) return url;
  parsed.password = '***';
  return parsed.toString();
}
