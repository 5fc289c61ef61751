import { startTestRedis } from '../../test/helpers/redis-server.js';
import { type FanoutResult, type FanoutTarget, measureFanout } from '../lib/fanout-round.js';
import { benchAddress, requestJson, signIn, startGateway } from '../lib/gateway-session.js';
import { type ServerProcess, startServer } from '../lib/process.js';
import { copyDataset } from '../lib/seed.js';
import type { BenchContext, DatasetInstance, Measurement, Scenario } from '../lib/types.js';

/*
 * Subscription fan-out (issue 8): N subscribers of one instance's availability-request changes, one event
 * every 100 ms, publish→receive latency per subscriber and event. The gateway's events are real: each is
 * a `POST /availability-requests` of one address in the seeded `FANOUT` instance, which has no sources, so
 * every request is created `completed` and yields exactly one event. Its publish time is taken just
 * before the POST, so the gateway's latency includes creating the request (see `extra.publishP50Ms`).
 * The baseline is `bench/baselines/raw-ws.ts`: one pre-serialised message of similar size per event,
 * written to every socket.
 */

/** The subscription, with the fields of one REST list record. */
export const fanoutSubscription = `subscription BenchFanout {
  availabilityRequestUpdated {
    id status networksProgressPercentage createdAt updatedAt
    address { id street city continentCode countryCode postalCode houseNumber houseNumberAddition
      coordinates { latitude longitude } }
    filters { contractTerms connectionTypes bandwidths { download upload } technologyTypes networks }
  }
}`;

/**
 * Receiving threads for `subscribers`: one per 2,500 (at most 2, the machine's cores). Receiving in the
 * main thread would delay the publisher's timer, so it always runs in workers. Measured here at 5,000
 * subscribers × 10 events/s against raw-ws: one worker was 84–94 % busy (event-loop utilisation, ~19 µs
 * per message) and its queueing showed in p50/p99; two workers were ~50 % busy each, with lower p50/p99,
 * although they compete with the server for the two cores. At 1,000 subscribers one worker suffices.
 */
export function receiveThreads(subscribers: number): number {
  return Math.min(2, Math.max(1, Math.ceil(subscribers / 2500)));
}

type Transport = 'graphql-ws' | 'sse';

/**
 * Three baseline/gateway pairs in a full run: a p99 over 250,000 deliveries turns on a few pauses, and with
 * two pairs one slow round set the median (gateway p99 110–168 ms between rounds of one run, raw ws 76–158).
 */
const rounds = ['baseline', 'gateway', 'baseline', 'gateway', 'baseline', 'gateway'] as const;

/** A sample event like the gateway's, so the baseline writes messages of the same size. */
function sampleEvent(transport: Transport, sequence: number) {
  const id = `evt_${String(sequence + 1000).padStart(26, '0')}`;
  const at = '2026-11-22T13:00:13+00:00';
  const coordinates = { latitude: 52.37403, longitude: 4.88969 };
  if (transport === 'sse') {
    return {
      id,
      address: {
        id: 'adr_01m81nfhn4fk6rdez47cn45h03',
        street: 'Lijnbaansgracht',
        city: 'Amsterdam',
        continent_code: 'EU',
        country_code: 'NL',
        postal_code: '1016XA',
        house_number: '206',
        house_number_addition: '',
        coordinates,
        _document_type: 'address',
      },
      created_at: at,
      updated_at: at,
      filters: {
        contract_terms: [],
        connection_types: [],
        bandwidths: [],
        technology_types: [],
        networks: [],
      },
      networks_progress_percentage: '100.00',
      status: 'completed',
      _document_type: 'availability_request',
    };
  }
  return {
    id,
    status: 'COMPLETED',
    networksProgressPercentage: 100,
    createdAt: at,
    updatedAt: at,
    address: {
      id: 'adr_01m81nfhn4fk6rdez47cn45h03',
      street: 'Lijnbaansgracht',
      city: 'Amsterdam',
      continentCode: 'EU',
      countryCode: 'NL',
      postalCode: '1016XA',
      houseNumber: '206',
      houseNumberAddition: '',
      coordinates,
    },
    filters: { contractTerms: [], connectionTypes: [], bandwidths: [], technologyTypes: [], networks: [] },
  };
}

/** The raw-ws baseline as a fan-out target. */
function rawTarget(server: ServerProcess, transport: Transport): FanoutTarget {
  return {
    server,
    subscriber:
      transport === 'sse'
        ? { transport, url: `${server.url}/sse` }
        : {
            transport,
            url: `${server.url.replace('http', 'ws')}/graphql`,
            query: fanoutSubscription,
            subscriptionId: 'bench',
          },
    publish: async (sequence) => {
      const event = sampleEvent(transport, sequence);
      await requestJson(`${server.url}/publish`, { body: event });
      return event.id;
    },
  };
}

/** The gateway as a fan-out target: signs in to the instance and, for SSE, fetches the `sse_jwt`. */
async function gatewayTarget(
  server: ServerProcess,
  transport: Transport,
  instance: DatasetInstance,
): Promise<FanoutTarget> {
  const token = await signIn(server.url, instance.clientId, instance.clientSecret);
  let subscriber: FanoutTarget['subscriber'];
  if (transport === 'sse') {
    const list = await requestJson(`${server.url}/availability-requests?page_size=1`, { token });
    const query = new URLSearchParams({
      topic: `${instance.id}/availability_request`,
      authorization: list.body.sse_jwt as string,
    });
    subscriber = { transport, url: `${server.url}/.well-known/mercure?${query}` };
  } else {
    subscriber = {
      transport,
      url: `${server.url.replace('http', 'ws')}/graphql`,
      query: fanoutSubscription,
      authToken: token,
    };
  }
  return {
    server,
    subscriber,
    publish: async (sequence) => {
      const created = await requestJson(`${server.url}/availability-requests`, {
        token,
        body: [{ address: benchAddress(Math.abs(sequence)) }],
        expect: 201,
      });
      return created.body.data[0].id as string;
    },
  };
}

function measurement(
  scenario: string,
  role: Measurement['role'],
  label: string,
  round: number,
  result: FanoutResult,
): Measurement {
  const { errors } = result;
  const rssPerSubscriberKiB =
    result.rssBeforeMiB === null || result.rssConnectedMiB === null || result.ready === 0
      ? null
      : ((result.rssConnectedMiB - result.rssBeforeMiB) * 1024) / result.ready;
  const extra: Record<string, number> = {
    subscribers: result.ready,
    delivered: result.delivered,
    lostMessages: errors.lost,
    connectionErrors: errors.connections,
    duplicates: errors.duplicates,
    openSeconds: Math.round(result.openMs) / 1000,
  };
  if (rssPerSubscriberKiB !== null) extra.rssPerSubscriberKiB = Math.round(rssPerSubscriberKiB * 10) / 10;
  if (result.rssBeforeMiB !== null) extra.rssBeforeMiB = Math.round(result.rssBeforeMiB);
  if (result.rssConnectedMiB !== null) extra.rssConnectedMiB = Math.round(result.rssConnectedMiB);
  if (result.publishP50Ms !== null) extra.publishP50Ms = Math.round(result.publishP50Ms * 100) / 100;
  return {
    scenario,
    role,
    label,
    round,
    throughput: Math.round(result.throughput),
    throughputUnit: 'msg/s',
    p50Ms: result.latency.percentileMs(50),
    p99Ms: result.latency.percentileMs(99),
    peakRssMiB: result.peakRssMiB === null ? null : Math.round(result.peakRssMiB),
    errors: errors.lost + errors.connections + errors.publishes + errors.duplicates,
    extra,
  };
}

/**
 * The gateway of one fan-out round and how to stop it: one process (`single`), or (`redis`, issue 17) three
 * instances sharing the dataset copy and a Redis of the round's own — subscribers spread over the first two,
 * events created on the third, so every event crosses Redis. RSS figures are the first instance's.
 */
async function startFanoutGateway(
  databasePath: string,
  topology: 'single' | 'redis',
  transport: Transport,
  instance: DatasetInstance,
): Promise<{ target: FanoutTarget; stop(): Promise<void> }> {
  if (topology === 'single') {
    const server = await startGateway(databasePath);
    try {
      return { target: await gatewayTarget(server, transport, instance), stop: () => server.stop() };
    } catch (error) {
      await server.stop();
      throw error;
    }
  }
  const redis = await startTestRedis();
  const servers: ServerProcess[] = [];
  const stop = async () => {
    for (const server of servers) await server.stop();
    await redis.stop();
  };
  try {
    for (let index = 0; index < 3; index += 1)
      servers.push(await startGateway(databasePath, { REDIS_URL: redis.url }));
    const [a, b, c] = servers as [ServerProcess, ServerProcess, ServerProcess];
    const subscribing = await gatewayTarget(a, transport, instance);
    const publishing = await gatewayTarget(c, transport, instance);
    const urls = [a, b].map((server) => `${server.url.replace('http', 'ws')}/graphql`);
    return {
      target: {
        ...subscribing,
        subscriber: { ...subscribing.subscriber, urls },
        publish: publishing.publish,
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * One fan-out scenario: raw-ws and gateway alternately (A/B/A/B/A/B; one A/B pair with `--quick`), each
 * round on a fresh process (the gateway on a fresh copy of the dataset), so RSS figures are the round's own.
 * With `topology: 'redis'` the gateway is three instances sharing events through Redis
 * ({@link startFanoutGateway}) and the target is p99 ≤ 2 × the single-process raw broadcast (issue 17).
 */
function fanoutScenario(
  id: string,
  transport: Transport,
  subscribers: (context: BenchContext) => number,
  judgeRss = false,
  topology: 'single' | 'redis' = 'single',
): Scenario {
  const endpoint = transport === 'sse' ? 'Mercure SSE' : 'graphql-ws';
  const rawLabel = transport === 'sse' ? 'raw node:http SSE broadcast' : 'raw ws broadcast';
  const viaRedis = topology === 'redis';
  return {
    id,
    title: viaRedis
      ? `${endpoint} fan-out through Redis: subscribers on 2 instances, events created on a third, one every 100 ms`
      : `${endpoint} fan-out: one event every 100 ms to every subscriber, publish→receive`,
    target: viaRedis
      ? 'p99 ≤ 2 × single-process raw-ws broadcast, no message lost'
      : transport === 'sse'
        ? 'p99 ≤ 2 × raw broadcast, no message lost'
        : judgeRss
          ? 'p99 ≤ 1.5 × raw-ws broadcast, ≤ 15 KB (14.6 KiB) RSS/subscriber, no message lost'
          : 'p99 ≤ 1.5 × raw-ws broadcast, no message lost (RSS/subscriber reported)',
    goals: viaRedis
      ? [
          { metric: 'p99Ratio', atMost: 2 },
          { metric: 'extra:lostMessages', atMost: 0 },
        ]
      : transport === 'sse'
        ? [
            { metric: 'p99Ratio', atMost: 2 },
            { metric: 'extra:lostMessages', atMost: 0 },
          ]
        : [
            { metric: 'p99Ratio', atMost: 1.5 },
            ...(judgeRss ? [{ metric: 'extra:rssPerSubscriberKiB', atMost: 14.6 } as const] : []),
            { metric: 'extra:lostMessages', atMost: 0 },
          ],
    async run(context) {
      const instance = context.dataset.fanout;
      const count = subscribers(context);
      const options = {
        subscribers: count,
        events: context.quick ? 20 : 50,
        intervalMs: 100,
        // Through Redis, one receiving thread per subscribed instance.
        threads: viaRedis ? 2 : receiveThreads(count),
        batchSize: 100,
        drainIdleMs: 5_000,
        log: context.log,
      };
      const measurements: Measurement[] = [];
      const roles = context.quick ? (['baseline', 'gateway'] as const) : rounds;
      for (const [index, role] of roles.entries()) {
        const round = index + 1;
        const label =
          role === 'baseline'
            ? rawLabel
            : viaRedis
              ? `3 gateways + Redis, ${endpoint}`
              : `gateway ${endpoint}`;
        context.log(`${id} round ${round}: ${label}, ${count} subscribers, ${options.events} events`);
        const database = role === 'gateway' ? copyDataset(context.dataset) : null;
        const running = database
          ? await startFanoutGateway(database.path, topology, transport, instance)
          : await startServer({ script: 'bench/baselines/raw-ws.ts', readyPath: '/healthz' }).then(
              (server) => ({
                target: rawTarget(server, transport),
                stop: () => server.stop(),
              }),
            );
        try {
          const result = await measureFanout(running.target, options);
          const row = measurement(id, role, label, round, result);
          context.log(
            `  p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, ${row.throughput} msg/s, errors ${row.errors}, ` +
              `${row.extra.rssPerSubscriberKiB ?? '?'} KiB/subscriber`,
          );
          measurements.push(row);
        } finally {
          await running.stop();
          database?.remove();
        }
      }
      return measurements;
    },
  };
}

/**
 * The fan-out scenarios of issue 8: `ws-fanout-1000`, `ws-fanout-5000` (graphql-ws) and `sse-fanout-1000`
 * (the Mercure endpoint); and of issue 17, `ws-fanout-redis-5000` (three instances sharing events through
 * Redis). In `--quick` mode each runs one A/B pair of 20 events instead of three pairs of 50,
 * and the big one opens 2,000 subscribers instead of 5,000 (opening 5,000 twice alone takes ~10 s).
 *
 * RSS per subscriber is judged where issue 8 sets its target, at 5,000, and only reported at 1,000: there
 * the ~10–15 MiB the heap grows for handshakes' garbage not yet collected is most of the difference, and
 * one round of the same server can measure twice another (8–24 KiB a subscriber; the raw-ws baseline's own
 * figure swings 6–14 KiB).
 */
export function fanoutScenarios(): Scenario[] {
  return [
    fanoutScenario('ws-fanout-1000', 'graphql-ws', () => 1000),
    fanoutScenario('ws-fanout-5000', 'graphql-ws', (context) => (context.quick ? 2000 : 5000), true),
    fanoutScenario('sse-fanout-1000', 'sse', () => 1000),
    fanoutScenario(
      'ws-fanout-redis-5000',
      'graphql-ws',
      (context) => (context.quick ? 2000 : 5000),
      false,
      'redis',
    ),
  ];
}
