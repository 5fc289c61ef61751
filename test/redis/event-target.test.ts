import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEventBus } from '../../src/events.js';
import { createLogger } from '../../src/logger.js';
import { closeRedis, openRedis, reconnectDelayMs } from '../../src/redis/connection.js';
import { compareEntryIds, ENTRY_ID } from '../../src/redis/event-history.js';
import { eventSerializer } from '../../src/redis/event-target.js';
import { openRedisSharedState, type RedisSharedState } from '../../src/redis/shared-state.js';
import { waitFor } from '../helpers/app.js';
import { startTestRedis, type TestRedis } from '../helpers/redis-server.js';

const logger = createLogger('silent');

/** A request record as the store returns it, with the `Date`s an event carries. */
function record(id: string, sourcesFinished: number) {
  return {
    request: {
      id,
      filters: {
        bandwidths: [],
        networks: ['KPN'],
        contractTerms: [12],
        connectionTypes: [],
        technologyTypes: [],
      },
      status: 'in_progress' as const,
      sourcesTotal: 7,
      sourcesFinished,
      createdAt: new Date('2026-11-26T01:02:03.004Z'),
      updatedAt: new Date('2026-11-26T01:02:05.000Z'),
    },
    address: {
      id: 'adr_1',
      street: 'Herengracht',
      city: 'Amsterdam',
      houseNumber: '182',
      houseNumberAddition: '',
      postalCode: '1016BR',
      countryCode: 'NL',
      continentCode: 'EU',
      latitude: 52.37,
      longitude: 4.89,
      coordinatesPrecision: 'city' as const,
    },
  };
}

describe('the event bus through Redis', () => {
  let redis: TestRedis;
  const opened: RedisSharedState[] = [];
  const instance = async (prefix = 'test:') => {
    const state = await openRedisSharedState(redis.url, { prefix, historySize: 100 }, logger);
    opened.push(state);
    return { state, bus: createEventBus(state.events) };
  };

  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    for (const state of opened) await state.close();
    await redis?.stop();
  });

  it('when one instance publishes, then a listener on another receives the same record, Dates as Dates, in order', async () => {
    const publisher = await instance();
    const listener = await instance();
    const received: unknown[] = [];
    const stream = listener.bus.subscribe('availabilityRequest:changed', 'ins_a');
    const reading = (async () => {
      for await (const event of stream) {
        received.push(event);
        if (received.length === 3) break;
      }
    })();
    await waitFor(
      () => Promise.resolve(listener.state.events.listenerCount),
      (count) => count === 1,
    );
    const sent = [1, 2, 3].map((finished) => ({
      instanceId: 'ins_a',
      kind: 'updated' as const,
      record: record('avr_1', finished),
    }));
    publisher.bus.publish('availabilityRequest:changed', 'ins_b', {
      ...sent[0],
      instanceId: 'ins_b',
    } as never);
    for (const event of sent) publisher.bus.publish('availabilityRequest:changed', 'ins_a', event);
    await reading;

    const ids = received.map((event) => (event as { eventId: string }).eventId);
    expect(received).toEqual(sent.map((event, index) => ({ ...event, eventId: ids[index] })));
    expect(ids.every((id) => ENTRY_ID.test(id))).toBe(true);
    expect([...ids].sort(compareEntryIds)).toEqual(ids);
    const first = received[0] as (typeof sent)[0];
    expect(first.record.request.createdAt).toBeInstanceOf(Date);
    expect(first.record.request.createdAt.getTime()).toBe(Date.parse('2026-11-26T01:02:03.004Z'));
    await waitFor(
      () => Promise.resolve(listener.state.events.listenerCount),
      (count) => count === 0,
    );
  });

  it('when two deployments share one Redis under different prefixes, then neither hears the other', async () => {
    const ours = await instance('one:');
    const theirs = await instance('two:');
    const heard: string[] = [];
    const listener = (event: Event) => void heard.push(String((event as CustomEvent).detail));
    ours.state.events.addEventListener('topic', listener);
    theirs.state.events.dispatchEvent(new CustomEvent('topic', { detail: 'theirs' }));
    ours.state.events.dispatchEvent(new CustomEvent('topic', { detail: 'ours' }));
    await waitFor(
      () => Promise.resolve(heard),
      (list) => list.length > 0,
    );
    ours.state.events.removeEventListener('topic', listener);
    expect(heard).toEqual(['ours']);
    expect(ours.state.events.listenerCount).toBe(0);
  });

  it('when a message on the channel is not JSON, then it is dropped and later events still arrive', async () => {
    const target = await instance('bad:');
    const heard: unknown[] = [];
    target.state.events.addEventListener('topic', (event) => void heard.push((event as CustomEvent).detail));
    const raw = openRedis(redis.url, 'commands', logger);
    try {
      await raw.publish('bad:events', '{not json');
      target.state.events.dispatchEvent(new CustomEvent('topic', { detail: { n: 1 } }));
      await waitFor(
        () => Promise.resolve(heard),
        (list) => list.length === 1,
      );
      expect(heard).toEqual([{ n: 1, eventId: expect.stringMatching(ENTRY_ID) }]);
    } finally {
      await closeRedis(raw);
    }
  });

  it('when an older state of a request is published after a newer one, then nobody hears it and the history skips it', async () => {
    const publisher = await openRedisSharedState(
      redis.url,
      {
        prefix: 'rank:',
        historySize: 3,
        progress: (detail) => {
          const event = detail as { record?: ReturnType<typeof record> } | null;
          return event?.record
            ? { subject: event.record.request.id, rank: event.record.request.sourcesFinished }
            : null;
        },
      },
      logger,
    );
    opened.push(publisher);
    const bus = createEventBus(publisher.events);
    const heard: number[] = [];
    const stream = bus.subscribe('availabilityRequest:changed', 'ins_r');
    const reading = (async () => {
      for await (const event of stream) {
        heard.push(event.record.request.sourcesFinished);
        if (event.record.request.sourcesFinished === 7) break;
      }
    })();
    await waitFor(
      () => Promise.resolve(publisher.events.listenerCount),
      (count) => count === 1,
    );
    for (const finished of [1, 3, 2, 3, 5, 4, 6, 7]) {
      bus.publish('availabilityRequest:changed', 'ins_r', {
        instanceId: 'ins_r',
        kind: 'updated',
        record: record('avr_r', finished),
      });
    }
    await reading;
    expect(heard).toEqual([1, 3, 5, 6, 7]);

    const type = 'availabilityRequest:changed:ins_r';
    const all = await publisher.events.history.after([type], null);
    // Trimmed to the last three.
    expect(all.found).toBe(false);
    expect(
      all.entries.map(
        (entry) => (entry.detail as { record: ReturnType<typeof record> }).record.request.sourcesFinished,
      ),
    ).toEqual([5, 6, 7]);
    const sinceFive = await publisher.events.history.after([type], all.entries[0]?.id ?? '');
    expect(sinceFive.found).toBe(true);
    expect(sinceFive.entries.map((entry) => entry.id)).toEqual(all.entries.slice(1).map((entry) => entry.id));
    const trimmed = await publisher.events.history.after([type], '1-0');
    expect(trimmed).toEqual({ found: false, entries: all.entries });
    const notAnId = await publisher.events.history.after([type], 'urn:uuid:nope');
    expect(notAnId.found).toBe(false);
  });

  it('when a gathering wake-up is published by one instance, then every instance’s listener hears it', async () => {
    const a = await instance('wake:');
    const b = await instance('wake:');
    let heardA = 0;
    let heardB = 0;
    a.state.wakeups.listen(() => {
      heardA += 1;
    });
    b.state.wakeups.listen(() => {
      heardB += 1;
    });
    a.state.wakeups.publish();
    await waitFor(
      () => Promise.resolve([heardA, heardB]),
      ([x, y]) => x === 1 && y === 1,
    );
    expect([heardA, heardB]).toEqual([1, 1]);
  });

  it('when a Sonata notification is forwarded, then every instance hears it once, and a malformed message on its channel is dropped', async () => {
    const a = await instance('hub:');
    const b = await instance('hub:');
    const heard: [string, string][] = [];
    a.state.sonataNotifications.listen((notification) => heard.push(['a', notification.eventId]));
    b.state.sonataNotifications.listen((notification) => heard.push(['b', notification.eventId]));
    const notification = {
      sourceId: 'src_1',
      api: 'poq' as const,
      eventId: 'evt-1',
      eventType: 'poqStateChangeEvent',
      eventTime: '2026-11-26T06:00:00.000Z',
      resourceId: 'poq-1',
      itemId: null,
    };

    await a.state.commands.publish('hub:sonata-notifications', '{"sourceId": "src_1"}');
    await a.state.commands.publish('hub:sonata-notifications', 'not json');
    a.state.sonataNotifications.publish(notification);
    await waitFor(
      () => Promise.resolve(heard.length),
      (count) => count >= 2,
    );

    // Redis delivers a channel's messages in order: the two malformed ones came first and were dropped.
    expect(heard.sort()).toEqual([
      ['a', 'evt-1'],
      ['b', 'evt-1'],
    ]);
  });

  it('when Redis does not answer at start, then opening the shared state fails naming REDIS_URL, not the URL', async () => {
    const closed = await startTestRedis();
    await closed.stop();
    await expect(
      openRedisSharedState(closed.url, { prefix: 'x:', historySize: 0, timeoutMs: 300 }, logger),
    ).rejects.toThrow('Redis at REDIS_URL did not answer within 0.3 s');
  });
});

describe('event serialisation and reconnect back-off', () => {
  it('revives only ISO timestamps under keys ending in At', () => {
    const text = eventSerializer.stringify({
      createdAt: new Date('2026-01-02T03:04:05.006Z'),
      chat: '2026-01-02T03:04:05.006Z',
      updatedAt: 'not a date',
    });
    expect(eventSerializer.parse(text)).toEqual({
      createdAt: new Date('2026-01-02T03:04:05.006Z'),
      chat: '2026-01-02T03:04:05.006Z',
      updatedAt: 'not a date',
    });
  });

  it('waits 50 ms after the first failure, doubling up to 5 s', () => {
    expect([1, 2, 3, 7, 8, 20].map(reconnectDelayMs)).toEqual([50, 100, 200, 3200, 5000, 5000]);
  });
});
