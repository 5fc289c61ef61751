import type { Redis } from 'ioredis';
import { DependencyUnavailableError } from '../errors.js';
import type { EventHistory, HistoryEntry } from '../events.js';
import { eventSerializer } from './event-serializer.js';

/**
 * Publishes one event, atomically (a Lua script runs alone in Redis):
 * 1. when the event has a place in a progression (`ARGV[2]` ≥ 0: its subject's version), drops it unless
 *    it is newer than the last one published for its subject (`KEYS[2]`, kept `ARGV[3]` seconds) — so an
 *    event the outbox relay publishes again (it died before deleting it), or a stale one, reaches no one;
 * 2. appends it to the events stream every process reads (`KEYS[3]`, trimmed to about `ARGV[4]` entries),
 *    whose entry id becomes the event's global, ordered id;
 * 3. appends it under that same id to its type's history stream (`KEYS[1]`, trimmed to `ARGV[1]` entries;
 *    none when 0), which `Last-Event-ID` replays read. (`pcall`: a history written before this script
 *    may end past the new id; the event then misses only its replay.)
 * Returns the entry id, or false when the event was dropped as stale.
 */
const PUBLISH_SCRIPT = `
local rank = tonumber(ARGV[2])
if rank >= 0 then
  local previous = tonumber(redis.call('GET', KEYS[2]) or '-1')
  if rank <= previous then return false end
  redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
end
local id = redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'e', ARGV[5])
if tonumber(ARGV[1]) > 0 then
  redis.pcall('XADD', KEYS[1], 'MAXLEN', ARGV[1], id, 'e', ARGV[5])
end
return id
`;

/**
 * Entries the events stream keeps (about: trimmed with `~`): how far behind a process's reader may fall —
 * while its connection is down — and still receive every event.
 */
export const EVENT_STREAM_LENGTH = 10_000;

/** How long the last published rank of a subject is remembered (a day: requests finish within minutes). */
const RANK_TTL_SECONDS = 86_400;

/** Where a published event sits in a progression: its subject (a request id) and its rank there. */
export interface EventProgress {
  subject: string;
  rank: number;
}

type PublishingRedis = Redis & {
  publishEvent(
    historyKey: string,
    rankKey: string,
    streamKey: string,
    historySize: number,
    rank: number,
    rankTtl: number,
    streamLength: number,
    message: string,
  ): Promise<string | null>;
};

/** Orders two stream entry ids (`<ms>-<seq>`) as Redis does. */
export function compareEntryIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs - bMs || aSeq - bSeq;
}

/** A stream entry id as Redis writes it. */
export const ENTRY_ID = /^\d{1,20}-\d{1,20}$/;

/**
 * The events of a shared deployment in Redis Streams: one stream every process reads (`<prefix>events`,
 * see `RedisEventTarget`) and the history of every event type (`<prefix>history:<type>`, trimmed to
 * `historySize` entries), both written by {@link publish} and read back for `Last-Event-ID` replays on
 * any instance (issue 17, Mercure history across instances).
 */
export class RedisEventHistory implements EventHistory {
  private readonly redis: PublishingRedis;
  readonly idPrefix = 'urn:connectivity-gateway:event:';
  /** The stream every process reads. */
  readonly streamKey: string;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    /** Entries kept per topic (`MERCURE_HISTORY_SIZE`); 0 keeps none. */
    readonly historySize: number,
  ) {
    if (!('publishEvent' in redis))
      redis.defineCommand('publishEvent', { numberOfKeys: 3, lua: PUBLISH_SCRIPT });
    this.redis = redis as PublishingRedis;
    this.streamKey = `${prefix}events`;
  }

  compare(a: string, b: string): number {
    return compareEntryIds(a, b);
  }

  /**
   * Publishes `message` (the serialised `{ type, detail }`) on the events stream and in `type`'s history,
   * unless `progress` says it is stale (see {@link PUBLISH_SCRIPT}).
   *
   * @returns the entry id, or null when dropped as stale.
   * @throws the Redis error when the script cannot run (Redis down: the relay tries again).
   */
  async publish(type: string, message: string, progress: EventProgress | null): Promise<string | null> {
    return this.redis.publishEvent(
      this.key(type),
      progress ? `${this.prefix}rank:${progress.subject}` : `${this.prefix}rank:-`,
      this.streamKey,
      this.historySize,
      progress ? progress.rank : -1,
      RANK_TTL_SECONDS,
      EVENT_STREAM_LENGTH,
      message,
    );
  }

  /**
   * The entries of `types` after `lastId` (all of them when it is unknown or gone), oldest first.
   *
   * @throws {DependencyUnavailableError} (`redis`, a 503 with `Retry-After`) when Redis cannot answer: a
   *   replay asked for while Redis is down (issue 48).
   */
  async after(
    types: readonly string[],
    lastId: string | null,
  ): Promise<{ found: boolean; entries: HistoryEntry[] }> {
    const known = lastId !== null && ENTRY_ID.test(lastId);
    const found = known
      ? (
          await this.command(() =>
            Promise.all(types.map((type) => this.redis.xrange(this.key(type), lastId, lastId, 'COUNT', 1))),
          )
        ).some((entries) => entries.length > 0)
      : false;
    const from = found && lastId ? `(${lastId}` : '-';
    const ranges = await this.command(() =>
      Promise.all(types.map((type) => this.redis.xrange(this.key(type), from, '+'))),
    );
    const entries = ranges
      .flat()
      .map(([id, fields]): HistoryEntry => {
        const { type, detail } = eventSerializer.parse(fields[1] ?? 'null') as {
          type: string;
          detail: unknown;
        };
        return { id, type, detail };
      })
      .sort((a, b) => compareEntryIds(a.id, b.id));
    return { found, entries };
  }

  /** Runs Redis commands; their failure is Redis being unavailable to the caller (a 503). */
  private async command<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw new DependencyUnavailableError('redis', { cause: error });
    }
  }

  private key(type: string): string {
    return `${this.prefix}history:${type}`;
  }
}
