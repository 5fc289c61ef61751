import getPort from 'get-port';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDatabasePath } from '../helpers/app.js';
import { jsonLines, type ServiceProcess, startServiceProcess } from '../telemetry/service-process.js';

const started: ServiceProcess[] = [];
const databases: { remove(): void }[] = [];

afterEach(async () => {
  for (const service of started.splice(0)) await service.stop();
  for (const database of databases.splice(0)) database.remove();
});

/** Starts `src/main.ts` as `npm start` does (off a terminal: its standard output is a pipe). */
async function startService(
  nodeEnv: string,
  env: Record<string, string> = {},
): Promise<{ service: ServiceProcess; origin: string }> {
  const database = tempDatabasePath();
  databases.push(database);
  const port = await getPort({ host: '127.0.0.1' });
  const service = await startServiceProcess(
    ['--import', 'tsx', 'src/main.ts'],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: database.path,
      NODE_ENV: nodeEnv,
      LOG_LEVEL: 'info',
      SEED_DEMO: 'false',
      SOURCE_LATENCY_SCALE: '0',
      TOKEN_SIGNING_SECRET: nodeEnv === 'production' ? 'a-production-secret-of-enough-length-0123456789' : '',
      ...env,
    },
    'connectivity gateway listening',
  );
  started.push(service);
  return { service, origin: `http://127.0.0.1:${port}` };
}

/** A service process starts in seconds, or in tens of them on a machine busy with the rest of the suite. */
const START_TIMEOUT_MS = 90_000;

describe('the start line', () => {
  it(
    'when the service starts in development, then its JSON start line names the dashboard, GraphiQL, API docs and metrics, and each answers',
    async () => {
      const { service, origin } = await startService('development');

      const line = jsonLines(service.stdout()).find((entry) => entry.role === 'api');
      expect(line).toMatchObject({
        level: 30,
        msg: `connectivity gateway listening on ${origin} — dashboard ${origin}/dashboard, GraphiQL ${origin}/graphql, API docs ${origin}/docs, metrics ${origin}/metrics`,
        url: origin,
        dashboard: `${origin}/dashboard`,
        graphiql: `${origin}/graphql`,
        apiDocs: `${origin}/docs`,
        metrics: `${origin}/metrics`,
      });
      const metrics = await fetch(`${origin}/metrics`);
      expect([metrics.status, (await metrics.text()).includes('# TYPE ')]).toEqual([200, true]);
      for (const page of [`${origin}/dashboard`, `${origin}/docs`]) {
        const response = await fetch(page);
        expect([page, response.status, response.headers.get('content-type')]).toEqual([
          page,
          200,
          'text/html; charset=utf-8',
        ]);
      }
      const graphiql = await fetch(`${origin}/graphql`, { headers: { accept: 'text/html' } });
      expect([
        graphiql.status,
        (await graphiql.text()).includes('<title>Connectivity Gateway</title>'),
      ]).toEqual([200, true]);
    },
    START_TIMEOUT_MS,
  );

  it(
    'when the service starts in production with METRICS_PORT, then the start line names no GraphiQL, which production does not serve, and the metrics on their own port',
    async () => {
      const metricsPort = await getPort({ host: '127.0.0.1' });
      const { service, origin } = await startService('production', { METRICS_PORT: String(metricsPort) });

      const line = jsonLines(service.stdout()).find((entry) => entry.role === 'api');
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
      expect(line).toMatchObject({
        msg: `connectivity gateway listening on ${origin} — dashboard ${origin}/dashboard, API docs ${origin}/docs, metrics ${metricsUrl}`,
        dashboard: `${origin}/dashboard`,
        apiDocs: `${origin}/docs`,
        metrics: metricsUrl,
      });
      const metrics = await fetch(metricsUrl);
      expect([metrics.status, (await metrics.text()).includes('# TYPE ')]).toEqual([200, true]);
      expect(line).not.toHaveProperty('graphiql');
    },
    START_TIMEOUT_MS,
  );
});
