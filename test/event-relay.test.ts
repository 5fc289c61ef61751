import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../src/context.js';
import type { OutboxEvent } from '../src/db/rows.js';
import { EventRelay } from '../src/event-relay.js';
import { createLogger } from '../src/logger.js';
import { createServices } from '../src/server/services.js';
import { tempDatabasePath, testConfig, waitFor } from './helpers/app.js';
import { requestAtExampleAddress } from './helpers/gathering.js';

/*
 * Issue 34: the outbox relay on a real store (each vitest project's): one relay at a time under the store's
 * lease, the backlog published in id order and deleted, failures retried without loss or repeat.
 */

const logger = createLogger('silent');

describe('the outbox relay', () => {
  let services: Services;
  let database: { path: string; remove(): void };
  const relays: EventRelay[] = [];
  let code = 0;

  beforeAll(async () => {
    database = tempDatabasePath();
    services = await createServices(testConfig(database.path), { logger });
  });
  afterAll(async () => {
    for (const relay of relays) await relay.stop();
    await services?.db.close();
    database?.remove();
  });

  /** A relay on the test's store that publishes into `published`, or fails while `down()` says so. */
  function relay(owner: string, published: OutboxEvent[], down: () => boolean = () => false) {
    const created = new EventRelay({
      db: services.db,
      owner,
      clock: services.clock,
      logger,
      leaseMs: 2_000,
      pollMs: 20,
      publish: async (events) => {
        if (down()) return events.map(() => false);
        published.push(...events);
        return events.map(() => true);
      },
    });
    relays.push(created);
    return created;
  }

  /** Creates a request of a new demo instance: its `created` event goes to the outbox. */
  async function createRequest(): Promise<string> {
    code += 1;
    return (await requestAtExampleAddress(services, `RL${String.fromCharCode(64 + code)}`)).id;
  }

  it('when the lease is claimed, then it is the holder’s until it expires or is given back, renewable by the holder only', async () => {
    const t0 = new Date('2026-11-28T10:00:00.000Z');
    const later = (ms: number) => new Date(t0.getTime() + ms);
    const claims = [
      await services.db.claimEventRelay('lease-A', t0, 1_000),
      await services.db.claimEventRelay('lease-B', later(500), 1_000),
      await services.db.claimEventRelay('lease-A', later(600), 1_000),
      await services.db.claimEventRelay('lease-B', later(1_500), 1_000),
      await services.db.claimEventRelay('lease-B', later(1_601), 1_000),
      await services.db.claimEventRelay('lease-A', later(1_700), 1_000),
    ];
    await services.db.releaseEventRelay('lease-A');
    const afterStrangerRelease = await services.db.claimEventRelay('lease-A', later(1_800), 1_000);
    await services.db.releaseEventRelay('lease-B');
    const afterRelease = await services.db.claimEventRelay('lease-A', later(1_800), 1_000);
    await services.db.releaseEventRelay('lease-A');

    expect(claims).toEqual([true, false, true, false, true, false]);
    expect(afterStrangerRelease).toBe(false);
    expect(afterRelease).toBe(true);
  });

  it('when two relays share the store, then only the lease holder publishes, and when it stops the other takes over and publishes the rest, each event once, in id order', async () => {
    const byA: OutboxEvent[] = [];
    const byB: OutboxEvent[] = [];
    const a = relay('relay-A', byA);
    a.start();
    await waitFor(
      () => Promise.resolve(a.leader),
      (leader) => leader,
    );
    const b = relay('relay-B', byB);
    b.start();

    const first = [await createRequest(), await createRequest(), await createRequest()];
    await waitFor(
      () => Promise.resolve(byA.length),
      (count) => count === 3,
    );
    expect(byB).toEqual([]);
    await a.stop();
    const second = [await createRequest(), await createRequest()];
    await waitFor(
      () => Promise.resolve(byB.length),
      (count) => count === 2,
    );

    expect(byA.map((event) => event.subjectId)).toEqual(first);
    expect(byB.map((event) => event.subjectId)).toEqual(second);
    const ids = [...byA, ...byB].map((event) => event.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(5);
    expect(byA.every((event) => event.payload.kind === 'created' && event.version === 0)).toBe(true);
    expect(await services.db.countOutboxEvents()).toBe(0);
    await b.stop();
  });

  it('when publishing fails, then the events wait in the outbox and go out in order, once, when it works again', async () => {
    let down = true;
    let attempts = 0;
    const published: OutboxEvent[] = [];
    const failing = relay('relay-C', published, () => {
      attempts += 1;
      return down;
    });
    failing.start();
    const ids = [await createRequest(), await createRequest()];
    await waitFor(
      () => Promise.resolve(attempts),
      (count) => count >= 3,
    );
    expect(await services.db.countOutboxEvents()).toBe(2);
    expect(published).toEqual([]);

    down = false;
    await waitFor(
      () => Promise.resolve(published.length),
      (count) => count === 2,
    );
    await waitFor(
      () => services.db.countOutboxEvents(),
      (count) => count === 0,
    );
    expect(published.map((event) => event.subjectId)).toEqual(ids);
    await failing.stop();
    expect(published).toHaveLength(2);
  });
});
