import type { Redis } from 'ioredis';
import { eventSerializer } from './event-serializer.js';

/**
 * Publishes one event, atomically (a Lua script runs alone in Redis):
 * 1. when the event has a place in a progression (`ARGV[2]` ≥ 0: a request's progress rank), drops it unless
 *    it is newer than the last one published for its subject (`KEYS[2]`, kept `ARGV[3]` seconds) — so no
 *    subscriber anywhere sees progress go backwards when two workers publish one request's changes at once;
 * 2. appends it to its topic's history stream (`KEYS[1]`, trimmed to `ARGV[1]` entries; none when 0), whose
 *    entry id becomes the event's global, ordered id;
 * 3. publishes `<entry id>\n<message>` on the events channel (`ARGV[4]`) — in the order of the stream, since
 *    nothing runs between the two.
 * Returns the entry id ('' without history), or false when the event was dropped as stale.
 */
const PUBLISH_SCRIPT = `
local rank = tonumber(ARGV[2])
if rank >= 0 then
  local previous = tonumber(redis.call('GET', KEYS[2]) or '-1')
  if rank <= previous then return false end
  redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
end
local id = ''
if tonumber(ARGV[1]) > 0 then
  id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'e', ARGV[5])
end
redis.call('PUBLISH', ARGV[4], id .. '\\n' .. ARGV[5])
return id
`;

/** How long the last published rank of a subject is remembered (a day: requests finish within minutes). */
const RANK_TTL_SECONDS = 86_400;

/** An event read back from a history stream. */
export interface HistoryEntry {
  /** The stream entry id (`<ms>-<seq>`): global and ordered. */
  id: string;
  type: string;
  detail: unknown;
}

/** Where a published event sits in a progression: its subject (a request id) and its rank there. */
export interface EventProgress {
  subject: string;
  rank: number;
}

type PublishingRedis = Redis & {
  publishEvent(
    historyKey: string,
    rankKey: string,
    historySize: number,
    rank: number,
    rankTtl: number,
    channel: string,
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
 * The history of every event topic in Redis Streams (`<prefix>history:<topic>`, trimmed to `historySize`
 * entries), written by {@link publish} together with the pub/sub message, and read back for `Last-Event-ID`
 * replays on any instance (issue 17, Mercure history across instances).
 */
export class RedisEventHistory {
  private readonly redis: PublishingRedis;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    /** Entries kept per topic (`MERCURE_HISTORY_SIZE`); 0 keeps none. */
    readonly historySize: number,
  ) {
    if (!('publishEvent' in redis))
      redis.defineCommand('publishEvent', { numberOfKeys: 2, lua: PUBLISH_SCRIPT });
    this.redis = redis as PublishingRedis;
  }

  /**
   * Publishes `message` (the serialised `{ type, detail }`) on `channel` with its history entry, unless
   * `progress` says it is stale (see {@link PUBLISH_SCRIPT}).
   *
   * @returns the entry id, '' without history, or null when dropped as stale.
   * @throws the Redis error when the script cannot run (Redis down: the caller logs it).
   */
  async publish(
    channel: string,
    type: string,
    message: string,
    progress: EventProgress | null,
  ): Promise<string | null> {
    return this.redis.publishEvent(
      this.key(type),
      progress ? `${this.prefix}rank:${progress.subject}` : `${this.prefix}rank:-`,
      this.historySize,
      progress ? progress.rank : -1,
      RANK_TTL_SECONDS,
      channel,
      message,
    );
  }

  /**
   * What a subscriber of `types` that last saw `lastId` missed, oldest first over all the topics. `found`
   * tells whether `lastId` is still kept in one of them; without it (`null`, trimmed, never sent) the answer
   * is the whole kept history.
   */
  async after(
    types: readonly string[],
    lastId: string | null,
  ): Promise<{ found: boolean; entries: HistoryEntry[] }> {
    const known = lastId !== null && ENTRY_ID.test(lastId);
    const found = known
      ? (
          await Promise.all(
            types.map((type) => this.redis.xrange(this.key(type), lastId, lastId, 'COUNT', 1)),
          )
        ).some((entries) => entries.length > 0)
      : false;
    const from = found && lastId ? `(${lastId}` : '-';
    const ranges = await Promise.all(types.map((type) => this.redis.xrange(this.key(type), from, '+')));
    const entries = ranges
      .flat()
      .map(([id, fields]) => {
        const { type, detail } = eventSerializer.parse(fields[1] ?? 'null') as {
          type: string;
          detail: unknown;
        };
        return { id, type, detail };
      })
      .sort((a, b) => compareEntryIds(a.id, b.id));
    return { found, entries };
  }

  private key(type: string): string {
    return `${this.prefix}history:${type}`;
  }
}
