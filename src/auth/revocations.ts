import { z } from 'zod';
import type { Logger } from '../logger.js';
import type { BroadcastCodec, RedisBroadcast } from '../redis/broadcast.js';

/*
 * Revocation of auth tokens and applications, as every process of a deployment hears it (issue 34).
 *
 * A revocation is written to the store first (`revokeAuthToken`, `setApplicationDisabled`), then announced
 * here: this process's listeners hear it at once, and in the shared mode (`REDIS_URL`) every other process
 * hears it through Redis (the channel `<prefix>revocations`). Listeners drop what they keep of the session —
 * the viewer cache's entries (`src/resolvers/authentication.ts`) — and the open sessions registered with
 * {@link Revocations.sessions} (graphql-ws sockets, GraphQL SSE streams, Mercure streams) are ended.
 *
 * Redis pub/sub is at most once: a process that was disconnected, or a message lost, would never hear of the
 * revocation. So nothing here relies on the message alone:
 * - the viewer cache re-reads a token from the store once its entry is {@link REVOCATION_RECHECK_MS} old;
 * - every {@link REVOCATION_RECHECK_MS} the open sessions of the process are checked against the store in
 *   one read (`findRevokedTokens`), and those cut off are ended;
 * - when the Redis connection comes back after a loss, both happen at once (the cache is emptied, the
 *   sessions are checked).
 * A lost message therefore costs at most {@link REVOCATION_RECHECK_MS}; a delivered one ends everything
 * within the time Redis takes to pass it on.
 */

/** How long a lost revocation message may go unnoticed: the period of the store checks, in ms. */
export const REVOCATION_RECHECK_MS = 5_000;

/** What a session was authenticated with: an auth token (by its id) of an application. */
export interface Session {
  /** The auth token's id (`tok_…`), never the token itself. */
  tokenId: string;
  applicationId: string;
}

/**
 * A revocation as it is announced: one auth token (`DELETE /authentication`, `revokeAuthToken`), or
 * every token of an application an operator disabled (`application disable`, `disableApplication`).
 */
export type Revocation =
  | { kind: 'token'; tokenId: string; applicationId: string; instanceId: string }
  | { kind: 'application'; applicationId: string; instanceId: string };

/** Whether `revocation` cuts `session` off: the same token, or any token of the disabled application. */
export function covers(revocation: Revocation, session: Session): boolean {
  return revocation.kind === 'token'
    ? revocation.tokenId === session.tokenId
    : revocation.applicationId === session.applicationId;
}

const revocationSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('token'),
    tokenId: z.string().min(1),
    applicationId: z.string().min(1),
    instanceId: z.string().min(1),
  }),
  z.strictObject({
    kind: z.literal('application'),
    applicationId: z.string().min(1),
    instanceId: z.string().min(1),
  }),
]);

/** How a revocation travels through Redis: JSON, checked on arrival (a malformed message is dropped). */
export const revocationCodec: BroadcastCodec<Revocation> = {
  encode: (revocation) => JSON.stringify(revocation),
  decode: (message) => revocationSchema.parse(JSON.parse(message)),
};

/**
 * The open sessions of one kind (graphql-ws sockets, SSE streams, Mercure responses), each under a key of
 * the caller's (the socket, the response, …). A session covered by an announced revocation, or found cut
 * off by the periodic store check, is ended with `end(key)` and forgotten. Forget a session yourself with
 * {@link delete} when it closes for any other reason.
 */
export class OpenSessions<K extends object> {
  private readonly open = new Map<K, Session>();

  /**
   * @param changed called after the number of open sessions changed (the owner runs its store checks only
   *   while there are any).
   */
  constructor(
    private readonly end: (key: K) => void,
    private readonly logger: Logger,
    private readonly changed: () => void = () => {},
  ) {}

  /** Open sessions right now. */
  get size(): number {
    return this.open.size;
  }

  /** Registers `key`'s session; a key registered again takes the new session. */
  add(key: K, session: Session): void {
    this.open.set(key, session);
    this.changed();
  }

  /** Forgets `key` (its connection closed); nothing happens for a key not registered. */
  delete(key: K): void {
    if (this.open.delete(key)) this.changed();
  }

  /** Ends and forgets every session `revocation` covers. */
  endCovered(revocation: Revocation): void {
    for (const [key, session] of this.open) if (covers(revocation, session)) this.endOne(key);
  }

  /** Ends and forgets every session whose token is among `revokedTokenIds`. */
  endRevoked(revokedTokenIds: ReadonlySet<string>): void {
    for (const [key, session] of this.open) if (revokedTokenIds.has(session.tokenId)) this.endOne(key);
  }

  /** Adds the token id of every open session to `into`. */
  collectTokenIds(into: Set<string>): void {
    for (const session of this.open.values()) into.add(session.tokenId);
  }

  private endOne(key: K): void {
    this.open.delete(key);
    this.changed();
    try {
      this.end(key);
    } catch (error) {
      this.logger.warn({ err: error }, 'could not end a revoked session');
    }
  }
}

/** What {@link Revocations} is built from. */
export interface RevocationsOptions {
  /** The shared mode's channel (`services.redis.broadcast('revocations', revocationCodec, …)`), or null. */
  broadcast: RedisBroadcast<Revocation> | null;
  /** Of these token ids, those cut off for good (the store's `findRevokedTokens`). */
  findRevokedTokens: (tokenIds: readonly string[]) => Promise<string[]>;
  logger: Logger;
  /** Period of the store checks, in ms; {@link REVOCATION_RECHECK_MS} unless given. */
  recheckMs?: number;
}

/**
 * This process's end of the revocations (`services.revocations`): announces them, tells listeners and ends
 * the open sessions they cover; checks the open sessions against the store every `recheckMs` while there
 * are any (see the module's comment) — an idle process runs no timer. {@link close} stops the checks and
 * listening to Redis.
 */
export class Revocations {
  private readonly listeners = new Set<(revocation: Revocation) => void>();
  private readonly resyncListeners = new Set<() => void>();
  private readonly sessionSets = new Set<OpenSessions<object>>();
  private timer: NodeJS.Timeout | null = null;
  private readonly stopListening: (() => void) | null;
  private checking: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: RevocationsOptions) {
    this.stopListening = options.broadcast?.listen((revocation) => this.apply(revocation)) ?? null;
  }

  /**
   * Tells every process of a revocation already written to the store: this process's listeners and
   * sessions at once, the others through Redis (in the shared mode; a failed publish is logged, and the
   * others notice within {@link REVOCATION_RECHECK_MS} anyway).
   */
  announce(revocation: Revocation): void {
    this.apply(revocation);
    this.options.broadcast?.publish(revocation);
  }

  /**
   * Calls `listener` with every revocation this process hears (its own and, in the shared mode, every other
   * process's; one may come twice). Returns the function that stops it. A lost message is not replayed:
   * listeners that keep sessions should register them with {@link sessions} instead, which are also checked
   * against the store.
   */
  listen(listener: (revocation: Revocation) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Calls `listener` whenever revocations may have been missed (the Redis connection came back after a
   * loss): what it keeps must be read from the store again. Returns the function that stops it.
   */
  onResync(listener: () => void): () => void {
    this.resyncListeners.add(listener);
    return () => this.resyncListeners.delete(listener);
  }

  /**
   * A registry of open sessions of one kind, ended with `end(key)` when revoked (announced here, or found by
   * the store check). E.g. for Mercure streams: `sessions<ServerResponse>((res) => res.end())`.
   */
  sessions<K extends object>(end: (key: K) => void): OpenSessions<K> {
    const set = new OpenSessions<K>(end, this.options.logger, () => this.sessionsChanged());
    this.sessionSets.add(set as unknown as OpenSessions<object>);
    return set;
  }

  /** Open sessions over every registry, for tests and metrics. */
  get openSessions(): number {
    let count = 0;
    for (const set of this.sessionSets) count += set.size;
    return count;
  }

  /**
   * Revocations may have been missed (Redis came back after a loss): tells the {@link onResync} listeners
   * and checks every open session against the store now.
   */
  resync(): Promise<void> {
    for (const listener of this.resyncListeners) this.safely(() => listener());
    return this.recheck();
  }

  /**
   * Checks every open session against the store in one read and ends those whose token was revoked or
   * whose application was disabled. One check at a time: a call while one runs waits for that one. A
   * failed read is logged (the next period tries again).
   */
  recheck(): Promise<void> {
    this.checking ??= this.checkOnce().finally(() => {
      this.checking = null;
    });
    return this.checking;
  }

  /** Stops the periodic checks and listening to Redis (the connections are the services' to close). */
  close(): void {
    this.closed = true;
    this.stopTimer();
    this.stopListening?.();
    this.listeners.clear();
    this.resyncListeners.clear();
  }

  /** Runs the periodic store checks while sessions are open, and no timer otherwise. */
  private sessionsChanged(): void {
    const open = this.openSessions > 0;
    if (open && this.timer === null && !this.closed) {
      this.timer = setInterval(() => {
        void this.recheck();
      }, this.options.recheckMs ?? REVOCATION_RECHECK_MS);
      // The checks never keep a process alive on their own (the CLI, a stopped server).
      this.timer.unref();
    } else if (!open) this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private async checkOnce(): Promise<void> {
    const tokenIds = new Set<string>();
    for (const set of this.sessionSets) set.collectTokenIds(tokenIds);
    if (tokenIds.size === 0) return;
    try {
      const revoked = new Set(await this.options.findRevokedTokens([...tokenIds]));
      if (revoked.size === 0) return;
      for (const set of this.sessionSets) set.endRevoked(revoked);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not check open sessions for revocations');
    }
  }

  private apply(revocation: Revocation): void {
    for (const listener of this.listeners) this.safely(() => listener(revocation));
    for (const set of this.sessionSets) set.endCovered(revocation);
  }

  private safely(run: () => void): void {
    try {
      run();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'a revocation listener failed');
    }
  }
}
