import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../src/context.js';
import { createInstance } from '../../src/resolvers/operator.js';
import { createServices } from '../../src/server/services.js';
import { tempDatabasePath, testConfig } from '../helpers/app.js';
import { requestAtExampleAddress } from '../helpers/gathering.js';

/*
 * Issue 37: the outbox keeps each event's trace context (`outbox_events.trace_context`), on each vitest
 * project's store. This process does not trace (no `startTracing`): what the store reads from the active
 * context is nothing, and only a context a caller hands it (a gathering worker's completion or final failed
 * attempt, `TaskCompletion.traceContext`) or one stored with the gathering tasks (a claim's events, from
 * `AvailabilityRequestBatch.traceContext`) is kept — on PostgreSQL through the statements' SQL.
 */

const contextA = '{"traceparent":"00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-aaaaaaaaaaaaaaaa-01"}';
const contextB = '{"traceparent":"00-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-bbbbbbbbbbbbbbbb-01"}';

describe('the trace context of outbox events', () => {
  let services: Services;
  let database: { path: string; remove(): void };

  beforeAll(async () => {
    database = tempDatabasePath();
    services = await createServices(testConfig(database.path));
  });
  afterAll(async () => {
    await services?.db.close();
    database?.remove();
  });

  /** The claimed tasks of request `id`, leased to `owner` (7: the demo catalogue at the example address). */
  async function claimTasksOf(id: string, owner: string) {
    const { claimed } = await services.db.claimTasks({
      owner,
      now: services.clock.now(),
      leaseMs: 60_000,
      limit: 100,
      maxAttempts: 3,
    });
    return claimed.filter((task) => task.request.id === id);
  }

  /** The events of request `id` waiting in the outbox (no relay runs here), oldest first. */
  async function eventsOf(id: string) {
    return (await services.db.listOutboxEvents(1_000)).filter((event) => event.subjectId === id);
  }

  /**
   * A demo-catalogue instance `code` and, per entry of `traceContexts`, one request created in a batch of
   * its own with that context stored with its tasks, matching the instance's first two Dutch sources.
   * Returns the request ids in the order given.
   */
  async function requestsQueuedWith(code: string, traceContexts: (string | null)[]) {
    const { instance } = await createInstance(services, { name: `Traced ${code}`, code, demoCatalog: true });
    const sources = await services.db.listEnabledSources(instance.id, 'NL');
    const plan = await services.db.findDefaultPricePlan(instance.id);
    const ids: string[] = [];
    for (const traceContext of traceContexts) {
      const result = await services.db.insertAvailabilityRequests({
        instanceId: instance.id,
        userId: null,
        now: services.clock.now(),
        requests: [
          {
            address: {
              inputKind: 'fields',
              street: 'Damrak',
              city: 'Amsterdam',
              houseNumber: '70',
              houseNumberAddition: '',
              postalCode: '1012LM',
              countryCode: 'NL',
              continentCode: 'EU',
              latitude: 52.3759,
              longitude: 4.8965,
              coordinatesPrecision: 'address',
            },
            filters: {
              bandwidths: [],
              networks: [],
              contractTerms: [],
              connectionTypes: [],
              technologyTypes: [],
            },
            customerId: null,
            projectId: null,
            pricePlanId: plan?.id ?? '',
            sourceIds: sources.slice(0, 2).map((source) => source.id),
          },
        ],
        traceContext,
      });
      if (!('records' in result)) throw new Error('expected the batch to be created');
      ids.push(result.records[0]?.request.id ?? '');
    }
    return ids;
  }

  it('when tracing is off, then the events of a request’s creation, claim and completion keep no trace context', async () => {
    const { id } = await requestAtExampleAddress(services, 'OTA');
    const [task] = await claimTasksOf(id, 'worker-a');

    await services.db.completeTasks([
      { taskId: task?.taskId ?? 0, owner: 'worker-a', now: services.clock.now(), products: [] },
    ]);

    const events = await eventsOf(id);
    expect(events.map((event) => [event.version, event.traceContext])).toEqual([
      [0, null],
      [1_000_000, null],
      [1_000_001, null],
    ]);
  });

  it('when a worker hands the store the context of a completion’s and a final failed attempt’s events, then each event keeps its own, and the claim’s that of its tasks (none)', async () => {
    const { id } = await requestAtExampleAddress(services, 'OTB');
    const [first, second, third] = await claimTasksOf(id, 'worker-b');
    const now = services.clock.now();
    const completion = (taskId: number, traceContext?: string) => ({
      taskId,
      owner: 'worker-b',
      now,
      products: [],
      ...(traceContext ? { traceContext } : {}),
    });

    // One batch of two traces: the request's one event keeps the context of its last change.
    await services.db.completeTasks([
      completion(first?.taskId ?? 0, contextB),
      completion(second?.taskId ?? 0, contextA),
    ]);
    await services.db.failTaskAttempt({
      taskId: third?.taskId ?? 0,
      owner: 'worker-b',
      now,
      code: 'REFUSED',
      message: 'refused',
      retryAt: null,
      traceContext: contextB,
    });

    const events = await eventsOf(id);
    expect(events.map((event) => [event.version, event.traceContext])).toEqual([
      [0, null],
      [1_000_000, null],
      [1_000_002, contextA],
      [1_000_003, contextB],
    ]);
  });

  it('when requests were queued with trace contexts A, B and none, then the events of the claim that starts them and of the claim that fails their expired leases keep each request’s exactly', async () => {
    const [a, b, none] = await requestsQueuedWith('OTC', [contextA, contextB, null]);
    const now = services.clock.now();
    // Both tasks of each request in one claim (one started event per request), leased for a second.
    const { claimed } = await services.db.claimTasks({
      owner: 'worker-c',
      now,
      leaseMs: 1_000,
      limit: 100,
      maxAttempts: 1,
    });
    const ours = claimed.filter((task) => [a, b, none].includes(task.request.id));

    // The worker died: its leases expired after the last allowed attempt, and a claim fails the tasks.
    const { changed } = await services.db.claimTasks({
      owner: 'worker-d',
      now: new Date(now.getTime() + 2_000),
      leaseMs: 1_000,
      limit: 0,
      maxAttempts: 1,
    });

    expect(ours.map((task) => [task.request.id, task.traceContext])).toEqual([
      [a, contextA],
      [a, contextA],
      [b, contextB],
      [b, contextB],
      [none, null],
      [none, null],
    ]);
    expect(changed.map((change) => change.availabilityRequestId)).toEqual([a, a, b, b, none, none]);
    for (const [id, context] of [
      [a, contextA],
      [b, contextB],
      [none, null],
    ] as const) {
      const events = await eventsOf(id ?? '');
      // Created (no trace in this process), started by the claim, completed by the two lease-expired failures.
      expect(events.map((event) => [event.version, event.payload.kind, event.traceContext])).toEqual([
        [0, 'created', null],
        [1_000_000, 'updated', context],
        [2_000_002, 'updated', context],
      ]);
    }
  });
});
