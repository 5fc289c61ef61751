import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseCookie } from 'cookie';
import { errors as joseErrors, jwtVerify } from 'jose';
import { z } from 'zod';
import type { OpenSessions, Session } from '../auth/revocations.js';
import type { Services } from '../context.js';
import { AppError } from '../errors.js';
import type { EventHistory } from '../events.js';
import { allInstanceIds, eventStreamSession } from '../resolvers/event-stream-token.js';
import { type FeedEvent, type MercureFeed, mercureFeeds } from './mercure-feeds.js';
import { coveredTopics, type Topic, topicSelectors } from './mercure-topics.js';
import { sendProblem } from './router.js';

/**
 * One event as sent: its id — an IRI, the history's prefix and the event's id there: `urn:uuid:<UUIDv7>` in
 * process, `urn:connectivity-gateway:event:<entry id>` in shared mode (the Redis stream entry id: global over
 * the instances, ordered) — its id in the history, and the serialised `data` line.
 */
interface StreamEvent {
  id: string;
  historyId: string;
  data: string;
}

/**
 * The live events of one instance's topic and the connections reading them: it listens to the event bus from
 * its first connection on and stops listening when its last one leaves (issue 34). The history that
 * `Last-Event-ID` replays is kept apart, by the event bus ({@link EventHistory}), so it outlives the stream.
 */
interface TopicStream {
  topic: string;
  feed: MercureFeed;
  clients: Set<ServerResponse>;
  stop(): Promise<void>;
}

/** The reserved last event id that asks for the whole kept history (Mercure spec, "Reconciliation"). */
const EARLIEST = 'earliest';
/** Longest timer Node keeps (about 24.8 days); a token living longer is not timed out. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const mercureClaims = z.object({
  exp: z.number().optional(),
  mercure: z.object({ subscribe: z.array(z.string()) }),
});

/** What a verified subscriber token allows: the claim's topic selectors, and when it expires (ms). */
interface SubscriberToken {
  subscribe: string[];
  expiresAtMs: number | null;
  /** The auth token and application it was minted from, or null for a token that names none. */
  session: Session | null;
}

/**
 * A Mercure hub's subscriber side (`GET /.well-known/mercure`) for REST callers, authorised by the `sse_jwt`
 * (DESIGN.md, "Event stream (REST)"; the Mercure spec, https://mercure.rocks/spec):
 * - `topic` gives one or more topic selectors — exact topics, `*`, or URI templates; an instance's events
 *   (topics `<instance_id>/availability_request` and `<instance_id>/order`, always private) reach a
 *   subscriber only where a `topic` selector and a selector of the token's `mercure.subscribe` claim both
 *   match that topic, so a token of one instance never receives another's, nor a kind it does not name;
 * - each event's `data` is its record as REST reads it ({@link mercureFeeds}): an availability request
 *   exactly as one list record, an order exactly as `GET /orders/{id}`'s `data`; its `id` is an IRI;
 * - `Last-Event-ID` (header, or the `lastEventID` query parameter) replays what followed that event, over all
 *   the covered topics in the order they were published, from a bounded per-topic history, `earliest` (or
 *   an id no longer kept) the whole kept history, and the response's `Last-Event-ID` header names the event
 *   before the first one sent, or `earliest`;
 * - the history is the event bus's, written as events are published whether or not anyone listens: in
 *   process, or in shared mode (`REDIS_URL`, issue 17) Redis's (`RedisEventHistory`), whose ids are its entry
 *   ids, so a client reconnecting to another instance gets exactly the events it missed, once;
 * - a topic's listener on the event bus lives while it has connections, no longer;
 * - the stream ends when the token expires (its `exp`), or when the auth token it was minted from is revoked
 *   or its application disabled, on any instance (issue 34); such a token is refused from then on.
 */
export class MercureHub {
  private readonly streams = new Map<string, TopicStream>();
  private readonly connections = new Set<ServerResponse>();
  /** Live events for connections still reading their replay. */
  private readonly replaying = new Map<ServerResponse, StreamEvent[]>();
  /**
   * Per connection, the newest history id it has after its replay. In shared mode a live event comes by the
   * events stream's connection, the replay by the command connection, and the process may read the first
   * after the second: an event at or before this id reaching it live after the replay was sent is not sent
   * again. The mark goes with the first live event after it (the stream delivers in the history's order).
   */
  private readonly replayedUpTo = new Map<ServerResponse, string>();
  private closed = false;
  private readonly history: EventHistory;
  /** The open streams by the session of their token: ended when it is revoked (issue 34). */
  private readonly revocable: OpenSessions<ServerResponse>;

  constructor(
    private readonly services: Services,
    private readonly options: { keepAliveMs: number },
  ) {
    this.history = services.events.target.history;
    this.revocable = services.revocations.sessions<ServerResponse>((res) => res.end());
  }

  /** Connections open right now, over all instances. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Serves one subscriber. Answers problem+json and sends no event: 405 for a method other than GET;
   * 422 for no `topic`, or more or longer ones than {@link topicSelectors} takes; 401 for a missing,
   * expired, badly signed or `alg: none` token; 403 when the token grants none of the topics the selectors
   * match (Mercure spec, "Authorization").
   */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    try {
      if (req.method !== 'GET') {
        res.setHeader('allow', 'GET');
        throw new AppError('METHOD_NOT_ALLOWED', 'Subscribe with GET.');
      }
      const selectors = topicSelectors(url);
      const token = await this.verifiedToken(req, url);
      const topics = await coveredTopics(selectors, token.subscribe, () => allInstanceIds(this.services));
      if (topics.length === 0) {
        throw new AppError('FORBIDDEN', 'The token grants none of the topics the selectors match.');
      }
      if (this.closed) throw new AppError('INTERNAL', 'The event stream is shutting down.');
      await this.subscribe(topics, token, req, res, url);
    } catch (error) {
      sendProblem(res, error, () => this.services.logger);
    }
  }

  /** Ends every stream and stops listening to the event bus. */
  async close(): Promise<void> {
    this.closed = true;
    for (const stream of this.streams.values()) await stream.stop();
    this.streams.clear();
    for (const client of this.connections) client.end();
    this.connections.clear();
  }

  /** The token's claims; every failure to find or verify one is one 401. */
  private async verifiedToken(req: IncomingMessage, url: URL): Promise<SubscriberToken> {
    // The Authorization header wins over the query parameter, which wins over the cookie (spec, "Authorization").
    const header = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    const token =
      header ??
      url.searchParams.get('authorization') ??
      parseCookie(req.headers.cookie ?? '').mercureAuthorization ??
      null;
    if (!token)
      throw new AppError(
        'UNAUTHENTICATED',
        'Send the sse_jwt as a Bearer token, authorization parameter or cookie.',
      );
    try {
      const { payload } = await jwtVerify(token, this.services.signingKey, {
        algorithms: ['HS256'],
        currentDate: this.services.clock.now(),
      });
      const claims = mercureClaims.parse(payload);
      return {
        subscribe: claims.mercure.subscribe,
        expiresAtMs: claims.exp === undefined ? null : claims.exp * 1000,
        // Refused (401) when its auth token was revoked or its application disabled (issue 34).
        session: await eventStreamSession(this.services, payload),
      };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof z.ZodError) {
        throw new AppError('UNAUTHENTICATED', 'The event-stream token is invalid or expired.');
      }
      throw error;
    }
  }

  /**
   * Joins the live streams first, holding what arrives, then reads the replay from the history, sends it,
   * and then the held events that came after its last one — so nothing falls in between. Nothing comes twice
   * either: an event the replay sent may still reach this process live afterwards (in shared mode it reads
   * two Redis connections in no fixed order), and {@link writeLive} drops it.
   */
  private async subscribe(
    topics: Topic[],
    token: SubscriberToken,
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
  ): Promise<void> {
    // The client may have left while its token was being checked: its close events have fired already.
    if (req.destroyed || res.destroyed) return;
    const { history } = this;
    const streams = topics.map((topic) => this.streamOf(topic));
    // The feed of each event bus type the replay reads, by which its entries are shaped.
    const feeds = new Map(
      topics.map(({ instanceId, kind }) => [mercureFeeds[kind].busType(instanceId), mercureFeeds[kind]]),
    );
    this.replaying.set(res, []);
    this.join(streams, token, req, res);
    const lastEventId = lastEventIdOf(req, url);
    try {
      const replay =
        lastEventId === null
          ? null
          : await history.after(
              [...feeds.keys()],
              lastEventId.startsWith(history.idPrefix) ? lastEventId.slice(history.idPrefix.length) : null,
            );
      if (res.destroyed || res.writableEnded) return;
      this.open(res, replay === null ? null : replay.found ? (lastEventId ?? EARLIEST) : EARLIEST);
      // The newest event the client has: the one it named when it is still kept, then each one replayed. A live
      // event at or before it — one that reached this instance late — is not written again.
      let last: string | null =
        replay?.found && lastEventId ? lastEventId.slice(history.idPrefix.length) : null;
      for (const entry of replay?.entries ?? []) {
        const feed = feeds.get(entry.type);
        const sent = feed ? this.streamEvent(entry.id, feed, entry.detail) : null;
        if (sent) res.write(format(sent));
        last = entry.id;
      }
      const held = this.replaying.get(res) ?? [];
      this.replaying.delete(res);
      if (last !== null) this.replayedUpTo.set(res, last);
      for (const event of held) this.writeLive(res, event);
    } finally {
      this.replaying.delete(res);
    }
  }

  /**
   * Writes a live event to `res`, unless the connection already has it: its history id is at or before the
   * newest one the connection's replay sent ({@link replayedUpTo}).
   */
  private writeLive(res: ServerResponse, event: StreamEvent, text = format(event)): void {
    const mark = this.replayedUpTo.get(res);
    if (mark !== undefined) {
      if (this.history.compare(event.historyId, mark) <= 0) return;
      this.replayedUpTo.delete(res);
    }
    res.write(text);
  }

  /**
   * An event as sent: its history id as an IRI, and its document (see {@link MercureFeed.document}); null,
   * logged, for a payload that cannot be shaped — it is skipped, rather than ending the topic's stream.
   */
  private streamEvent(historyId: string, feed: MercureFeed, detail: unknown): StreamEvent | null {
    try {
      return {
        id: `${this.history.idPrefix}${historyId}`,
        historyId,
        data: JSON.stringify(feed.document(detail)),
      };
    } catch (error) {
      this.services.logger.error(
        { err: error, eventId: historyId },
        'event not sent: its payload is malformed',
      );
      return null;
    }
  }

  /** Answers 200 with the stream's headers and its first comment. */
  private open(res: ServerResponse, preceding: string | null): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...(preceding === null ? {} : { 'last-event-id': preceding }),
    });
    res.write(':\n\n');
  }

  /**
   * Adds `res` to the live streams, with its keep-alive comments, its end at the token's expiry and its end
   * when the token's session is revoked.
   */
  private join(
    streams: TopicStream[],
    token: SubscriberToken,
    req: IncomingMessage,
    res: ServerResponse,
  ): void {
    const { expiresAtMs, session } = token;
    for (const stream of streams) stream.clients.add(res);
    this.connections.add(res);
    if (session) this.revocable.add(res, session);
    const keepAlive = setInterval(() => {
      if (!this.replaying.has(res)) res.write(': keep-alive\n\n');
    }, this.options.keepAliveMs);
    const untilExpiry = expiresAtMs === null ? null : expiresAtMs - this.services.clock.now().getTime();
    const expiry =
      untilExpiry !== null && untilExpiry < MAX_TIMER_MS ? setTimeout(() => res.end(), untilExpiry) : null;
    const release = () => {
      clearInterval(keepAlive);
      if (expiry) clearTimeout(expiry);
      for (const stream of streams) this.leave(stream, res);
      this.connections.delete(res);
      this.replaying.delete(res);
      this.replayedUpTo.delete(res);
      this.revocable.delete(res);
    };
    req.once('close', release);
    res.once('close', release);
  }

  /** The topic's stream, listening to the event bus from its first connection on. */
  private streamOf({ topic, instanceId, kind }: Topic): TopicStream {
    const existing = this.streams.get(topic);
    if (existing) return existing;
    const feed = mercureFeeds[kind];
    const source = feed.listen(this.services.events, instanceId);
    const stream: TopicStream = {
      topic,
      feed,
      clients: new Set(),
      stop: async () => void (await source.return?.()),
    };
    this.streams.set(topic, stream);
    void (async () => {
      for await (const event of source) this.deliver(stream, event);
    })().catch((error: unknown) => this.services.logger.error({ err: error }, 'event stream stopped'));
    return stream;
  }

  /** Takes `res` off `stream`; the stream's listener goes with its last connection. */
  private leave(stream: TopicStream, res: ServerResponse): void {
    stream.clients.delete(res);
    if (stream.clients.size > 0 || this.streams.get(stream.topic) !== stream) return;
    this.streams.delete(stream.topic);
    void stream.stop();
  }

  private deliver(stream: TopicStream, event: FeedEvent): void {
    // Every published event has its history id (`publishAll`); one published around the history has none.
    if (event.eventId === undefined) return;
    const sent = this.streamEvent(event.eventId, stream.feed, event);
    if (!sent) return;
    const text = format(sent);
    for (const client of stream.clients) {
      const held = this.replaying.get(client);
      if (held) held.push(sent);
      else this.writeLive(client, sent, text);
    }
  }
}

/** The `Last-Event-ID` header, else the `lastEventID` query parameter, else null. */
function lastEventIdOf(req: IncomingMessage, url: URL): string | null {
  const header = req.headers['last-event-id'];
  return typeof header === 'string' ? header : url.searchParams.get('lastEventID');
}

function format(event: StreamEvent): string {
  return `id: ${event.id}\ndata: ${event.data}\n\n`;
}
