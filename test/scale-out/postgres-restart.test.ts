import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { type GatewayExit, type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { createTestDatabase, startThrowawayPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { mercureSubscriber } from '../helpers/sse-subscriber.js';
import { graphqlWsSubscriber, type UpdatesSubscriber } from '../helpers/updates-subscriber.js';
import { waitFor } from '../helpers/wait.js';
import { queryOnce, storeUnavailableProblem } from './outage.js';
import {
  demoCredentials,
  type GatewayApi,
  isOrderPost,
  type Json,
  placeOrder,
  signedIn,
  sonataQuotes,
  supplierOrderTrace,
  useSonataSellers,
} from './sonata-ordering.js';

/*
 * Issue 48, item 5: two gateway instances on one PostgreSQL and one Redis (the shared mode), a gathering of
 * 100 availability requests under way and an order being placed at a Sonata seller, when PostgreSQL is
 * stopped in `immediate` mode (a crash, a failover, an OOM kill) and started again — after 3 s, and after
 * 30 s, three times the leases (`GATHERING_LEASE_SECONDS=10`), so leases run out during the outage.
 *
 * Every process stays up; REST answers 503 with `Retry-After: 5` during and 200 after; every request
 * completes once with no task failed or charged an attempt for the outage and nothing stored twice; a
 * graphql-ws subscriber (which does not reconnect) and a Mercure subscriber on the other instance see each
 * request complete, on the connection they opened before the outage; the supplier orders are created at
 * their sellers exactly once.
 *
 * Gathering asks the two simulated Sonata sellers (the demo sources are switched off), each call slowed by
 * `latency` so that the outage lands while calls are out. These tests bring their own servers whatever the
 * vitest project, so they run in the `sqlite` project only.
 */

const onlyInSqliteProject = process.env.TEST_DATABASE === 'postgres';

/** How long the seller takes over every call (ms). */
const LATENCY_MS = 300;

/** 100 addresses in one street of the NL demo area, given in full (a Sonata seller needs the street and city). */
const addresses = (run: number) =>
  Array.from({ length: 100 }, (_, index) => ({
    address: {
      country_code: 'NL',
      street: 'Lijnbaansgracht',
      city: 'Amsterdam',
      house_number: String(run * 1000 + index + 1),
      postal_code: '1016 XA',
    },
  }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(onlyInSqliteProject)(
  'a PostgreSQL restart under two gateway instances with Redis (issue 48)',
  () => {
    let seller: SonataSeller;
    let postgres: TestPostgres;
    let redis: TestRedis;
    let databaseUrl: string;
    const instances: GatewayProcess[] = [];
    const exits: (GatewayExit | null)[] = [];
    const apis: GatewayApi[] = [];
    const opened: { close(): unknown }[] = [];

    beforeAll(async () => {
      seller = await startSonataSeller({ behaviour: { stepMs: 300 } });
      [postgres, redis] = await Promise.all([startThrowawayPostgres({ durable: true }), startTestRedis()]);
      databaseUrl = (await createTestDatabase(postgres.adminUrl)).url;
      const env = {
        DATABASE_URL: databaseUrl,
        REDIS_URL: redis.url,
        DATABASE_POOL_SIZE: '4',
        EVENT_RELAY_POLL_MS: '200',
        EVENT_RELAY_LEASE_SECONDS: '3',
        GATHERING_LEASE_SECONDS: '10',
        GATHERING_IDLE_POLL_MS: '200',
        GATHERING_CONCURRENCY: '8',
        RATE_LIMIT_PER_TOKEN: '1000000',
        RATE_LIMIT_PER_INSTANCE: '1000000',
      };
      for (const seed of [true, false]) {
        const instance = await startGatewayProcess({
          env: { ...env, SEED_DEMO: String(seed) },
          readyTimeoutMs: 60_000,
        });
        const index = instances.push(instance) - 1;
        exits[index] = null;
        void instance.exited.then((exit) => {
          exits[index] = exit;
        });
      }
      const credentials = await demoCredentials(instances[0] as GatewayProcess);
      for (const instance of instances) apis.push(await signedIn(instance.url, credentials));
      await useSonataSellers(apis[0] as GatewayApi, seller, { latency: String(LATENCY_MS) });
    }, 120_000);

    afterAll(async () => {
      for (const each of opened) await each.close();
      await Promise.all(instances.map((instance) => instance.kill('SIGKILL')));
      await seller?.stop();
      await redis?.stop();
      await postgres?.stop();
    }, 30_000);

    const query = <R extends Record<string, unknown>>(text: string, values: unknown[] = []) =>
      queryOnce<R>(databaseUrl, text, values);

    async function outage(run: number, outageMs: number): Promise<void> {
      const [first, second] = apis as [GatewayApi, GatewayApi];
      // The order's quotes first (their own gathering), then the 100 requests on the first instance,
      // watched from the second, then the order.
      const [quoteId] = await sonataQuotes(first, 1);
      const subscriber: UpdatesSubscriber = graphqlWsSubscriber(
        (instances[1] as GatewayProcess).url,
        second.token,
      );
      opened.push(subscriber);
      await waitFor(() => subscriber.connected(), Boolean);
      const listed = await second.request('GET', '/availability-requests?page_size=1');
      const sseJwt = listed.body.sse_jwt as string;
      const claims = JSON.parse(Buffer.from(sseJwt.split('.')[1] ?? '', 'base64url').toString());
      const sse = mercureSubscriber((instances[1] as GatewayProcess).url, {
        topics: claims.mercure.subscribe,
        sseJwt,
      });
      opened.push(sse);
      await sse.opened;
      const created = await first.request('POST', '/availability-requests', addresses(run));
      expect(created.status).toBe(201);
      const ids: string[] = created.body.data.map((entry: { id: string }) => entry.id);
      // Gathering under way: some sources answered (the statuses and errors show when none does).
      await waitFor(
        () =>
          query<{ status: string; error_code: string | null; n: number }>(
            `select status, error_code, count(*)::int as n from gathering_tasks
              where availability_request_id = any($1) group by 1, 2 order by 1, 2`,
            [ids],
          ),
        (rows) => rows.some((row) => row.status === 'succeeded'),
        30_000,
      );

      // Placed right before the server stops: the order worker claims it, marks it posting, sends it to the
      // seller and records the answer around the outage.
      const order = await placeOrder(first, quoteId as string);
      await postgres.crash?.();
      const during = await Promise.all(
        instances.map(async (instance) => {
          const list = await fetch(`${instance.url}/availability-requests?page_size=1`, {
            headers: { 'x-auth-token': first.token },
          });
          const health = await fetch(`${instance.url}/healthz`);
          return [list.status, list.headers.get('retry-after'), await list.json(), health.status];
        }),
      );
      await sleep(outageMs);
      await postgres.restart?.();

      expect(during).toEqual(instances.map(() => [503, '5', storeUnavailableProblem, 200]));
      // Back: every instance answers again.
      for (const api of apis) {
        const answered = await waitFor(
          () => api.request('GET', '/availability-requests?page_size=1'),
          (response) => response.status === 200,
          30_000,
        );
        expect(answered.status).toBe(200);
      }

      // Every request completes, once, and the subscriber on the other instance saw each complete.
      await waitFor(
        () =>
          Promise.resolve(
            new Set(subscriber.updates.filter((u) => u.status === 'COMPLETED').map((u) => u.id)),
          ),
        (completed) => ids.every((id) => completed.has(id)),
        90_000,
      );
      expect(subscriber.connected()).toBe(true);
      const overSse = await waitFor(
        () =>
          Promise.resolve(
            new Set(sse.events.filter((e) => e.data.status === 'completed').map((e) => e.data.id)),
          ),
        (completed) => ids.every((id) => completed.has(id)),
        30_000,
      );
      expect(ids.filter((id) => !overSse.has(id))).toEqual([]);
      // One response: the stream opened before the outage was never cut.
      expect(sse.responses.map((response) => response.status)).toEqual([200]);
      const completions = subscriber.updates.filter((u) => ids.includes(u.id) && u.status === 'COMPLETED');
      expect(completions.map((u) => u.id).sort()).toEqual([...ids].sort());
      const tasks = await query<{ status: string; attempts: number; error_code: string | null; n: number }>(
        `select status, attempts, error_code, count(*)::int as n from gathering_tasks
        where availability_request_id = any($1) group by 1, 2, 3 order by 1, 2, 3`,
        [ids],
      );
      expect(tasks).toEqual([{ status: 'succeeded', attempts: 1, error_code: null, n: ids.length * 2 }]);
      const storedTwice = await query<{ n: number }>(
        `select count(*)::int as n from (
         select gathering_task_id from availability_request_products where availability_request_id = any($1)
          group by gathering_task_id having count(distinct created_at) > 1) twice`,
        [ids],
      );
      expect(storedTwice[0]?.n).toBe(0);

      // The order's supplier orders were created at their sellers exactly once each.
      const supplierOrders = await waitFor(
        () =>
          query<{ id: string; status: string; seller_order_id: string | null }>(
            'select id, status, seller_order_id from supplier_orders where order_id = $1 order by id',
            [order.id],
          ),
        (rows) => rows.length === 2 && rows.every((row) => row.seller_order_id !== null),
        60_000,
      );
      for (const row of supplierOrders) {
        const posts = seller.exchanges
          .filter(isOrderPost)
          .filter((exchange) => (exchange.requestBody as Json).externalId === row.id);
        expect(
          posts.map((exchange) => exchange.status),
          row.id,
        ).toEqual([201]);
        expect(supplierOrderTrace(seller, row.id, row.seller_order_id).join(' '), row.id).toMatch(
          /^(LOOKUP none )*POST 201( LOOKUP found| READ 200)*$/,
        );
      }
      expect(exits).toEqual(instances.map(() => null));
    }

    it('when PostgreSQL stops in immediate mode and starts again 3 s later, then both instances stay up and every request and supplier order completes once', async () => {
      await outage(1, 3_000);
    }, 240_000);

    it('when PostgreSQL stops for 30 s, longer than the leases, then whichever worker goes on with a task whose lease ran out, none fails or loses an attempt, and everything completes once', async () => {
      await outage(2, 30_000);
    }, 300_000);
  },
);
