import { ConfigError, loadConfig } from '../config.js';
import { warmUpGeocoder } from '../geo/index.js';
import { stopTracing } from '../telemetry/register.js';
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
      // The spans of the last requests go out before the process ends (nothing to do without tracing).
      () => stopTracing().then(() => process.exit(0)),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  // Only now: whoever waits for this line may signal at once, and must find the handlers in place.
  const where = {
    url: app.url,
    database: redactedUrl(config.DATABASE_URL),
    role,
    redis: config.REDIS_URL !== undefined,
  };
  if (role === 'api') {
    const pages = startPages(app.url, config.NODE_ENV === 'production', app.metricsUrl);
    logger.info({ ...where, ...pages }, startMessage(app.url, pages));
  } else {
    logger.info(where, 'gathering worker running; probes listening');
  }
}

/** The pages a person opens first, as absolute URLs; GraphiQL is served outside production only. */
export interface StartPages {
  /** The operator dashboard (`src/dashboard`, `/dashboard`). */
  dashboard: string;
  /** GraphiQL on the GraphQL endpoint (`src/server/graphql.ts`, `GET /graphql` from a browser); absent in production. */
  graphiql?: string;
  /** The REST API's documentation (Swagger UI on `/openapi.json`, `src/rest/openapi/serve.ts`, `/docs`). */
  apiDocs: string;
  /** The Prometheus exposition: on the listener of `METRICS_PORT` when set, else on the instance's port. */
  metrics: string;
}

/**
 * The URLs the start line names (issue 37: a newcomer's first minute), under the instance's own `url`
 * (`http://host:port`); `/metrics` under `metricsUrl` when `METRICS_PORT` gave it a listener of its own.
 */
export function startPages(url: string, production: boolean, metricsUrl: string | null = null): StartPages {
  return {
    dashboard: `${url}/dashboard`,
    ...(production ? {} : { graphiql: `${url}/graphql` }),
    apiDocs: `${url}/docs`,
    metrics: `${metricsUrl ?? url}/metrics`,
  };
}

/** The start line's message: still begins `connectivity gateway listening`, which scripts and tests wait for. */
function startMessage(url: string, pages: StartPages): string {
  const named = [
    `dashboard ${pages.dashboard}`,
    ...(pages.graphiql ? [`GraphiQL ${pages.graphiql}`] : []),
    `API docs ${pages.apiDocs}`,
    `metrics ${pages.metrics}`,
  ];
  return `connectivity gateway listening on ${url} — ${named.join(', ')}`;
}

/** A database URL without its password, for the start-up log line. */
function redactedUrl(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed?.password) return url;
  parsed.password = '***';
  return parsed.toString();
}
