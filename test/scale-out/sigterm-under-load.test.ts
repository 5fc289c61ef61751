import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../helpers/gateway-process.js';
import { nginxTemplatePath } from '../helpers/nginx-server.js';
import { waitFor } from '../helpers/wait.js';
import { ClusterHarness, type ScaleOutCluster, upstreamOf } from './cluster.js';

/*
 * Issue 17, item 9: SIGTERM of an instance under load, behind Debian's nginx with the repository's
 * configuration. Two API-only gateway processes (`GATHERING_WORKER=off`: nothing gathers, the load is the
 * API's) on one PostgreSQL and one Redis. Clients send GETs and POSTs through nginx without pause while one
 * instance is told to stop: for SHUTDOWN_DRAIN_SECONDS it goes on serving writes, answering `/readyz` 503,
 * `Connection: close` on every response (so that nginx keeps no idle connection to it) and 503 to the reads
 * nginx forwards (a trusted proxy), which nginx passes on to the other instance and counts until it takes
 * the draining one out (`max_fails`); so nothing is on its way to it when it stops taking connections.
 *
 * The drain window is set one second above the shipped file's upstream `keepalive_timeout`, as the
 * configuration asks: an idle connection nginx kept from before the SIGTERM is closed by nginx itself before
 * the instance stops taking connections, never by the instance while nginx sends a request on it.
 *
 * These tests bring their own PostgreSQL cluster whatever the vitest project, so they run in the `sqlite`
 * project only.
 */

const onlyInSqliteProject = process.env.TEST_DATABASE === 'postgres';

/** One answer the load got through nginx. */
interface Answer {
  method: 'GET' | 'POST';
  status: number;
  /** The created request's id, for a 201. */
  id?: string;
}

describe.skipIf(onlyInSqliteProject)('scale-out: SIGTERM of an instance under load behind nginx', () => {
  const harness = new ClusterHarness();
  let cluster: ScaleOutCluster;
  let token: string;
  let drainSeconds: number;

  beforeAll(async () => {
    drainSeconds = upstreamKeepaliveSeconds(readFileSync(nginxTemplatePath, 'utf8')) + 1;
    cluster = await harness.start({
      instances: [{}, {}],
      env: {
        GATHERING_WORKER: 'off',
        SHUTDOWN_DRAIN_SECONDS: String(drainSeconds),
        // The load is not to be limited here (rate-limit-across is proven in kill-instance.test.ts).
        RATE_LIMIT_PER_TOKEN: '1000000',
        RATE_LIMIT_PER_INSTANCE: '1000000',
      },
    });
    token = await cluster.signIn();
  }, 120_000);

  afterAll(async () => {
    await harness.stop();
  });

  it('when an instance gets SIGTERM under steady GETs and POSTs through nginx, then no request gets a 5xx, every POST is created exactly once, and the instance exits 0', async () => {
    const [leaving, staying] = cluster.instances as [GatewayProcess, GatewayProcess];
    const answers: Answer[] = [];
    let loading = true;
    // Eight clients, each sending its next request as soon as the last is answered: four list, four create.
    const clients = Array.from({ length: 8 }, async (_, index) => {
      while (loading) {
        const method = index % 2 === 0 ? 'GET' : 'POST';
        const response =
          method === 'GET'
            ? await fetch(`${cluster.nginx.url}/availability-requests?page_size=5`, {
                headers: { 'x-auth-token': token },
              })
            : await fetch(`${cluster.nginx.url}/availability-requests`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-auth-token': token },
                body: JSON.stringify([
                  { address: { country_code: 'NL', postal_code: '1016XA', house_number: String(index) } },
                ]),
              });
        const body = await response.text();
        const id = response.status === 201 ? JSON.parse(body).data[0].id : undefined;
        answers.push({ method, status: response.status, ...(id ? { id } : {}) });
      }
    });
    try {
      // Steady load on both instances first.
      await waitFor(
        () => cluster.nginx.accessLog(),
        (lines) =>
          [leaving, staying].every(
            (instance) => lines.filter((line) => line.upstream === upstreamOf(instance)).length >= 20,
          ),
      );
      const atSigterm = cluster.nginx.accessLog().length;
      const exited = leaving.kill('SIGTERM');

      // Draining: not ready any more, asked directly; through nginx, /readyz is passed on to the other.
      const direct = await waitFor(
        () => fetch(`${leaving.url}/readyz`).then(async (r) => [r.status, await r.json()] as const),
        ([status]) => status === 503,
      );
      expect(direct).toEqual([503, { status: 'not_ready', database: true, redis: true, worker: false }]);
      const balanced = await fetch(`${cluster.nginx.url}/readyz`);
      expect([balanced.status, await balanced.json()]).toEqual([
        200,
        { status: 'ready', database: true, redis: true, worker: false },
      ]);

      expect(await exited).toEqual({ code: 0, signal: null });
      // Some more load after it has gone.
      const afterExit = answers.length;
      await waitFor(
        () => answers.length,
        (count) => count >= afterExit + 40,
      );
      const duringDrain = cluster.nginx
        .accessLog()
        .slice(atSigterm)
        .filter((line) => line.path === '/availability-requests' && line.upstream === upstreamOf(leaving));
      // It went on serving while draining, and never failed.
      expect(duringDrain.length).toBeGreaterThan(0);
      expect(
        duringDrain.filter((line) => line.status >= 300),
        cluster.nginx.errorLog(),
      ).toEqual([]);
    } finally {
      loading = false;
      await Promise.all(clients);
    }

    expect(answers.filter((answer) => answer.status !== (answer.method === 'GET' ? 200 : 201))).toEqual([]);
    expect(
      cluster.nginx.accessLog().filter((line) => line.status >= 500),
      cluster.nginx.errorLog(),
    ).toEqual([]);
    // Every POST made exactly one request, and there are no others.
    const created = answers.filter((answer) => answer.method === 'POST').map((answer) => answer.id);
    expect(new Set(created).size).toBe(created.length);
    const listed: string[] = [];
    for (let page = 1; ; page += 1) {
      const response = await fetch(`${cluster.nginx.url}/availability-requests?page_size=100&page=${page}`, {
        headers: { 'x-auth-token': token },
      });
      expect(response.status).toBe(200);
      const { data, pagination } = await response.json();
      expect(pagination.total_items).toBe(created.length);
      listed.push(...data.map((record: { id: string }) => record.id));
      if (page >= pagination.total_pages) break;
    }
    expect(listed.sort()).toEqual([...created].sort());
  }, 60_000);
});

/**
 * The `keepalive_timeout` of the configuration's upstream block, in seconds (nginx's default, 60 s, when
 * the block sets none).
 */
function upstreamKeepaliveSeconds(template: string): number {
  const upstream = /upstream connectivity_gateway \{[\s\S]*?\n\}/.exec(template)?.[0] ?? '';
  const value = /^\s*keepalive_timeout\s+(\d+)s?;/m.exec(upstream)?.[1];
  return value === undefined ? 60 : Number(value);
}
