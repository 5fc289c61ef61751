import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../src/context.js';
import { createServices } from '../../src/server/services.js';
import { tempDatabasePath, testConfig } from '../helpers/app.js';
import { requestAtExampleAddress } from '../helpers/gathering.js';

/*
 * Issue 37: the outbox keeps each event's trace context (`outbox_events.trace_context`), on each vitest
 * project's store. This process does not trace (no `startTracing`): what the store reads from the active
 * context is nothing, and only a context a caller hands it (a gathering worker's completion or final failed
 * attempt, `TaskCompletion.traceContext`) is kept — on PostgreSQL through the statements' SQL.
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

  it('when a worker hands the store the context of a completion’s and a final failed attempt’s events, then each event keeps its own, and the claim’s none', async () => {
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
});
