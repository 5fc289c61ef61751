import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { startTestNginx, type TestNginx } from '../helpers/nginx-server.js';
import { createTestDatabase, startThrowawayPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

export {
  graphqlWsSubscriber,
  UPDATES,
  type Update,
  type UpdatesSubscriber,
} from '../helpers/updates-subscriber.js';

import { waitFor } from '../helpers/wait.js';

/*
 * The set-up the scale-out test files share (issue 17, item 9): a throwaway PostgreSQL cluster and Redis,
 * N gateway processes on them, and Debian's nginx with the repository's configuration in front of them all.
 * One set-up per test file: start-up is what these files cost.
 *
 * The first process seeds the demo instance (SEED_DEMO=true, "Demo Telecom" with the NL demo catalogue) and
 * prints its credentials; the others start with SEED_DEMO=false, so nothing races to create it. No module of
 * the service is imported into the test process (that alone costs seconds on a loaded machine).
 */

/** A running deployment: PostgreSQL, Redis, the gateway processes and nginx in front of them. */
export interface ScaleOutCluster {
  /** The gateway's database (for read-only checks of what the tests cannot see through the API). */
  databaseUrl: string;
  instances: GatewayProcess[];
  nginx: TestNginx;
  /** The demo instance's id and its application's credentials. */
  demo: { instanceId: string; clientId: string; clientSecret: string };
  /** Signs in through nginx with the demo application's credentials; every call gives a new auth token. */
  signIn(): Promise<string>;
}

/**
 * Starts a {@link ScaleOutCluster} and stops it: {@link start} keeps every server and process as soon as it
 * runs, so that {@link stop} (in `afterAll`) ends them all even when another failed to start, or the hook
 * timed out while they were starting (what starts after `stop()` is ended at once).
 */
export class ClusterHarness {
  private postgres: TestPostgres | undefined;
  private redis: TestRedis | undefined;
  private nginx: TestNginx | undefined;
  private readonly processes: GatewayProcess[] = [];
  private stopped = false;

  /**
   * @param options.instances one environment per gateway process, on top of `env`.
   * @param options.env environment of every process (after `DATABASE_URL`, `REDIS_URL` and the defaults of
   *   `startGatewayProcess`).
   * @param options.nginxTemplate the nginx configuration to run instead of the repository's.
   */
  async start(options: {
    instances: Record<string, string>[];
    env: Record<string, string>;
    nginxTemplate?: string;
  }): Promise<ScaleOutCluster> {
    const servers = await Promise.allSettled([
      startThrowawayPostgres().then((server) => {
        this.postgres = server;
      }),
      startTestRedis().then((server) => {
        this.redis = server;
      }),
    ]);
    for (const result of servers) if (result.status === 'rejected') throw result.reason;
    if (!this.postgres || !this.redis) throw new Error('unreachable: both servers started');
    if (this.stopped) throw new Error('the cluster was stopped while it started');
    const database = await createTestDatabase(this.postgres.adminUrl);
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: this.redis.url,
      DATABASE_POOL_SIZE: '4',
      // nginx is on this machine: its X-Forwarded-For names the client, and a draining instance refuses the
      // reads it forwards so that it takes the instance out (README, "Scale-out").
      TRUSTED_PROXIES: '127.0.0.1',
      ...options.env,
    };
    // All at once: whichever comes first migrates the empty database, the others wait for it on
    // PostgreSQL's advisory lock. Only the first seeds the demo instance.
    const started = await Promise.allSettled(
      options.instances.map((own, index) =>
        startGatewayProcess({
          env: { ...env, SEED_DEMO: index === 0 ? 'true' : 'false', ...own },
          readyTimeoutMs: 60_000,
        }).then(async (process) => {
          this.processes.push(process);
          if (this.stopped) await process.kill('SIGKILL');
          return process;
        }),
      ),
    );
    const instances: GatewayProcess[] = [];
    for (const result of started) {
      if (result.status === 'rejected') throw result.reason;
      instances.push(result.value);
    }
    if (this.stopped) throw new Error('the cluster was stopped while it started');
    this.nginx = await startTestNginx({
      upstreamPorts: instances.map((instance) => instance.port),
      ...(options.nginxTemplate === undefined ? {} : { template: options.nginxTemplate }),
    });
    if (this.stopped) {
      await this.nginx.stop();
      throw new Error('the cluster was stopped while it started');
    }
    const nginx = this.nginx;
    // The seed is printed once the first process listens (after /readyz turned 200, possibly).
    const seeder = instances[0] as GatewayProcess;
    const printed = await waitFor(
      () => /client_id: +(\S+)\n +client_secret: +(\S+)\n/.exec(seeder.output()),
      (match) => match !== null,
      15_000,
    ).catch(() => {
      throw new Error(`no demo credentials printed:\n${seeder.output()}`);
    });
    const clientId = printed?.[1] ?? '';
    const clientSecret = printed?.[2] ?? '';
    const signIn = async () => {
      const response = await fetch(`${nginx.url}/authentication`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: clientId, client_secret: clientSecret }),
      });
      const body = await response.json();
      if (response.status !== 200)
        throw new Error(`sign-in answered ${response.status}: ${JSON.stringify(body)}`);
      return body.data.auth_token as string;
    };
    // The instance's id, from the Mercure claim of its event-stream token (`<instance id>/availability_request`).
    const list = await fetch(`${nginx.url}/availability-requests?page_size=1`, {
      headers: { 'x-auth-token': await signIn() },
    });
    const { sse_jwt } = await list.json();
    const claims = JSON.parse(Buffer.from(String(sse_jwt).split('.')[1] ?? '', 'base64url').toString());
    const instanceId = String(claims.mercure.subscribe[0]).replace(/\/availability_request$/, '');
    return {
      databaseUrl: database.url,
      instances,
      nginx,
      demo: { instanceId, clientId, clientSecret },
      signIn,
    };
  }

  /**
   * Stops nginx, every gateway process, Redis and the PostgreSQL cluster. The processes get SIGKILL: all
   * of it is thrown away, and a graceful stop would wait out their drain windows.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.nginx?.stop();
    await Promise.all(this.processes.map((process) => process.kill('SIGKILL')));
    await this.redis?.stop();
    // The cluster goes whole (immediate stop, folder removed): no need to drop the database first.
    await this.postgres?.stop();
  }
}

/** A Prometheus sample's value from a process's /metrics (summed over its label sets), 0 when absent. */
export async function metric(process: GatewayProcess, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(`${process.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => line.includes(labels))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** `127.0.0.1:<port>`, as nginx's `$upstream_addr` names an instance. */
export const upstreamOf = (process: GatewayProcess) => `127.0.0.1:${process.port}`;
