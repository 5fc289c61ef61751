import { EventSource } from 'eventsource';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../helpers/gateway-process.js';
import { waitFor } from '../helpers/wait.js';
import {
  ClusterHarness,
  graphqlWsSubscriber,
  metric,
  type ScaleOutCluster,
  type Update,
  upstreamOf,
} from './cluster.js';

/*
 * Issue 17, item 9: three gateway processes — each an API with its gathering worker — on one PostgreSQL and
 * one Redis, behind Debian's nginx with the repository's configuration. One of them is killed with SIGKILL
 * while gathering runs: its leases expire (GATHERING_LEASE_SECONDS=2) and the survivors take its tasks over.
 * The same three processes first show the per-token rate limit holding in total across them.
 *
 * Catalogue sources answer in 0.2 × their declared latency (40–500 ms): well inside an attempt's time
 * (0.8 × the lease, 1.6 s), long enough for gathering to be under way when the kill comes. Each worker runs
 * three tasks at a time and looks at the queue every 200 ms when idle, so expired leases are found soon.
 *
 * These tests bring their own PostgreSQL cluster whatever the vitest project, so they run in the `sqlite`
 * project only.
 */

/** One Mercure event as an EventSource client received it: its id and the list record's fields. */
interface MercureEvent {
  eventId: string;
  id: string;
  status: string;
  progress: string;
}

type Product = {
  network: string;
  technology_type: string;
  connection_type: string;
  bandwidth: object;
  contract_term: number;
  mrc: number;
};

/** Six addresses in different areas of the NL demo catalogue: one request each, their sources in parallel. */
const addresses = ['1016XA', '1017AB', '3011AA', '3511AB', '5611AA', '7101AA'].map((postalCode, index) => ({
  address: { country_code: 'NL', postal_code: postalCode, house_number: String(index + 1) },
}));

const productKey = (p: Product) =>
  JSON.stringify([p.network, p.technology_type, p.connection_type, p.bandwidth, p.contract_term, p.mrc]);

/** Requests one auth token may make; the window (an hour) outlasts the file, so counts are exact. */
const TOKEN_LIMIT = 100;

const onlyInSqliteProject = process.env.TEST_DATABASE === 'postgres';

describe.skipIf(onlyInSqliteProject)('scale-out: three gateway processes behind nginx, one killed', () => {
  const harness = new ClusterHarness();
  let cluster: ScaleOutCluster;
  let token: string;
  const opened: { close(): unknown }[] = [];

  beforeAll(async () => {
    cluster = await harness.start({
      instances: [{}, {}, {}],
      env: {
        SOURCE_LATENCY_SCALE: '0.2',
        GATHERING_CONCURRENCY: '3',
        GATHERING_LEASE_SECONDS: '2',
        GATHERING_IDLE_POLL_MS: '200',
        RATE_LIMIT_PER_TOKEN: String(TOKEN_LIMIT),
        RATE_LIMIT_WINDOW_SECONDS: '3600',
        RATE_LIMIT_PER_INSTANCE: '1000000',
      },
    });
    token = await cluster.signIn();
  }, 120_000);

  afterAll(async () => {
    for (const client of opened) await client.close();
    await harness.stop();
  });

  const nginxUrl = () => cluster.nginx.url;
  /** nginx's access log lines for `method path`, from index `from` on. */
  const logged = (method: string, path: string, from = 0) =>
    cluster.nginx
      .accessLog()
      .slice(from)
      .filter((line) => line.method === method && line.path === path);

  it('when one token sends more requests than its limit through nginx to three instances, then exactly the limit is served in total and the rest get 429', async () => {
    const limited = await cluster.signIn();
    const from = cluster.nginx.accessLog().length;
    const total = TOKEN_LIMIT + 50;
    const statuses: number[] = [];
    const remaining: string[] = [];
    let next = 0;
    // Six clients at once, each sending its next request when the last one is answered.
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < total) {
          next += 1;
          const response = await fetch(`${nginxUrl()}/availability-requests?page_size=1`, {
            headers: { 'x-auth-token': limited },
          });
          await response.arrayBuffer();
          statuses.push(response.status);
          if (response.status === 429) remaining.push(response.headers.get('ratelimit-remaining') ?? '');
        }
      }),
    );

    expect(statuses).toHaveLength(total);
    expect(statuses.filter((status) => status === 200)).toHaveLength(TOKEN_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(total - TOKEN_LIMIT);
    expect(remaining).toEqual(Array(total - TOKEN_LIMIT).fill('0'));
    // Every instance granted some of them: held per instance, the limit would have let all 150 through.
    const lines = await waitFor(
      () => logged('GET', '/availability-requests', from),
      (found) => found.length === total,
    );
    const servedBy = (status: number) =>
      [...new Set(lines.filter((line) => line.status === status).map((line) => line.upstream))].sort();
    const all = cluster.instances.map(upstreamOf).sort();
    expect(servedBy(200)).toEqual(all);
    // The counters were Redis's all along: no check fell back to the in-memory insurance limiter.
    for (const instance of cluster.instances)
      expect(await metric(instance, 'rate_limit_store_failures_total')).toBe(0);
  });

  it('when an instance is killed with SIGKILL during gathering, then every request completes with no duplicate product, the survivors’ subscribers see every completion once, and a Mercure client of the dead instance reconnecting through nginx with Last-Event-ID gets exactly what it missed', async () => {
    const db = new pg.Client({ connectionString: cluster.databaseUrl });
    await db.connect();
    opened.push({ close: () => db.end() });

    // A Mercure client through nginx: the instance it lands on is the one killed.
    const sseJwt = (await getJson(`/availability-requests?page_size=1`)).sse_jwt as string;
    const beforeKill = mercureSubscriber(nginxUrl(), sseJwt);
    await waitFor(beforeKill.isOpen, Boolean);
    const streams = await Promise.all(
      cluster.instances.map((instance) => metric(instance, 'event_stream_connections')),
    );
    expect([...streams].sort()).toEqual([0, 0, 1]);
    const victim = cluster.instances[streams.indexOf(1)] as GatewayProcess;
    const survivors = cluster.instances.filter((instance) => instance !== victim);
    const [first, second] = survivors as [GatewayProcess, GatewayProcess];

    // graphql-ws through nginx, one after the other: least_conn sends each to a survivor without one (the
    // victim carries the Mercure stream). Then one directly on each survivor, and a Mercure client on the
    // first survivor that stays connected throughout.
    const sockets = [subscribe(nginxUrl())];
    await waitFor(() => sockets[0]?.connected(), Boolean);
    sockets.push(subscribe(nginxUrl()));
    await waitFor(() => sockets[1]?.connected(), Boolean);
    sockets.push(subscribe(first.url), subscribe(second.url));
    await waitFor(() => sockets.every((socket) => socket.connected()), Boolean);
    const staying = mercureSubscriber(first.url, sseJwt);
    await waitFor(staying.isOpen, Boolean);
    const subscriptionsOn = (instance: GatewayProcess) =>
      metric(instance, 'graphql_operations_total', 'operation_type="subscription"');
    expect(await Promise.all([victim, first, second].map(subscriptionsOn))).toEqual([0, 2, 2]);
    // On the bus (one shared execution per instance for identical subscriptions, one listener per Mercure
    // instance stream): every subscriber hears every event from here on.
    await waitFor(
      () => Promise.all([victim, first, second].map((p) => metric(p, 'open_subscriptions'))),
      (counts) => JSON.stringify(counts) === JSON.stringify([1, 2, 1]),
    );

    const created = await fetch(`${nginxUrl()}/availability-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': token },
      body: JSON.stringify(addresses),
    });
    expect(created.status).toBe(201);
    const ids: string[] = (await created.json()).data.map((entry: { id: string }) => entry.id);
    const { rows: taskRows } = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM gathering_tasks WHERE availability_request_id = ANY($1)',
      [ids],
    );
    const taskCount = taskRows[0]?.n ?? 0;

    // Killed while gathering runs: some tasks done, and every worker holding leases right now.
    const leases = async () => {
      const { rows } = await db.query<{ id: string; status: string; lease_owner: string | null }>(
        'SELECT id::text, status, lease_owner FROM gathering_tasks WHERE availability_request_id = ANY($1)',
        [ids],
      );
      return rows;
    };
    await waitFor(leases, (rows) => {
      const owners = new Set(
        rows.filter((row) => row.status === 'running').map((row) => workerOf(row.lease_owner)),
      );
      return owners.size === 3 && rows.some((row) => row.status === 'succeeded');
    });
    await waitFor(
      () => beforeKill.events.length,
      (count) => count > ids.length,
    );
    await victim.kill('SIGKILL');
    const atDeath = (await leases()).filter((row) => row.status === 'running');
    // The control batch: the same addresses, gathered by the survivors alone, with no interruption.
    const control = await fetch(`${nginxUrl()}/availability-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': token },
      body: JSON.stringify(addresses),
    });
    expect(control.status).toBe(201);
    const controlIds: string[] = (await control.json()).data.map((entry: { id: string }) => entry.id);
    // Its stream breaks; nginx logs it, as served by the victim.
    await waitFor(beforeKill.dropped, Boolean);
    beforeKill.close();
    const lastSeen = beforeKill.events.at(-1)?.eventId ?? '';

    // Reconnects through nginx once the survivors have published events it missed, with Last-Event-ID.
    await waitFor(
      () => staying.events.findIndex((event) => event.eventId === lastSeen),
      (index) => index >= 0 && index < staying.events.length - 1,
    );
    const reconnected = mercureSubscriber(nginxUrl(), sseJwt, lastSeen);
    await waitFor(reconnected.isOpen, Boolean);
    expect(reconnected.precedingId()).toBe(lastSeen);

    const completedAll = (updates: { id: string; status: string }[]) =>
      [...ids, ...controlIds].every((id) =>
        updates.some((u) => u.id === id && u.status.toUpperCase() === 'COMPLETED'),
      );
    await waitFor(
      () => [...sockets.map((s) => s.updates), staying.events, reconnected.events],
      (all) => all.every(completedAll),
      30_000,
    );

    // The Mercure client lost nothing and got nothing twice: what it saw before the kill and after its
    // reconnection, together, is what the client that stayed on a survivor saw, event for event.
    expect(beforeKill.events.length).toBeGreaterThan(0);
    expect(reconnected.events.length).toBeGreaterThan(0);
    expect([...beforeKill.events, ...reconnected.events]).toEqual(staying.events);
    expect(new Set(staying.events.map((event) => event.eventId)).size).toBe(staying.events.length);
    reconnected.close();
    staying.close();
    const mercureLines = await waitFor(
      () => logged('GET', '/.well-known/mercure'),
      (lines) => lines.length === 2,
    );
    // The first stream was the victim's; the reconnection went to a survivor (after the victim's refused
    // connection, when nginx tried it first).
    expect(mercureLines[0]).toMatchObject({ status: 200, upstream: upstreamOf(victim) });
    expect(mercureLines[1]?.status).toBe(200);
    expect(survivors.map(upstreamOf)).toContain(mercureLines[1]?.upstream.split(', ').at(-1));

    // Every subscriber on a survivor — through nginx and directly — got the same updates: each request's
    // progress never going back, its completion exactly once.
    const ofBatch = (updates: Update[]) => updates.filter((update) => ids.includes(update.id));
    const [reference, ...others] = sockets.map((socket) => ofBatch(socket.updates));
    for (const updates of others) expect(updates).toEqual(reference);
    for (const id of ids) {
      const states = (reference ?? []).filter((update) => update.id === id);
      expect(states.filter((update) => update.status === 'COMPLETED')).toEqual([
        { id, status: 'COMPLETED', networksProgressPercentage: 100 },
      ]);
      expect(states.at(-1)?.status).toBe('COMPLETED');
      const progress = states.map((update) => update.networksProgressPercentage);
      expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    }
    // … and the Mercure stream carried the very same changes, in the same order.
    expect(
      staying.events
        .filter((event) => ids.includes(event.id))
        .map(({ id, status, progress }) => ({ id, status, progress })),
    ).toEqual(
      (reference ?? []).map(({ id, status, networksProgressPercentage }) => ({
        id,
        status: status.toLowerCase(),
        progress: networksProgressPercentage.toFixed(2),
      })),
    );

    // Every task succeeded; those run twice (their lease expired and was taken over, which costs no attempt)
    // are exactly the ones the killed worker held when it died, and the control batch ran each once.
    const tasksOf = async (of: string[]) =>
      (
        await db.query<{ id: string; status: string; attempts: number; lease_expiries: number }>(
          'SELECT id::text, status, attempts, lease_expiries FROM gathering_tasks WHERE availability_request_id = ANY($1)',
          [of],
        )
      ).rows;
    const tasks = await tasksOf(ids);
    expect(tasks).toHaveLength(taskCount);
    expect((await tasksOf(controlIds)).map(({ status, attempts }) => [status, attempts])).toEqual(
      tasks.map(() => ['succeeded', 1]),
    );
    expect(tasks.filter((task) => task.status !== 'succeeded' || task.attempts !== 1)).toEqual([]);
    const rerun = tasks
      .filter((task) => task.lease_expiries > 0)
      .map((task) => task.id)
      .sort();
    expect(rerun.length).toBeGreaterThan(0);
    const heldBy = new Map<string | null, string[]>();
    for (const row of atDeath) {
      const worker = workerOf(row.lease_owner);
      heldBy.set(worker, [...(heldBy.get(worker) ?? []), row.id]);
    }
    expect([...heldBy.values()].map((held) => held.sort())).toContainEqual(rerun);
    expect(tasks.filter((task) => task.lease_expiries > 1)).toEqual([]);

    // No product twice: each request has exactly the products an uninterrupted request of its address gets.
    const records = await Promise.all(ids.map((id) => getJson(`/availability-requests/${id}`)));
    const controls = await Promise.all(controlIds.map((id) => getJson(`/availability-requests/${id}`)));
    for (const [index, { data: record }] of records.entries()) {
      expect([record.status, record.networks_progress_percentage]).toEqual(['completed', '100.00']);
      const keys = (record.products as Product[]).map(productKey);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.sort()).toEqual((controls[index].data.products as Product[]).map(productKey).sort());
      const sources = record.sources as { status: string; product_count: number }[];
      expect(sources.map((source) => source.status)).toEqual(sources.map(() => 'succeeded'));
      expect(keys).toHaveLength(sources.reduce((sum, source) => sum + source.product_count, 0));
    }
    expect(records.reduce((sum, { data }) => sum + data.sources.length, 0)).toBe(taskCount);
  }, 90_000);

  async function getJson(path: string) {
    const response = await fetch(`${nginxUrl()}${path}`, { headers: { 'x-auth-token': token } });
    expect(response.status).toBe(200);
    return response.json();
  }

  /** A graphql-ws subscriber at `base`, closed after the file. */
  function subscribe(base: string) {
    const subscriber = graphqlWsSubscriber(base, token);
    opened.push(subscriber);
    return subscriber;
  }

  /**
   * An EventSource at `base` on the instance's Mercure topic, authorised by the `sse_jwt`, sending
   * `Last-Event-ID` when given one. It does not reconnect by itself: the test reconnects it, when it has
   * something to have missed.
   */
  function mercureSubscriber(base: string, sseJwt: string, lastEventId?: string) {
    const url = new URL(`${base}/.well-known/mercure`);
    url.searchParams.append('topic', `${cluster.demo.instanceId}/availability_request`);
    const events: MercureEvent[] = [];
    let open = false;
    let dropped = false;
    let preceding: string | null = null;
    const source = new EventSource(url, {
      fetch: async (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${sseJwt}`);
        if (lastEventId !== undefined) headers.set('last-event-id', lastEventId);
        const response = await fetch(input, { ...init, headers });
        preceding = response.headers.get('last-event-id');
        return response;
      },
    });
    source.addEventListener('open', () => {
      open = true;
    });
    source.addEventListener('error', () => {
      if (open) {
        dropped = true;
        source.close();
      }
    });
    source.addEventListener('message', (event) => {
      const record = JSON.parse(event.data);
      events.push({
        eventId: event.lastEventId,
        id: record.id,
        status: record.status,
        progress: record.networks_progress_percentage,
      });
    });
    const subscriber = {
      events,
      isOpen: () => open,
      dropped: () => dropped,
      precedingId: () => preceding,
      close: () => source.close(),
    };
    opened.push(subscriber);
    return subscriber;
  }
});

/** The worker of a task's lease owner (`<worker>:<claim number>`: each claim holds its leases as its own). */
function workerOf(owner: string | null): string | null {
  return owner === null ? null : owner.slice(0, owner.lastIndexOf(':'));
}
