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
async function startService(nodeEnv: string): Promise<{ service: ServiceProcess; origin: string }> {
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
    },
    'connectivity gateway listening',
  );
  started.push(service);
  return { service, origin: `http://127.0.0.1:${port}` };
}

describe('the start line', () => {
  it('when the service starts in development, then its JSON start line names the dashboard, GraphiQL and API docs, and each answers', async () => {
    const { service, origin } = await startService('development');

    const line = jsonLines(service.stdout()).find((entry) => entry.role === 'api');
    expect(line).toMatchObject({
      level: 30,
      msg: `connectivity gateway listening on ${origin} — dashboard ${origin}/dashboard, GraphiQL ${origin}/graphql, API docs ${origin}/docs`,
      url: origin,
      dashboard: `${origin}/dashboard`,
      graphiql: `${origin}/graphql`,
      apiDocs: `${origin}/docs`,
    });
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
  });

  it('when the service starts in production, then the start line names no GraphiQL, which production does not serve', async () => {
    const { service, origin } = await startService('production');

    const line = jsonLines(service.stdout()).find((entry) => entry.role === 'api');
    expect(line).toMatchObject({
      msg: `connectivity gateway listening on ${origin} — dashboard ${origin}/dashboard, API docs ${origin}/docs`,
      dashboard: `${origin}/dashboard`,
      apiDocs: `${origin}/docs`,
    });
    expect(line).not.toHaveProperty('graphiql');
  });
});
