import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SourceRow } from '../../../db/rows.js';
import { parseAnswer } from './answers.js';
import type { SonataApi, SonataCallScope, SonataClient } from './client.js';
import type { SonataNotificationInbox } from './inbox.js';
import type { SonataSourceSettings } from './settings.js';

/**
 * The event types a source listens to, per API (`EventSubscriptionInput.query`, values of POQ-N
 * `PoqEventType` and Quote-N `QuoteEventType`; docs/mef-sonata-mapping.md §5).
 */
export const sonataHubQueries: Record<SonataApi, string> = {
  poq: 'eventType=poqCreateEvent,poqStateChangeEvent,poqItemStateChangeEvent',
  quote: 'eventType=quoteStateChangeEvent,quoteItemStateChangeEvent',
};

/**
 * A source's hub listeners at its seller: the `EventSubscription.id` per API, or null when the seller
 * answered `501 notImplemented` (it sends no notifications; the documents' `/hub` 501: "Used in case Seller
 * is not supporting Notification mechanism").
 */
export interface SonataHubListeners {
  /** What the listeners were registered for (seller URL, ids, callback): another fingerprint, another registration. */
  fingerprint: string;
  poq: string | null;
  quote: string | null;
  /** The Product Order hub's listener, once ordering registered one (`src/ordering/order-listeners.ts`). */
  order?: string | null;
  /** The event types (`query`) the order listener was registered for. */
  orderQuery?: string;
  /** False when only ordering registered (its order listener): the POQ and Quote listeners are still to come. */
  gatheringListeners?: false;
}

/**
 * Where hub registrations are kept, so a restarted gateway does not register again (and a removed source's
 * listeners can be deleted). The default keeps them in memory.
 */
export interface SonataHubRegistrations {
  get(sourceId: string): Promise<SonataHubListeners | null>;
  set(sourceId: string, listeners: SonataHubListeners | null): Promise<void>;
}

/** {@link SonataHubRegistrations} in memory, for one process. */
export function memoryHubRegistrations(): SonataHubRegistrations {
  const kept = new Map<string, SonataHubListeners>();
  return {
    get: async (sourceId) => kept.get(sourceId) ?? null,
    set: async (sourceId, listeners) => {
      if (listeners) kept.set(sourceId, listeners);
      else kept.delete(sourceId);
    },
  };
}

/** POQ/Quote `EventSubscription` (201 to `POST /hub`). */
const subscriptionSchema = z.looseObject({ id: z.string().min(1).max(200), callback: z.string().max(2000) });

/** Statuses of `POST /hub` that mean "this seller sends no notifications" (501 as documented; 404/405 in practice). */
const NO_HUB = [404, 405, 501];

/**
 * Registers a source's listeners at its seller's hubs (`POST /hub` of POQ and Quote, MEF 87 / MEF 115
 * `registerListener`) once per source and settings, before its first deferred POQ, so no event of it can
 * be missed. Concurrent queries of one source share one registration.
 */
export class SonataHub {
  private readonly inFlight = new Map<string, Promise<SonataHubListeners>>();

  constructor(
    private readonly client: SonataClient,
    private readonly inbox: SonataNotificationInbox,
    private readonly registrations: SonataHubRegistrations,
  ) {}

  /**
   * The source's listeners, registering them when the kept ones were made for other settings.
   *
   * @throws {SourceError} when the hub fails otherwise than "not implemented" (after the policy's retries).
   */
  async listeners(scope: SonataCallScope): Promise<SonataHubListeners> {
    const { source, settings } = scope;
    this.inbox.describeSource(source.id, { buyerId: settings.buyerId, sellerId: settings.sellerId });
    const fingerprint = this.fingerprint(source, settings);
    const key = `${source.id}\n${fingerprint}`;
    let registering = this.inFlight.get(key);
    if (!registering) {
      registering = this.register(scope, fingerprint).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, registering);
    }
    return registering;
  }

  /** Deletes the source's listeners and forgets them; see {@link deleteHubListeners}. */
  unregister(scope: SonataCallScope): Promise<void> {
    return deleteHubListeners(this.client, this.registrations, scope);
  }

  private async register(scope: SonataCallScope, fingerprint: string): Promise<SonataHubListeners> {
    const kept = await this.registrations.get(scope.source.id);
    const same = kept?.fingerprint === fingerprint;
    if (same && kept.gatheringListeners !== false) return kept;
    if (kept && !same) await this.unregister(scope).catch(() => {});
    const callback = this.inbox.callbackUrl(scope.source.id);
    const listeners: SonataHubListeners = {
      fingerprint,
      poq: null,
      quote: null,
      // The order listener ordering registered for the same settings stays.
      ...(same && kept.order !== undefined ? { order: kept.order, orderQuery: kept.orderQuery ?? '' } : {}),
    };
    for (const api of ['poq', 'quote'] as const) {
      const what = `${api === 'poq' ? 'POQ' : 'Quote'} hub listener registration`;
      const answer = await this.client.call(scope, {
        api,
        method: 'POST',
        path: '/hub',
        body: { callback, query: sonataHubQueries[api] },
        expect: [201],
        tolerate: NO_HUB,
        what,
      });
      listeners[api] = NO_HUB.includes(answer.status)
        ? null
        : parseAnswer(subscriptionSchema, answer.body, what).id;
    }
    await this.registrations.set(scope.source.id, listeners);
    return listeners;
  }

  private fingerprint(source: SourceRow, settings: SonataSourceSettings): string {
    return hubFingerprint(settings, this.inbox.callbackUrl(source.id));
  }
}

/** Registrations are per seller endpoint, buyer/seller ids and callback (its token included). */
export function hubFingerprint(settings: SonataSourceSettings, callbackUrl: string): string {
  return createHash('sha256')
    .update(JSON.stringify([settings.baseUrl, settings.buyerId ?? '', settings.sellerId ?? '', callbackUrl]))
    .digest('base64url');
}

/**
 * Deletes a source's kept listeners at its seller (`DELETE /hub/{id}` of POQ, Quote and Product Order, 204; a 404 or 501
 * counts as gone), e.g. when the source is disabled or leaves the notifications mode, then forgets them.
 * Needs no inbox: it runs wherever the source is changed (the API process, the CLI).
 *
 * @throws {SourceError} when a delete fails otherwise (after the policy's retries); nothing is forgotten then.
 */
export async function deleteHubListeners(
  client: SonataClient,
  registrations: SonataHubRegistrations,
  scope: SonataCallScope,
): Promise<void> {
  const kept = await registrations.get(scope.source.id);
  if (!kept) return;
  for (const api of ['poq', 'quote'] as const) {
    const id = kept[api];
    if (!id) continue;
    await client.call(scope, {
      api,
      method: 'DELETE',
      path: `/hub/${encodeURIComponent(id)}`,
      expect: [204],
      tolerate: [404, 501],
      what: `${api === 'poq' ? 'POQ' : 'Quote'} hub listener delete`,
    });
  }
  if (kept.order) {
    await client.call(scope, {
      api: 'order',
      method: 'DELETE',
      path: `/hub/${encodeURIComponent(kept.order)}`,
      expect: [204],
      tolerate: [404, 501],
      what: 'Product Order hub listener delete',
    });
  }
  await registrations.set(scope.source.id, null);
}
