import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SonataApi } from './client.js';

/**
 * One hub notification as the gateway keeps it: which source's seller sent it, about which POQ or Quote.
 * The documents' events carry no state — only ids (MEF 87 POQ Notification 7.0.1 `PoqEvent`, MEF 115
 * Quote Notification 8.0.1 `QuoteEvent`) — so the adapter retrieves the resource when one arrives.
 */
export interface SonataNotification {
  sourceId: string;
  api: SonataApi;
  /** `Event.eventId`: a redelivered event has the same one. */
  eventId: string;
  /** `poqCreateEvent`, `poqStateChangeEvent`, `poqItemStateChangeEvent`, `quoteStateChangeEvent`, … */
  eventType: string;
  eventTime: string;
  /** `event.id`: the POQ's or Quote's id. */
  resourceId: string;
  /** `event.poqItemId` / `event.quoteItemId`, when the event is about one item. */
  itemId: string | null;
}

/** The POQ or Quote a waiter waits for. */
export interface SonataResourceKey {
  sourceId: string;
  api: SonataApi;
  resourceId: string;
}

interface ResourceEvents {
  /** Distinct events per event type. */
  counts: Map<string, number>;
  touchedAt: number;
  waiters: Set<() => void>;
}

function total(entry: ResourceEvents | undefined, eventTypes: readonly string[] | undefined): number {
  if (!entry) return 0;
  let sum = 0;
  for (const [type, count] of entry.counts) if (!eventTypes || eventTypes.includes(type)) sum += count;
  return sum;
}

/**
 * The in-process inbox of Sonata hub notifications: the callback route delivers events into it
 * ({@link handleSonataNotification}), the adapter waits in it for the POQ or Quote it created.
 *
 * - Idempotent: an event delivered twice (same source, API and `eventId`) counts once, so a seller's
 *   redelivery or a replayed request changes nothing.
 * - Events that arrive before the adapter waits (a seller may notify before its create answer reaches
 *   the buyer) are counted, not lost.
 * - Bounded: event ids and per-resource counts are kept for `retentionMs` (default one hour) after their
 *   last event, at most `maxEntries` (default 100 000) of each.
 *
 * Authentication is a capability URL per source: the callback registered with the seller carries
 * `HMAC-SHA256(secret, "sonata-callback:" + sourceId)` as a path segment (see {@link callbackUrl}). The
 * documents give the listener registration no other credential (`EventSubscriptionInput` has only
 * `callback` and `query`), and the seller appends its own path to the callback, so the path is the one
 * place a seller repeats on every notification. A token for one source is worthless for another, and
 * changing `secret` revokes every callback at once (sources then register again).
 */
export class SonataNotificationInbox {
  private readonly seen = new Map<string, number>();
  private readonly resources = new Map<string, ResourceEvents>();
  private readonly sourceIds = new Map<
    string,
    { buyerId?: string | undefined; sellerId?: string | undefined }
  >();
  private readonly now: () => Date;
  private readonly retentionMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly options: {
      /** Key of the callback tokens (at least 32 bytes of randomness); keep it with the gateway's secrets. */
      secret: string | Uint8Array;
      /** The gateway's public URL of the callback route, up to (not including) the source id. */
      callbackBaseUrl: string;
      now?: () => Date;
      retentionMs?: number;
      maxEntries?: number;
    },
  ) {
    if (options.secret.length < 16) throw new Error('The Sonata callback secret must be at least 16 bytes.');
    this.now = options.now ?? (() => new Date());
    this.retentionMs = options.retentionMs ?? 3_600_000;
    this.maxEntries = options.maxEntries ?? 100_000;
  }

  /**
   * The callback a source registers at its seller's hub (`EventSubscriptionInput.callback`):
   * `<callbackBaseUrl>/<sourceId>/<token>`. The seller appends the notification API's base path and
   * listener resource (e.g. `/mefApi/sonata/quoteNotification/v8/listener/quoteStateChangeEvent`).
   */
  callbackUrl(sourceId: string): string {
    const base = this.options.callbackBaseUrl.replace(/\/+$/, '');
    return `${base}/${encodeURIComponent(sourceId)}/${this.token(sourceId)}`;
  }

  /** Whether `token` is the source's callback token (compared in constant time). */
  authenticates(sourceId: string, token: string): boolean {
    const expected = Buffer.from(this.token(sourceId));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * Records a source's `buyerId`/`sellerId` (when it registers its listeners), so events naming other ids
   * are refused: MEF 87/115 events carry the ids the registration was made with (MEF 79 Sn 8.8).
   */
  describeSource(
    sourceId: string,
    ids: { buyerId?: string | undefined; sellerId?: string | undefined },
  ): void {
    this.sourceIds.set(sourceId, ids);
  }

  /**
   * Whether an event's `buyerId`/`sellerId` fit the source: an id the event leaves out, or the source has
   * none for, fits; so does every id of a source the inbox was not told about.
   */
  idsFit(sourceId: string, event: { buyerId?: string | undefined; sellerId?: string | undefined }): boolean {
    const known = this.sourceIds.get(sourceId);
    if (!known) return true;
    const fits = (expected: string | undefined, given: string | undefined) =>
      expected === undefined || given === undefined || expected === given;
    return fits(known.buyerId, event.buyerId) && fits(known.sellerId, event.sellerId);
  }

  /**
   * Takes an event in. Returns true when it is new, false when that event was delivered before (then
   * nothing changes).
   */
  deliver(notification: SonataNotification): boolean {
    const nowMs = this.now().getTime();
    const eventKey = [notification.sourceId, notification.api, notification.eventId].join('\n');
    if (this.seen.has(eventKey)) return false;
    this.prune(nowMs);
    this.seen.set(eventKey, nowMs);
    const key = resourceKey(notification);
    const entry = this.resources.get(key) ?? { counts: new Map(), touchedAt: nowMs, waiters: new Set() };
    this.resources.delete(key);
    this.resources.set(key, entry);
    entry.counts.set(notification.eventType, (entry.counts.get(notification.eventType) ?? 0) + 1);
    entry.touchedAt = nowMs;
    // A waiter for other event types puts itself back.
    const waiters = [...entry.waiters];
    entry.waiters.clear();
    for (const wake of waiters) wake();
    return true;
  }

  /** How many distinct events (of `eventTypes`, default all) about the resource arrived so far. */
  count(key: SonataResourceKey, eventTypes?: readonly string[]): number {
    return total(this.resources.get(resourceKey(key)), eventTypes);
  }

  /**
   * Waits until more than `after` distinct events (of `eventTypes`, default all) about the resource have
   * arrived.
   *
   * @returns the number of those events so far.
   * @throws the signal's reason when `signal` aborts first.
   */
  waitFor(
    key: SonataResourceKey,
    after: number,
    signal: AbortSignal,
    eventTypes?: readonly string[],
  ): Promise<number> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const id = resourceKey(key);
    const current = this.resources.get(id);
    if (total(current, eventTypes) > after) return Promise.resolve(total(current, eventTypes));
    const entry = current ?? { counts: new Map(), touchedAt: this.now().getTime(), waiters: new Set() };
    this.resources.set(id, entry);
    return new Promise<number>((resolve, reject) => {
      const wake = () => {
        if (total(entry, eventTypes) <= after) {
          entry.waiters.add(wake);
          return;
        }
        signal.removeEventListener('abort', onAbort);
        resolve(total(entry, eventTypes));
      };
      const onAbort = () => {
        entry.waiters.delete(wake);
        reject(signal.reason);
      };
      entry.waiters.add(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Drops what is kept about a resource the adapter is done with (its event ids stay, for idempotency). */
  forget(key: SonataResourceKey): void {
    const id = resourceKey(key);
    if (this.resources.get(id)?.waiters.size === 0) this.resources.delete(id);
  }

  private token(sourceId: string): string {
    return createHmac('sha256', this.options.secret)
      .update(`sonata-callback:${sourceId}`)
      .digest('base64url');
  }

  /** Maps iterate in insertion order, and entries are re-inserted when touched: the oldest come first. */
  private prune(nowMs: number): void {
    const cutoff = nowMs - this.retentionMs;
    for (const [key, at] of this.seen) {
      if (at >= cutoff && this.seen.size < this.maxEntries) break;
      this.seen.delete(key);
    }
    for (const [key, entry] of this.resources) {
      if (entry.touchedAt >= cutoff && this.resources.size < this.maxEntries) break;
      if (entry.waiters.size === 0) this.resources.delete(key);
    }
  }
}

function resourceKey(key: SonataResourceKey): string {
  return [key.sourceId, key.api, key.resourceId].join('\n');
}
