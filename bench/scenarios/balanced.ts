import { readFileSync } from 'node:fs';
import { nginxTemplatePath, startTestNginx, type TestNginx } from '../../test/helpers/nginx-server.js';
import { startTestRedis, type TestRedis } from '../../test/helpers/redis-server.js';
import { type HttpLoad, measureLoad, runLoad } from '../lib/load.js';
import { type ServerProcess, startServer } from '../lib/process.js';
import type { BenchContext, Measurement, Scenario } from '../lib/types.js';
import { gatewayEnvironment, signIn } from './http-servers.js';

/*
 * Balanced throughput (issue 17): the REST list page through nginx (deploy/nginx/connectivity-gateway.conf,
 * Debian's nginx) to one gateway instance (baseline) and to two (subject), both in shared mode — one
 * PostgreSQL copy of the bench dataset, one Redis carrying the rate-limit counters — in the same run, on the
 * same machine. The ratio says what a second instance adds here; on two cores shared with PostgreSQL, nginx,
 * Redis and the load generator it cannot be 2 (BENCHMARKS.md, "Scale-out").
 */

const listPath = '/availability-requests?page_size=25';

interface Deployment {
  instances: ServerProcess[];
  one: TestNginx;
  two: TestNginx;
  token: string;
  stop(): Promise<void>;
}

async function startDeployment(context: BenchContext): Promise<Deployment> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const copy = await (await context.postgres()).copy();
    cleanups.push(() => copy.remove());
    const redis: TestRedis = await startTestRedis();
    cleanups.push(() => redis.stop());
    const env = {
      ...gatewayEnvironment,
      DATABASE_URL: copy.url,
      REDIS_URL: redis.url,
      GATHERING_WORKER: 'off',
    };
    const instances: ServerProcess[] = [];
    for (let index = 0; index < 2; index += 1) {
      const instance = await startServer({ script: 'src/main.ts', env, readyPath: '/readyz' });
      cleanups.push(() => instance.stop());
      instances.push(instance);
    }
    const [a, b] = instances as [ServerProcess, ServerProcess];
    const template = benchTemplate();
    const one = await startTestNginx({ upstreamPorts: [a.port], template });
    cleanups.push(() => one.stop());
    const two = await startTestNginx({ upstreamPorts: [a.port, b.port], template });
    cleanups.push(() => two.stop());
    const bencha = context.dataset.instances.find((candidate) => candidate.code === 'BENCHA');
    if (!bencha) throw new Error('the dataset has no BENCHA instance');
    return { instances, one, two, token: await signIn(a.url, bencha), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The shipped nginx configuration, with one change for the load generator: `keepalive_requests` without
 * its default limit of 1,000. nginx closes a client connection after that many requests, saying so with
 * `Connection: close` on the last response; autocannon does not read that header and writes its next
 * request on the closing connection, which comes back as `ECONNRESET` — an error of the load generator's,
 * once per connection past 1,000 requests, not of the gateway or nginx. Real clients (browsers, HTTP
 * libraries) open a new connection, so the shipped file keeps nginx's default.
 */
function benchTemplate(): string {
  const template = readFileSync(nginxTemplatePath, 'utf8');
  const server = /\nserver \{\n/;
  if (!server.test(template)) throw new Error('the nginx template has no top-level `server {` block');
  return template.replace(server, '\nserver {\n    keepalive_requests 1000000;\n');
}

/** nginx as the server a load is measured on; RSS is sampled on the first gateway instance. */
function throughNginx(nginx: TestNginx, instance: ServerProcess): ServerProcess {
  return { ...instance, url: nginx.url, port: nginx.port };
}

/**
 * `pg-rest-list-nginx`: rest-list through nginx, one instance (baseline) against two (subject), A/B
 * `--rounds` times. No target of its own: issue 17 asks for the ratio and for what limits it.
 */
export function balancedListScenario(): Scenario {
  return {
    id: 'pg-rest-list-nginx',
    title: 'PostgreSQL, shared mode: REST list page through nginx, 2 gateway instances vs 1',
    target: 'reported: throughput with 2 instances ÷ with 1, same run (issue 17)',
    group: 'balanced-postgres',
    async run(context) {
      const deployment = await startDeployment(context);
      try {
        const load: HttpLoad = {
          method: 'GET',
          path: listPath,
          headers: { 'x-auth-token': deployment.token },
          verifyBody: (body) => body.startsWith('{"data":[{"id":"avr_'),
        };
        const [a] = deployment.instances as [ServerProcess];
        const targets = [
          { role: 'baseline' as const, label: 'nginx → 1 instance', server: throughNginx(deployment.one, a) },
          { role: 'gateway' as const, label: 'nginx → 2 instances', server: throughNginx(deployment.two, a) },
        ];
        const connections = context.connections;
        for (const target of targets) {
          context.log(`pg-rest-list-nginx: warm-up on ${target.label}`);
          const warm = await runLoad(target.server.url, load, {
            durationSeconds: context.quick ? 1 : 3,
            connections,
          });
          if (warm.errors > 0) throw new Error(`warm-up errors: ${JSON.stringify(warm.statuses)}`);
        }
        const measurements: Measurement[] = [];
        for (let round = 1; round <= context.httpRounds; round += 1) {
          for (const target of targets) {
            const measurement = await measureLoad(
              {
                scenario: 'pg-rest-list-nginx',
                role: target.role,
                label: target.label,
                round,
                server: target.server,
              },
              load,
              { durationSeconds: context.durationSeconds, connections },
            );
            context.log(
              `pg-rest-list-nginx: round ${round} ${target.label}: ${measurement.throughput?.toFixed(0)} req/s`,
            );
            measurements.push(measurement);
          }
        }
        return measurements;
      } finally {
        await deployment.stop();
      }
    },
  };
}
