import { setTimeout as sleep } from 'node:timers/promises';
import { SourceError } from '../types.js';
import type { SonataApi, SonataCallScope, SonataClient } from './client.js';
import type { SonataNotificationInbox, SonataResourceKey } from './inbox.js';

/** How to wait for one deferred POQ or Quote. */
export interface DeferredWait<T> {
  api: SonataApi;
  /** The resource's id, as the seller assigned it. */
  id: string;
  /** The retrieve path below the API base, e.g. `/productOfferingQualification/17`. */
  path: string;
  /** For messages: "POQ", "Quote". */
  what: string;
  /** Reads a retrieved body. @throws {SourceError} `INVALID_RESPONSE` when it is not the document's shape. */
  parse(body: unknown): T;
  /** Whether the resource reached a state it will not leave on its own. */
  isFinal(resource: T): boolean;
  /** When the seller expects the resource to be complete (epoch ms), or null. */
  expectedAt(resource: T): number | null;
}

/**
 * Polls `GET …/{id}` until the resource is final (MEF 87 / MEF 115 deferred response: the seller answers
 * `acknowledged`, later `inProgress`, at last a final state). The next poll comes when the seller expects to
 * be done (`expectedPOQCompletionDate` / `expectedQuoteCompletionDate`) when it says so, else after a wait
 * that starts at `initialDelayMs` and doubles; every wait lies between `initialDelayMs` and `maxDelayMs`. A
 * `Retry-After` the seller sends (with a 429, or with an answer) replaces the wait: a 429 is the seller
 * asking for patience, not a failure.
 *
 * @param created the create answer (not final).
 * @throws {SourceError} `TIMEOUT` when the scope's deadline passes first, or any error of the calls;
 *   rejects with the query signal's reason when the query is aborted.
 */
export async function pollUntilFinal<T>(
  client: SonataClient,
  scope: SonataCallScope,
  wait: DeferredWait<T>,
  created: T,
  now: () => Date,
): Promise<T> {
  const { initialDelayMs, maxDelayMs } = scope.settings.poll;
  const clamp = (ms: number) => Math.min(maxDelayMs, Math.max(initialDelayMs, ms));
  let backoff = initialDelayMs;
  const hinted = (resource: T) => {
    const expected = wait.expectedAt(resource);
    return expected !== null && expected > now().getTime() ? clamp(expected - now().getTime()) : null;
  };
  let delay = hinted(created) ?? backoff;
  for (;;) {
    await pause(delay, scope);
    const answer = await client.call(scope, {
      api: wait.api,
      method: 'GET',
      path: wait.path,
      expect: [200],
      tolerate: [429],
      what: `${wait.what} ${wait.id} retrieve`,
    });
    backoff = Math.min(backoff * 2, maxDelayMs);
    if (answer.status === 429) {
      delay = answer.retryAfterMs ?? backoff;
      continue;
    }
    const resource = wait.parse(answer.body);
    if (wait.isFinal(resource)) return resource;
    delay = answer.retryAfterMs ?? hinted(resource) ?? backoff;
  }
}

/**
 * The events after which the resource is retrieved: its state changes (POQ-N `poqStateChangeEvent`,
 * Quote-N `quoteStateChangeEvent`). Item events come in the same bursts, just before their resource's
 * state change; a retrieve after each would read the same state again (and a throttling seller answers
 * such reads 429).
 */
const STATE_CHANGE_EVENTS: Record<SonataApi, readonly string[]> = {
  poq: ['poqStateChangeEvent'],
  quote: ['quoteStateChangeEvent'],
};

/**
 * Waits for hub notifications about the resource and retrieves it after each state change (the
 * documents' events carry ids, not states), until it is final. Events that arrived before the wait began
 * count: the first retrieve happens at once when one is already there. Nothing is polled in between — a
 * seller with a registered listener may throttle polls. Should the seller still answer a retrieve 429, the
 * next one waits for the next state change or the seller's `Retry-After`, whichever comes first.
 *
 * @throws as {@link pollUntilFinal}.
 */
export async function notifiedUntilFinal<T>(
  client: SonataClient,
  scope: SonataCallScope,
  inbox: SonataNotificationInbox,
  wait: DeferredWait<T>,
): Promise<T> {
  const key = { sourceId: scope.source.id, api: wait.api, resourceId: wait.id };
  const types = STATE_CHANGE_EVENTS[wait.api];
  let seen = 0;
  let retryAfterMs: number | null = null;
  try {
    for (;;) {
      seen = await nextEvent(inbox, key, seen, types, retryAfterMs, scope);
      const answer = await client.call(scope, {
        api: wait.api,
        method: 'GET',
        path: wait.path,
        expect: [200],
        tolerate: [429],
        what: `${wait.what} ${wait.id} retrieve`,
      });
      if (answer.status === 429) {
        retryAfterMs = answer.retryAfterMs ?? scope.settings.poll.initialDelayMs;
        continue;
      }
      retryAfterMs = null;
      const resource = wait.parse(answer.body);
      if (wait.isFinal(resource)) return resource;
    }
  } finally {
    inbox.forget(key);
  }
}

/**
 * Waits for more than `seen` state-change events — or, after a 429, at most `retryAfterMs` — within the
 * scope's deadline. @returns the number of those events so far.
 */
async function nextEvent(
  inbox: SonataNotificationInbox,
  key: SonataResourceKey,
  seen: number,
  types: readonly string[],
  retryAfterMs: number | null,
  scope: SonataCallScope,
): Promise<number> {
  const done = new AbortController();
  const signal = AbortSignal.any([scope.deadline, done.signal]);
  try {
    const event = inbox.waitFor(key, seen, signal, types);
    if (retryAfterMs === null) return await event;
    const timer = sleep(retryAfterMs, undefined, { signal }).then(() => inbox.count(key, types));
    // The loser rejects when `done` aborts it below: that rejection is expected, not unhandled.
    event.catch(() => {});
    timer.catch(() => {});
    return await Promise.race([event, timer]);
  } catch (error) {
    throw stopped(error, scope);
  } finally {
    done.abort();
  }
}

/** Sleeps `ms`, cut short by the scope's deadline. */
async function pause(ms: number, scope: SonataCallScope): Promise<void> {
  try {
    await sleep(ms, undefined, { signal: scope.deadline });
  } catch (error) {
    throw stopped(error, scope);
  }
}

/** The error for a wait cut short: the query's own abort as it is, the deadline as a `TIMEOUT`. */
function stopped(error: unknown, scope: SonataCallScope): unknown {
  if (scope.querySignal.aborted) return scope.querySignal.reason;
  if (scope.deadline.aborted) return new SourceError('TIMEOUT', 'The source did not answer in time.', true);
  return error;
}
