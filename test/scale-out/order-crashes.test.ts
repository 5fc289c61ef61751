import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SonataSeller, startSonataSeller } from '../../src/gathering/simulator/sonata/server.js';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { createTestDatabase, startThrowawayPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { waitFor } from '../helpers/wait.js';
import {
  type DemoCredentials,
  demoCredentials,
  type GatewayApi,
  isOrderPost,
  type Json,
  pidOf,
  placeOrder,
  seededRandom,
  signedIn,
  sonataQuotes,
  supplierOrderTrace,
  useSonataSellers,
} from './sonata-ordering.js';

/*
 * Issue 35, "each supplier order is created once": the gateway runs as a process of its own on each store
 * (a SQLite file; a throwaway PostgreSQL) and places orders of quotes of two simulated Sonata sellers whose
 * every call is slow (`latency`). It is killed with SIGKILL at random moments — while a supplier order is
 * being placed (its POST at the seller), or while placed ones are followed — and started again on the same
 * database, a few times; a last process finishes the work. The kill schedule comes from a seeded generator
 * (the seed is printed; ORDER_CRASH_SEED=<seed> replays it).
 *
 * These tests bring their own servers whatever the vitest project, so they run in the `sqlite` project only.
 */

const onlyInSqliteProject = process.env.TEST_DATABASE === 'postgres';

/** How long the seller takes over every order call (ms): a kill lands inside a POST. */
const LATENCY_MS = 400;
/** Kills, each after placing one more order. */
const ROUNDS = 4;

/** A supplier order row as the test reads it from the store. */
interface SupplierOrderState {
  id: string;
  orderId: string;
  status: string;
  sellerOrderId: string | null;
  leaseOwner: string | null;
  /** Milliseconds since the epoch; null without a lease. */
  leaseExpiresAt: number | null;
}

/** One SIGKILL: what was under way, how long after it was seen, and the supplier orders as it left them. */
interface Crash {
  round: number;
  moment: 'placing' | 'following';
  delayMs: number;
  supplierOrders: SupplierOrderState[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(onlyInSqliteProject).each(['sqlite', 'postgres'] as const)(
  'supplier orders across SIGKILLs of the gateway on %s',
  (store) => {
    let seller: SonataSeller;
    let postgres: TestPostgres | undefined;
    let folder: string | undefined;
    let databaseUrl: string;
    let readSupplierOrders: () => Promise<SupplierOrderState[]>;
    const processes: GatewayProcess[] = [];
    const closers: (() => unknown)[] = [];

    beforeAll(async () => {
      // Three seller steps from acknowledged to completed; every order call waits LATENCY_MS first.
      seller = await startSonataSeller({ behaviour: { stepMs: 300 } });
      if (store === 'postgres') {
        postgres = await startThrowawayPostgres();
        databaseUrl = (await createTestDatabase(postgres.adminUrl)).url;
      } else {
        folder = mkdtempSync(join(tmpdir(), 'gateway-order-crashes-'));
        databaseUrl = join(folder, 'gateway.db');
      }
    }, 60_000);

    afterAll(async () => {
      for (const close of closers) await close();
      await Promise.all(processes.map((process) => process.kill('SIGKILL')));
      await seller?.stop();
      await postgres?.stop();
      if (folder) rmSync(folder, { recursive: true, force: true });
    }, 30_000);

    /** The supplier orders, read beside the processes (SQLite: read-only, WAL; PostgreSQL: a client). */
    const openReader = async () => {
      const select =
        'select id, order_id as "orderId", status, seller_order_id as "sellerOrderId", lease_owner as "leaseOwner", ' +
        'lease_expires_at as "leaseExpiresAt" from supplier_orders order by id';
      // SQLite keeps integer milliseconds, PostgreSQL a timestamptz.
      const rowsOf = (rows: (Omit<SupplierOrderState, 'leaseExpiresAt'> & { leaseExpiresAt: unknown })[]) =>
        rows.map((row) => ({
          ...row,
          leaseExpiresAt:
            row.leaseExpiresAt === null ? null : new Date(row.leaseExpiresAt as number).getTime(),
        }));
      if (store === 'postgres') {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        closers.push(() => client.end());
        readSupplierOrders = async () => rowsOf((await client.query(select)).rows);
      } else {
        const file = new Database(databaseUrl, { readonly: true, fileMustExist: true });
        closers.push(() => file.close());
        const statement = file.prepare(select);
        readSupplierOrders = async () => rowsOf(statement.all() as SupplierOrderState[]);
      }
    };

    const start = async (seed: boolean) => {
      const gateway = await startGatewayProcess({
        env: {
          DATABASE_URL: databaseUrl,
          SEED_DEMO: String(seed),
          // A killed process's claims come back once their lease has expired: by the time the next one runs.
          GATHERING_LEASE_SECONDS: '3',
          GATHERING_IDLE_POLL_MS: '100',
          GATHERING_CONCURRENCY: '4',
          RATE_LIMIT_PER_TOKEN: '1000000',
          RATE_LIMIT_PER_INSTANCE: '1000000',
        },
        readyTimeoutMs: 60_000,
      });
      processes.push(gateway);
      return gateway;
    };

    it('when the gateway is killed with SIGKILL at random moments while it places and follows supplier orders, then each supplier order is created at its seller exactly once, looked up by its externalId after a crash that interrupted its placement, and completes', async () => {
      const seed = Number(process.env.ORDER_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 32));
      const random = seededRandom(seed);
      console.info(
        `order-crashes on ${store}: seed ${seed} (ORDER_CRASH_SEED=${seed} replays the kill schedule)`,
      );

      let gateway = await start(true);
      const credentials: DemoCredentials = await demoCredentials(gateway);
      let api: GatewayApi = await signedIn(gateway.url, credentials);
      await openReader();
      await useSonataSellers(api, seller, { latency: String(LATENCY_MS) });
      const quoteIds = await sonataQuotes(api, ROUNDS);
      const orderIds: string[] = [];
      const crashes: Crash[] = [];

      for (let round = 0; round < ROUNDS; round += 1) {
        if (round > 0) {
          gateway = await start(false);
          api = await signedIn(gateway.url, credentials);
        }
        orderIds.push((await placeOrder(api, quoteIds[round] as string)).id);
        // The first two kills interrupt placements; the others whatever the draw says.
        const moment = round < 2 || random() < 0.5 ? 'placing' : 'following';
        const pid = gateway.pid;
        await waitFor(
          readSupplierOrders,
          (rows) =>
            rows.some(
              (row) =>
                pidOf(row.leaseOwner) === pid &&
                row.status !== 'ended' &&
                (moment === 'placing') === (row.sellerOrderId === null),
            ),
          20_000,
        );
        // Inside the seller's latency: a POST (or a read) is on its way, not answered yet.
        const delayMs = Math.floor(LATENCY_MS * (0.125 + 0.75 * random()));
        await sleep(delayMs);
        await gateway.kill('SIGKILL');
        crashes.push({ round, moment, delayMs, supplierOrders: await readSupplierOrders() });
      }
      const schedule = crashes
        .map(({ round, moment, delayMs }) => `${round}:${moment}+${delayMs}ms`)
        .join(', ');
      console.info(`order-crashes on ${store}: seed ${seed}, kills ${schedule}`);

      gateway = await start(false);
      api = await signedIn(gateway.url, credentials);
      const orders: Json[] = [];
      for (const id of orderIds) {
        const read = await waitFor(
          () => api.request('GET', `/orders/${id}`),
          (response) =>
            (response.body.data.lines as Json[]).every(
              (line) => line.fulfilment === 'manual' || line.status === 'completed',
            ),
          30_000,
        );
        orders.push(read.body.data);
      }

      const why = `seed ${seed}, kills ${schedule}`;
      const supplierOrders = await readSupplierOrders();
      expect(supplierOrders.map((row) => [row.orderId, row.status]).sort(), why).toEqual(
        orderIds
          .flatMap((id) => [
            [id, 'ended'],
            [id, 'ended'],
          ])
          .sort(),
      );
      // Every supplier order was sent once, and taken: one POST with its externalId, answered 201.
      const posts = new Map<string, { status: number; id: string; orderDate: string }[]>();
      for (const exchange of seller.exchanges.filter(isOrderPost)) {
        const externalId = (exchange.requestBody as Json).externalId as string;
        const answer = exchange.responseBody as Json;
        posts.set(externalId, [
          ...(posts.get(externalId) ?? []),
          { status: exchange.status, id: answer?.id, orderDate: answer?.orderDate },
        ]);
      }
      expect(
        Object.fromEntries(
          [...posts].map(([externalId, answers]) => [externalId, answers.map((a) => a.status)]),
        ),
        why,
      ).toEqual(Object.fromEntries(supplierOrders.map((row) => [row.id, [201]])));
      for (const row of supplierOrders) expect(row.sellerOrderId, why).toBe(posts.get(row.id)?.[0]?.id);
      for (const [index, order] of orders.entries()) {
        const mine = supplierOrders.filter((row) => row.orderId === orderIds[index]);
        // The demo instance's mandatory products are manual lines, left to an admin.
        const supplierLines = (order.lines as Json[]).filter((line) => line.fulfilment === 'supplier');
        expect(
          supplierLines.map((line) => [line.status, line.supplier_status, line.inventory_product_status]),
          why,
        ).toEqual([
          ['completed', 'completed', 'active'],
          ['completed', 'completed', 'active'],
        ]);
        expect(supplierLines.map((line) => line.supplier_order_id).sort(), why).toEqual(
          mine.map((row) => row.sellerOrderId).sort(),
        );
      }

      // Each trace: lookups that found nothing, the one POST, then lookups that found it and reads.
      const traces = new Map(
        supplierOrders.map((row) => [row.id, supplierOrderTrace(seller, row.id, row.sellerOrderId)]),
      );
      for (const [id, trace] of traces)
        expect(trace.join(' '), `${id}: ${why}`).toMatch(
          /^(LOOKUP none )*POST 201( LOOKUP found| READ 200)*$/,
        );
      // A crash interrupted a placement when the seller took the order and the store did not learn it: the
      // seller answered its POST before the killed process's lease expired, so before any other process could
      // have sent it. The next process looked it up by its externalId before anything else.
      const interrupted = new Set(
        crashes.flatMap((crash) =>
          crash.supplierOrders
            .filter((row) => {
              const post = posts.get(row.id)?.[0];
              return (
                row.sellerOrderId === null &&
                row.leaseExpiresAt !== null &&
                post !== undefined &&
                Date.parse(post.orderDate) < row.leaseExpiresAt
              );
            })
            .map((row) => row.id),
        ),
      );
      console.info(
        `order-crashes on ${store}: ${interrupted.size} placements interrupted after the seller took them`,
      );
      expect(interrupted.size, `no kill interrupted a placement: ${why}`).toBeGreaterThan(0);
      for (const id of interrupted) {
        const trace = traces.get(id) ?? [];
        expect(
          trace.slice(trace.indexOf('POST 201'), trace.indexOf('POST 201') + 2),
          `${id}: ${why}`,
        ).toEqual(['POST 201', 'LOOKUP found']);
      }
    }, 90_000);
  },
);
