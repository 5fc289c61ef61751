import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, startGatewayProcess } from '../helpers/gateway-process.js';
import { createTestDatabase, startThrowawayPostgres, type TestPostgres } from '../helpers/postgres-server.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';
import { graphqlSseSubscriber } from '../helpers/sse-subscriber.js';
import { graphqlWsSubscriber, type Update, type UpdatesSubscriber } from '../helpers/updates-subscriber.js';
import { waitFor } from '../helpers/wait.js';
import { type MercureEvent, type MercureSubscriber, mercureEventSource } from './request-updates.js';

/*
 * Issue 34, "nothing lost": events are written with the change they report and relayed after commit, so no
 * fault between a commit and its publish loses one. Gateway processes in the shared mode (Redis) on each
 * store — three SQLite processes on one file, or on one PostgreSQL — as an operator runs them:
 * - `relay`: an API instance that gathers, started first, so it holds the relay's lease;
 * - `worker`: a worker process (it may relay too);
 * - `subscribers`: an API instance that neither gathers nor relays (`EVENT_RELAY=off`), where every subscriber
 *   listens — graphql-ws, GraphQL over SSE and Mercure — so none of them is cut by the faults.
 * Each fault is checked the same way: every subscriber sees every request's states once each, in order
 * (strictly growing progress), ending at completed, and the three transports see the same states.
 *
 * These tests bring their own servers whatever the vitest project, so they run in the `sqlite` project only.
 */

const onlyInSqliteProject = process.env.TEST_DATABASE === 'postgres';

/** Addresses in different areas of the NL demo catalogue (7 sources at 1016XA). */
const postalCodes = ['1016XA', '1017AB', '3011AA', '3511AB', '5611AA', '7101AA'];
const batch = (count: number, offset: number) =>
  Array.from({ length: count }, (_, index) => ({
    address: {
      country_code: 'NL',
      postal_code: postalCodes[index % postalCodes.length],
      house_number: String(offset + index + 1),
    },
  }));

const statusRank = { PENDING: 0, IN_PROGRESS: 1, COMPLETED: 2 } as const;
const mercureStatus = { pending: 'PENDING', in_progress: 'IN_PROGRESS', completed: 'COMPLETED' } as const;

/** A subscriber's states per request, as `STATUS progress` strings, in the order received. */
function statesByRequest(updates: readonly Update[]): Map<string, string[]> {
  const states = new Map<string, string[]>();
  for (const update of updates) {
    const list = states.get(update.id) ?? [];
    list.push(`${update.status} ${update.networksProgressPercentage.toFixed(2)}`);
    states.set(update.id, list);
  }
  return states;
}

/** Mercure events as updates. */
const mercureUpdates = (events: readonly MercureEvent[]): Update[] =>
  events.map((event) => ({
    id: event.id,
    status: mercureStatus[event.status],
    networksProgressPercentage: Number(event.progress),
  }));

/** Whether each of `ids` has come to `COMPLETED` in `updates`. */
const allCompleted = (updates: readonly Update[], ids: readonly string[]) => {
  const completed = new Set(updates.filter((u) => u.status === 'COMPLETED').map((u) => u.id));
  return ids.every((id) => completed.has(id));
};

/** Orders two Redis stream entry ids. */
function compareEntryIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}

describe.skipIf(onlyInSqliteProject).each(['sqlite', 'postgres'] as const)(
  'events after commit, in the shared mode on %s',
  (store) => {
    let postgres: TestPostgres | undefined;
    let redis: TestRedis;
    let folder: string | undefined;
    let databaseUrl: string;
    const processes: GatewayProcess[] = [];
    const closers: (() => unknown)[] = [];
    let env: Record<string, string> & { DATABASE_URL: string };
    let relay: GatewayProcess;
    let worker: GatewayProcess;
    let subscribers: GatewayProcess;
    /** The API instance that gathers from the second fault on. */
    let gathering: GatewayProcess | undefined;
    let credentials: { clientId: string; clientSecret: string };
    let token: string;
    let watchers: { ws: UpdatesSubscriber; sse: UpdatesSubscriber; mercure: MercureSubscriber };
    let sseJwt: string;
    let instanceId: string;

    /** The relay lease's holder (its process id) and the events waiting in the outbox. */
    let outbox: () => Promise<{ holderPid: number | null; waiting: number }>;

    const start = async (own: Record<string, string>, role: 'api' | 'worker' = 'api') => {
      const process = await startGatewayProcess({ role, env: { ...env, ...own }, readyTimeoutMs: 60_000 });
      processes.push(process);
      return process;
    };

    const signIn = async (base: string) => {
      const response = await fetch(`${base}/authentication`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: credentials.clientId, client_secret: credentials.clientSecret }),
      });
      return (await response.json()).data.auth_token as string;
    };

    const create = async (base: string, count: number, offset: number): Promise<string[]> => {
      const response = await fetch(`${base}/availability-requests`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-token': token },
        body: JSON.stringify(batch(count, offset)),
      });
      expect(response.status).toBe(201);
      const body = await response.json();
      return (body.data as { id: string }[]).map((record) => record.id);
    };

    const everyoneSawCompletion = (ids: readonly string[]) =>
      waitFor(
        () =>
          Promise.resolve(
            allCompleted(watchers.ws.updates, ids) &&
              allCompleted(watchers.sse.updates, ids) &&
              allCompleted(mercureUpdates(watchers.mercure.events), ids),
          ),
        Boolean,
        120_000,
      );

    /** The assertions every fault ends with, for the requests `ids`. */
    const expectEveryStateOnceInOrder = (ids: readonly string[]) => {
      const seen = {
        ws: statesByRequest(watchers.ws.updates),
        sse: statesByRequest(watchers.sse.updates),
        mercure: statesByRequest(mercureUpdates(watchers.mercure.events)),
      };
      for (const id of ids) {
        const states = seen.ws.get(id) ?? [];
        // Created (pending, 0 %) first, completed (100 %) last, progress strictly growing in between.
        expect(states[0]).toBe('PENDING 0.00');
        expect(states.at(-1)).toBe('COMPLETED 100.00');
        const keys = states.map((state) => {
          const [status, progress] = state.split(' ') as [keyof typeof statusRank, string];
          return statusRank[status] * 1000 + Number(progress);
        });
        for (let index = 1; index < keys.length; index += 1)
          expect(keys[index] as number).toBeGreaterThan(keys[index - 1] as number);
        expect(seen.sse.get(id)).toEqual(states);
        expect(seen.mercure.get(id)).toEqual(states);
      }
      const eventIds = watchers.mercure.events.map((event) => event.eventId.split(':').at(-1) ?? '');
      for (let index = 1; index < eventIds.length; index += 1)
        expect(compareEntryIds(eventIds[index] as string, eventIds[index - 1] as string)).toBeGreaterThan(0);
    };

    /**
     * Freezes `process` (the relay), waits until events pile up in the outbox behind it, then kills it. A
     * process frozen inside a SQLite write (or holding the tasks left) lets no other commit an event: then it
     * is thawed for a moment and frozen again, up to five times. It is killed whatever happens, so that a
     * failure here leaves no frozen process holding the database for the tests after it.
     */
    const killRelayWithBacklog = async (process: GatewayProcess) => {
      expect((await outbox()).holderPid).toBe(process.pid);
      try {
        let waiting = 0;
        for (let attempt = 1; waiting === 0 && attempt <= 5; attempt += 1) {
          globalThis.process.kill(process.pid, 'SIGSTOP');
          // Another process gathers on, and its events wait: the frozen relay's lease has not expired yet.
          waiting = (await waitFor(outbox, (state) => state.waiting > 0, 1_500).catch(() => ({ waiting: 0 })))
            .waiting;
          if (waiting === 0 && attempt < 5) {
            globalThis.process.kill(process.pid, 'SIGCONT');
            await new Promise((resolve) => setTimeout(resolve, 300));
          }
        }
        expect(waiting).toBeGreaterThan(0);
      } finally {
        await process.kill('SIGKILL');
      }
    };

    beforeAll(async () => {
      redis = await startTestRedis();
      if (store === 'postgres') {
        postgres = await startThrowawayPostgres();
        databaseUrl = (await createTestDatabase(postgres.adminUrl)).url;
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        closers.push(() => client.end());
        outbox = async () => {
          const lease = await client.query<{ owner: string }>('select owner from relay_leases');
          const count = await client.query<{ n: number }>('select count(*)::int as n from outbox_events');
          return { holderPid: pidOf(lease.rows[0]?.owner), waiting: count.rows[0]?.n ?? 0 };
        };
      } else {
        folder = mkdtempSync(join(tmpdir(), 'gateway-outbox-'));
        databaseUrl = join(folder, 'gateway.db');
      }
      env = {
        DATABASE_URL: databaseUrl,
        REDIS_URL: redis.url,
        DATABASE_POOL_SIZE: '4',
        EVENT_RELAY_LEASE_SECONDS: '2',
        EVENT_RELAY_POLL_MS: '200',
        GATHERING_LEASE_SECONDS: '3',
        GATHERING_IDLE_POLL_MS: '200',
        GATHERING_CONCURRENCY: '2',
        SOURCE_LATENCY_SCALE: '0.3',
      };
      relay = await start({ SEED_DEMO: 'true' });
      const printed = await waitFor(
        () => /client_id: +(\S+)\n +client_secret: +(\S+)\n/.exec(relay.output()),
        (match) => match !== null,
        15_000,
      );
      credentials = { clientId: printed?.[1] ?? '', clientSecret: printed?.[2] ?? '' };
      if (store === 'sqlite') {
        // Read-only, beside the processes (WAL lets it read while they write).
        const file = new Database(databaseUrl, { readonly: true, fileMustExist: true });
        closers.push(() => file.close());
        const lease = file.prepare('select owner from relay_leases');
        const count = file.prepare('select count(*) as n from outbox_events');
        outbox = async () => ({
          holderPid: pidOf((lease.get() as { owner: string } | undefined)?.owner),
          waiting: (count.get() as { n: number }).n,
        });
      }
      worker = await start({}, 'worker');
      subscribers = await start({ GATHERING_WORKER: 'off', EVENT_RELAY: 'off' });
      token = await signIn(subscribers.url);
      const list = await fetch(`${subscribers.url}/availability-requests?page_size=1`, {
        headers: { 'x-auth-token': token },
      });
      sseJwt = (await list.json()).sse_jwt;
      const claims = JSON.parse(Buffer.from(sseJwt.split('.')[1] ?? '', 'base64url').toString());
      instanceId = String(claims.mercure.subscribe[0]).replace(/\/availability_request$/, '');
      watchers = {
        ws: graphqlWsSubscriber(subscribers.url, token),
        sse: graphqlSseSubscriber(subscribers.url, token),
        mercure: mercureEventSource(subscribers.url, instanceId, sseJwt),
      };
      closers.push(
        () => watchers.ws.close(),
        () => watchers.sse.close(),
        () => watchers.mercure.close(),
      );
      await waitFor(
        () =>
          Promise.resolve(watchers.ws.connected() && watchers.sse.connected() && watchers.mercure.isOpen()),
        Boolean,
      );
    }, 240_000);

    afterAll(async () => {
      for (const close of closers) await close();
      await Promise.all(processes.map((process) => process.stop(2_000)));
      await redis?.stop();
      await postgres?.stop();
      if (folder) rmSync(folder, { recursive: true, force: true });
    }, 60_000);

    it('when the relaying process is killed after its commits and before their publish, then every subscriber still gets every state once, in order, and a Mercure client reconnecting with Last-Event-ID gets exactly what it missed', async () => {
      const leaving = mercureEventSource(subscribers.url, instanceId, sseJwt);
      await waitFor(() => Promise.resolve(leaving.isOpen()), Boolean);
      await waitFor(outbox, (state) => state.holderPid === relay.pid);
      const ids = await create(relay.url, 12, 0);
      await waitFor(
        () => Promise.resolve(watchers.ws.updates.filter((u) => u.status === 'IN_PROGRESS').length),
        (count) => count >= 3,
        60_000,
      );
      leaving.close();
      const lastSeen = leaving.events.at(-1)?.eventId ?? 'earliest';

      await killRelayWithBacklog(relay);
      await everyoneSawCompletion(ids);

      expectEveryStateOnceInOrder(ids);
      // The worker took the lease over and relayed the backlog; the outbox is empty again.
      expect(await waitFor(outbox, (state) => state.waiting === 0)).toEqual({
        holderPid: worker.pid,
        waiting: 0,
      });
      const back = mercureEventSource(subscribers.url, instanceId, sseJwt, lastSeen);
      closers.push(() => back.close());
      await waitFor(() => Promise.resolve(allCompleted(mercureUpdates(back.events), ids)), Boolean);
      const mine = (events: readonly MercureEvent[]) => events.filter((event) => ids.includes(event.id));
      expect(mine([...leaving.events, ...back.events])).toEqual(mine(watchers.mercure.events));
    }, 120_000);

    it('when the relay is killed while a backlog is pending, then the next relay publishes the backlog in order and every subscriber gets every state once', async () => {
      gathering = await start({ GATHERING_CONCURRENCY: '4' });
      const ids = await create(gathering.url, 12, 100);
      await waitFor(
        () =>
          Promise.resolve(
            watchers.ws.updates.filter((u) => ids.includes(u.id) && u.status === 'IN_PROGRESS').length,
          ),
        (count) => count >= 3,
        60_000,
      );

      await killRelayWithBacklog(worker);
      await everyoneSawCompletion(ids);

      expectEveryStateOnceInOrder(ids);
      expect(await waitFor(outbox, (state) => state.waiting === 0)).toEqual({
        holderPid: gathering.pid,
        waiting: 0,
      });
    }, 120_000);

    it('when Redis is killed and started again while 100 requests gather, then every subscriber on the other instance sees all 100 completions, each state once and in order', async () => {
      // The process that gathers and relays since the faults before (or, run alone, the first one).
      gathering ??= relay;
      const ids = [...(await create(gathering.url, 50, 200)), ...(await create(gathering.url, 50, 250))];
      await waitFor(
        () =>
          Promise.resolve(
            watchers.ws.updates.filter((u) => ids.includes(u.id) && u.status !== 'PENDING').length,
          ),
        (count) => count >= 10,
        60_000,
      );
      // Killed while they gather: some are not completed yet.
      const list = await fetch(`${subscribers.url}/availability-requests?page_size=100`, {
        headers: { 'x-auth-token': token },
      });
      const completed = ((await list.json()).data as { id: string; status: string }[]).filter(
        (record) => ids.includes(record.id) && record.status === 'completed',
      );
      expect(completed.length).toBeLessThan(ids.length);
      const { port } = redis;
      await redis.stop();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      redis = await startTestRedis({ port });

      await everyoneSawCompletion(ids);

      expectEveryStateOnceInOrder(ids);
      expect(watchers.ws.connected() && watchers.sse.connected() && watchers.mercure.isOpen()).toBe(true);
    }, 240_000);
  },
);

/** The process id in a relay lease's owner (`<host>:<pid>:<uuid>`). */
function pidOf(owner: string | undefined): number | null {
  const pid = owner?.split(':')[1];
  return pid === undefined ? null : Number(pid);
}
