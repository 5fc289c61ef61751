import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { createTestDatabase, startThrowawayPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';
import {
  demoCredentials,
  isOrderPost,
  type Json,
  type OrderSubscriber,
  orderSubscriber,
  placeOrder,
  routerProduct,
  signedIn,
  sonataQuotes,
  useSonataSellers,
} from './sonata-ordering.js';

/*
 * Issue 35, orders in the shared mode (PostgreSQL + Redis): instance A serves the API only
 * (`GATHERING_WORKER=off`, `EVENT_RELAY=off`), instance B runs the workers and the outbox relay. An order
 * placed through B is placed and followed at two simulated Sonata sellers by B's order worker; a graphql-ws
 * subscriber on A, subscribed to `orderUpdated` for every order of the instance, must see each of the
 * order's versions once, in order — from its creation to `COMPLETED` once an admin moved its manual lines
 * through REST on A — ending at what `GET /orders/{id}` answers.
 *
 * These tests bring their own servers whatever the vitest project, so they run in the `sqlite` project only.
 */

const onlyInSqliteProject = process.env.TEST_DATABASE === 'postgres';

/** Everything a change of an order can show, so that two versions never look alike. */
const ORDER_UPDATED = `subscription {
  orderUpdated {
    id status updatedAt
    lines {
      id fulfilment status supplierStatus supplierOrderId supplierItemId expectedCompletionDate completionDate
      inventoryProductId inventoryProductStatus milestones { name date } charges { id state } error { code }
      note statusChangedAt
    }
  }
}`;

const orderRank: Record<string, number> = {
  PENDING: 0,
  SUBMITTED: 1,
  IN_PROGRESS: 2,
  COMPLETED: 3,
  PARTIALLY_COMPLETED: 3,
  FAILED: 3,
  CANCELLED: 3,
};
const lineRank: Record<string, number> = {
  PENDING: 0,
  SUBMITTED: 1,
  IN_PROGRESS: 2,
  COMPLETED: 3,
  FAILED: 3,
  CANCELLED: 3,
};

/** A timestamp to the second (REST shows seconds, GraphQL milliseconds); null stays null. */
const second = (value: string | null) => (value === null ? null : Math.floor(Date.parse(value) / 1000));

/** An order's state as the subscriber received it, in the shape both documents can be brought to. */
function stateOfUpdate(update: Json) {
  return {
    status: update.status as string,
    updatedAt: second(update.updatedAt),
    lines: (update.lines as Json[]).map((line) => ({
      id: line.id,
      fulfilment: line.fulfilment,
      status: line.status,
      supplierStatus: line.supplierStatus,
      supplierOrderId: line.supplierOrderId,
      supplierItemId: line.supplierItemId,
      expectedCompletionDate: second(line.expectedCompletionDate),
      completionDate: second(line.completionDate),
      inventoryProductId: line.inventoryProductId,
      inventoryProductStatus: line.inventoryProductStatus,
      milestones: (line.milestones as Json[]).map(({ name, date }) => ({ name, date: second(date) })),
      charges: line.charges,
      error: line.error?.code ?? null,
      note: line.note,
      statusChangedAt: second(line.statusChangedAt),
    })),
  };
}

/** The same state from the REST document of the order. */
function stateOfDocument(order: Json) {
  return {
    status: String(order.status).toUpperCase(),
    updatedAt: second(order.updated_at),
    lines: (order.lines as Json[]).map((line) => ({
      id: line.id,
      fulfilment: String(line.fulfilment).toUpperCase(),
      status: String(line.status).toUpperCase(),
      supplierStatus: line.supplier_status,
      supplierOrderId: line.supplier_order_id,
      supplierItemId: line.supplier_item_id,
      expectedCompletionDate: second(line.expected_completion_date),
      completionDate: second(line.completion_date),
      inventoryProductId: line.inventory_product_id,
      inventoryProductStatus: line.inventory_product_status,
      milestones: (line.milestones as Json[]).map(({ name, date }) => ({ name, date: second(date) })),
      charges: (line.charges as Json[]).map(({ id, state }) => ({ id, state })),
      error: line.error?.code ?? null,
      note: line.note,
      statusChangedAt: second(line.status_changed_at),
    })),
  };
}

/** A list without its consecutive repeats. */
const collapsed = <T>(values: readonly T[]) =>
  values.filter((value, index) => index === 0 || values[index - 1] !== value);

describe.skipIf(onlyInSqliteProject)('orders in the shared mode', () => {
  let seller: SonataSeller;
  let postgres: TestPostgres;
  let redis: TestRedis;
  let databaseUrl: string;
  const processes: GatewayProcess[] = [];
  const closers: (() => unknown)[] = [];
  let apiOnly: GatewayProcess;
  let working: GatewayProcess;

  beforeAll(async () => {
    seller = await startSonataSeller({ behaviour: { stepMs: 200 } });
    [postgres, redis] = await Promise.all([startThrowawayPostgres(), startTestRedis()]);
    databaseUrl = (await createTestDatabase(postgres.adminUrl)).url;
    const env = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      DATABASE_POOL_SIZE: '4',
      EVENT_RELAY_POLL_MS: '200',
      GATHERING_IDLE_POLL_MS: '200',
      GATHERING_LEASE_SECONDS: '5',
      RATE_LIMIT_PER_TOKEN: '1000000',
      RATE_LIMIT_PER_INSTANCE: '1000000',
    };
    const start = async (own: Record<string, string>) => {
      const process = await startGatewayProcess({ env: { ...env, ...own }, readyTimeoutMs: 60_000 });
      processes.push(process);
      return process;
    };
    // A first: it migrates and seeds the demo instance; B then finds both.
    apiOnly = await start({ SEED_DEMO: 'true', GATHERING_WORKER: 'off', EVENT_RELAY: 'off' });
    working = await start({ SEED_DEMO: 'false' });
  }, 120_000);

  afterAll(async () => {
    for (const close of closers) await close();
    await Promise.all(processes.map((process) => process.kill('SIGKILL')));
    await seller?.stop();
    await redis?.stop();
    await postgres?.stop();
  }, 30_000);

  it('when an order is placed through the instance that runs the workers, then a graphql-ws subscriber on the API-only instance sees each of its versions once, in order, ending completed as GET /orders/{id} shows it', async () => {
    const credentials = await demoCredentials(apiOnly);
    const onA = await signedIn(apiOnly.url, credentials);
    const onB = await signedIn(working.url, credentials);
    await useSonataSellers(onB, seller);
    const router = await routerProduct(onB);
    const [quoteId] = await sonataQuotes(onB, 1, router);
    const subscriber: OrderSubscriber = orderSubscriber(apiOnly.url, onA.token, ORDER_UPDATED);
    closers.push(() => subscriber.close());
    await waitFor(() => Promise.resolve(subscriber.connected()), Boolean);
    // A first order of the router alone (no seller): once A's subscriber has it, A listens to Redis.
    const customer = await onB.request('POST', '/customers', { name: 'Warm-up B.V.' });
    const warmUpQuote = await onB.request('POST', '/quotes', {
      name: 'Warm-up',
      customer_id: customer.body.data.id,
      instance_product_ids: [router],
    });
    const warmUp = await placeOrder(onB, warmUpQuote.body.data.id);
    await waitFor(
      () => Promise.resolve(subscriber.updates.some((update) => update.id === warmUp.id)),
      Boolean,
      15_000,
    );

    const placed = await placeOrder(onB, quoteId as string);
    const seen = () => subscriber.updates.filter((update) => update.id === placed.id);
    const supplierDone = await waitFor(
      () => Promise.resolve(seen().at(-1)),
      (last) =>
        last !== undefined &&
        (last.lines as Json[]).every((line) => line.fulfilment === 'MANUAL' || line.status === 'COMPLETED'),
      30_000,
    );
    for (const line of (supplierDone.lines as Json[]).filter((each) => each.fulfilment === 'MANUAL')) {
      const moved = await onA.request('PATCH', `/orders/${placed.id}/lines/${line.id}`, {
        status: 'completed',
      });
      expect(moved.status).toBe(200);
    }
    await waitFor(
      () => Promise.resolve(seen().at(-1)?.status),
      (status) => status === 'COMPLETED',
      15_000,
    );
    const final = await onA.request('GET', `/orders/${placed.id}`);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    closers.push(() => client.end());
    const { rows } = await client.query<{ version: number }>('select version from orders where id = $1', [
      placed.id,
    ]);

    expect(subscriber.updates.filter((update) => update.errors)).toEqual([]);
    const states = seen().map(stateOfUpdate);
    // Every version once: as many states as versions (1 at the placement), no two alike.
    expect(states.length).toBe(rows[0]?.version);
    expect(new Set(states.map((state) => JSON.stringify(state))).size).toBe(states.length);
    expect(states[0]).toEqual(stateOfDocument(placed));
    expect(states.at(-1)).toEqual(stateOfDocument(final.body.data));
    expect(final.body.data.status).toBe('completed');
    // In order: no status, line status or milestone goes back.
    for (let index = 1; index < states.length; index += 1) {
      const [before, after] = [states[index - 1], states[index]] as [Json, Json];
      expect(orderRank[after.status]).toBeGreaterThanOrEqual(orderRank[before.status] as number);
      for (const [position, line] of (after.lines as Json[]).entries()) {
        const earlier = before.lines[position];
        expect(lineRank[line.status]).toBeGreaterThanOrEqual(lineRank[earlier.status] as number);
        expect(line.milestones.length).toBeGreaterThanOrEqual(earlier.milestones.length);
      }
    }
    // Each supplier line went through every item state its seller answered B, in that order.
    const supplierLines = (final.body.data.lines as Json[]).filter((line) => line.fulfilment === 'supplier');
    expect(supplierLines).toHaveLength(2);
    for (const line of supplierLines) {
      const answered = seller.exchanges
        .filter(
          (exchange) =>
            (isOrderPost(exchange) && (exchange.responseBody as Json)?.id === line.supplier_order_id) ||
            (exchange.method === 'GET' &&
              exchange.path.endsWith(
                `/productOrderingManagement/v10/productOrder/${line.supplier_order_id}`,
              )),
        )
        .map(
          (exchange) =>
            ((exchange.responseBody as Json).productOrderItem as Json[]).find((item) => item.id === line.id)
              ?.state,
        );
      const position = (final.body.data.lines as Json[]).indexOf(line);
      expect(collapsed(states.map((state) => state.lines[position]?.supplierStatus))).toEqual([
        null,
        ...collapsed(answered),
      ]);
    }
  }, 60_000);
});
