import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { createTestDatabase, startThrowawayPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';
import {
  demoCredentials,
  type GatewayApi,
  isOrderPost,
  type Json,
  pidOf,
  placeOrder,
  signedIn,
  sonataQuotes,
  supplierOrderTrace,
  useSonataSellers,
} from './sonata-ordering.js';

/*
 * Issue 35, "it survives the loss of an instance … across instances in the shared mode": two gateway
 * processes on one PostgreSQL database and one Redis, both running the order worker. Orders of quotes of two
 * simulated Sonata sellers whose every call is slow (`latency`) are placed through both; once one process
 * holds a supplier order whose placement is under way, that process is killed with SIGKILL. The other takes
 * its supplier orders over when their leases expire (`GATHERING_LEASE_SECONDS`, the order worker's lease):
 * every supplier order is created at its seller exactly once (one POST, answered 201, per externalId) and
 * every order ends `completed` once an admin moved its manual lines on the surviving process.
 *
 * These tests bring their own servers whatever the vitest project, so they run in the `sqlite` project only.
 */

const onlyInSqliteProject = process.env.TEST_DATABASE === 'postgres';

/** How long the seller takes over every order call (ms): the kill lands while a POST is on its way. */
const LATENCY_MS = 400;
/** Orders placed, each of one product of each seller: twice as many supplier orders. */
const ORDERS = 4;

/** A supplier order row as the test reads it from the store. */
interface SupplierOrderState {
  id: string;
  orderId: string;
  status: string;
  sellerOrderId: string | null;
  leaseOwner: string | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(onlyInSqliteProject)('supplier orders when one of two worker instances is lost', () => {
  let seller: SonataSeller;
  let postgres: TestPostgres;
  let redis: TestRedis;
  let client: pg.Client;
  const instances: GatewayProcess[] = [];

  beforeAll(async () => {
    // Three seller steps from acknowledged to completed; every order call waits LATENCY_MS first.
    seller = await startSonataSeller({ behaviour: { stepMs: 300 } });
    [postgres, redis] = await Promise.all([startThrowawayPostgres(), startTestRedis()]);
    const databaseUrl = (await createTestDatabase(postgres.adminUrl)).url;
    client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      DATABASE_POOL_SIZE: '4',
      EVENT_RELAY_POLL_MS: '200',
      EVENT_RELAY_LEASE_SECONDS: '3',
      // The order worker's lease: a killed process's supplier orders are claimable again 3 s after its claim.
      GATHERING_LEASE_SECONDS: '3',
      GATHERING_IDLE_POLL_MS: '100',
      GATHERING_CONCURRENCY: '4',
      RATE_LIMIT_PER_TOKEN: '1000000',
      RATE_LIMIT_PER_INSTANCE: '1000000',
    };
    // The first migrates and seeds the demo instance; the second finds both. Both run every worker.
    for (const seed of [true, false]) {
      instances.push(
        await startGatewayProcess({ env: { ...env, SEED_DEMO: String(seed) }, readyTimeoutMs: 60_000 }),
      );
    }
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await Promise.all(instances.map((instance) => instance.kill('SIGKILL')));
    await seller?.stop();
    await redis?.stop();
    await postgres?.stop();
  }, 30_000);

  const readSupplierOrders = async (): Promise<SupplierOrderState[]> =>
    (
      await client.query<SupplierOrderState>(
        'select id, order_id as "orderId", status, seller_order_id as "sellerOrderId", ' +
          'lease_owner as "leaseOwner" from supplier_orders order by id',
      )
    ).rows;

  it('when the instance placing a supplier order is killed with SIGKILL, then the other instance takes its supplier orders over once their leases expire: each is created at its seller exactly once and every order completes', async () => {
    const credentials = await demoCredentials(instances[0] as GatewayProcess);
    const apis: GatewayApi[] = [];
    for (const instance of instances) apis.push(await signedIn(instance.url, credentials));
    await useSonataSellers(apis[0] as GatewayApi, seller, { latency: String(LATENCY_MS) });
    const quoteIds = await sonataQuotes(apis[0] as GatewayApi, ORDERS);
    const orderIds: string[] = [];
    // Placed through both instances in turn; either worker may claim any supplier order.
    for (const [index, quoteId] of quoteIds.entries())
      orderIds.push((await placeOrder(apis[index % 2] as GatewayApi, quoteId)).id);

    // The instance holding a supplier order whose placement is under way (leased, no seller order yet).
    const pids = instances.map((instance) => instance.pid);
    const placing = await waitFor(
      readSupplierOrders,
      (rows) =>
        rows.some(
          (row) =>
            row.status === 'placing' &&
            row.sellerOrderId === null &&
            pids.includes(pidOf(row.leaseOwner) ?? -1),
        ),
      30_000,
    );
    const victimPid = pidOf(
      placing.find((row) => row.status === 'placing' && row.sellerOrderId === null)?.leaseOwner,
    );
    const victimIndex = pids.indexOf(victimPid ?? -1);
    const victim = instances[victimIndex] as GatewayProcess;
    const survivor = instances[1 - victimIndex] as GatewayProcess;
    const api = apis[1 - victimIndex] as GatewayApi;
    // Inside the seller's latency: the victim's POST (or its claim ahead) is not answered yet.
    await sleep(LATENCY_MS / 4);
    const exit = await victim.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    // What the victim left: supplier orders leased to a process that no longer runs, not ended.
    const orphaned = (await readSupplierOrders()).filter(
      (row) => pidOf(row.leaseOwner) === victimPid && row.status !== 'ended',
    );
    expect(orphaned.length).toBeGreaterThan(0);
    console.info(
      `order-takeover: killed ${victimPid} holding ${orphaned.length} supplier orders (${orphaned.map((row) => row.status).join(', ')})`,
    );

    // The survivor finishes every supplier order; an admin moves the manual lines (the demo instance's
    // mandatory products) through it.
    const orders: Json[] = [];
    for (const id of orderIds) {
      const followed = await waitFor(
        () => api.request('GET', `/orders/${id}`),
        (response) =>
          response.status === 200 &&
          (response.body.data.lines as Json[]).every(
            (line) => line.fulfilment === 'manual' || line.status === 'completed',
          ),
        60_000,
      );
      for (const line of (followed.body.data.lines as Json[]).filter(
        (each) => each.fulfilment === 'manual',
      )) {
        const moved = await api.request('PATCH', `/orders/${id}/lines/${line.id}`, { status: 'completed' });
        expect(moved.status).toBe(200);
      }
      orders.push((await api.request('GET', `/orders/${id}`)).body.data);
    }
    expect(survivor.pid).not.toBe(victimPid);

    const supplierOrders = await readSupplierOrders();
    expect(supplierOrders.map((row) => [row.orderId, row.status, row.leaseOwner]).sort()).toEqual(
      orderIds
        .flatMap((id) => [
          [id, 'ended', null],
          [id, 'ended', null],
        ])
        .sort(),
    );
    // Each supplier order was sent once, and taken: one POST with its externalId, answered 201.
    const posts = new Map<string, { status: number; id: string }[]>();
    for (const exchange of seller.exchanges.filter(isOrderPost)) {
      const externalId = (exchange.requestBody as Json).externalId as string;
      posts.set(externalId, [
        ...(posts.get(externalId) ?? []),
        { status: exchange.status, id: (exchange.responseBody as Json)?.id },
      ]);
    }
    expect(
      Object.fromEntries(
        [...posts].map(([externalId, answers]) => [externalId, answers.map((a) => a.status)]),
      ),
    ).toEqual(Object.fromEntries(supplierOrders.map((row) => [row.id, [201]])));
    for (const row of supplierOrders) expect(row.sellerOrderId).toBe(posts.get(row.id)?.[0]?.id);
    // Lookups that found nothing, the one POST, then lookups that found it and reads.
    for (const row of supplierOrders)
      expect(supplierOrderTrace(seller, row.id, row.sellerOrderId).join(' '), row.id).toMatch(
        /^(LOOKUP none )*POST 201( LOOKUP found| READ 200)*$/,
      );

    // Every order completed, each supplier line with the seller order its supplier order created.
    for (const [index, order] of orders.entries()) {
      expect(order.status).toBe('completed');
      const supplierLines = (order.lines as Json[]).filter((line) => line.fulfilment === 'supplier');
      expect(
        supplierLines.map((line) => [line.status, line.supplier_status, line.inventory_product_status]),
      ).toEqual([
        ['completed', 'completed', 'active'],
        ['completed', 'completed', 'active'],
      ]);
      expect(supplierLines.map((line) => line.supplier_order_id).sort()).toEqual(
        supplierOrders
          .filter((row) => row.orderId === orderIds[index])
          .map((row) => row.sellerOrderId)
          .sort(),
      );
    }
  }, 120_000);
});
