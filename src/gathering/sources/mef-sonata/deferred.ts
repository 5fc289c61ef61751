import type { ZodType } from 'zod';
import { parseAnswer } from './answers.js';
import type { SonataApi, SonataCallScope, SonataClient } from './client.js';
import type { SonataNotificationInbox } from './inbox.js';
import { notifiedUntilFinal, pollUntilFinal } from './wait.js';

/** How one create call's answer is awaited. */
export interface CreateAndAwait<T extends { id: string }> {
  api: SonataApi;
  /** The collection path below the API base (`/productOfferingQualification`, `/quote`). */
  collection: string;
  body: unknown;
  /** For messages: "POQ", "Quote". */
  what: string;
  schema: ZodType<T>;
  isFinal(resource: T): boolean;
  /** When the seller expects the resource to be complete (epoch ms), or null. */
  expectedAt(resource: T): number | null;
  /**
   * Where later states come from when the first answer is not final: the inbox when a hub listener for
   * this API is registered, else polling.
   */
  inbox: SonataNotificationInbox | null;
}

/**
 * Creates a POQ or Quote (`201`) and returns it once it is final: at once for an instant answer (MEF 87
 * `instantSyncQualification`, MEF 115 `instantSyncQuote`), else after hub events (each followed by one
 * retrieve) or polling. A seller that answers a requested instant call deferred is awaited the same way.
 *
 * @throws {SourceError} of the calls, `INVALID_RESPONSE` for an answer that is not the document's shape,
 *   `TIMEOUT` at the scope's deadline.
 */
export async function createAndAwait<T extends { id: string }>(
  client: SonataClient,
  scope: SonataCallScope,
  step: CreateAndAwait<T>,
  now: () => Date,
): Promise<T> {
  const created = await client.call(scope, {
    api: step.api,
    method: 'POST',
    path: step.collection,
    body: step.body,
    expect: [201],
    what: `${step.what} create`,
  });
  const resource = parseAnswer(step.schema, created.body, `${step.what} create answer`);
  if (step.isFinal(resource)) return resource;
  const wait = {
    api: step.api,
    id: resource.id,
    path: `${step.collection}/${encodeURIComponent(resource.id)}`,
    what: step.what,
    parse: (body: unknown) => parseAnswer(step.schema, body, `${step.what} ${resource.id}`),
    isFinal: step.isFinal,
    expectedAt: step.expectedAt,
  };
  return step.inbox
    ? notifiedUntilFinal(client, scope, step.inbox, wait)
    : pollUntilFinal(client, scope, wait, resource, now);
}
