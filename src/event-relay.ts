import type { Clock } from './clock.js';
import type { OutboxEvent } from './db/rows.js';
import type { Store } from './db/store.js';
import type { Logger } from './logger.js';

/** How the relay works and where it publishes. */
export interface EventRelayOptions {
  db: Pick<Store, 'claimEventRelay' | 'releaseEventRelay' | 'listOutboxEvents' | 'deleteOutboxEvents'>;
  /**
   * Publishes events in the order given, resolving once each is out (in the bus's history and handed to its
   * transport) or failed: with whether each was published. Those that failed are tried again.
   */
  publish(events: readonly OutboxEvent[]): Promise<boolean[]>;
  /** This process's name on the lease (unique per process). */
  owner: string;
  clock: Clock;
  logger: Logger;
  /** How long the lease lasts unless renewed (ms): the longest events wait when the relay's process dies. */
  leaseMs: number;
  /** Longest wait between two looks at the outbox when nothing nudges the relay (ms). */
  pollMs: number;
  /** Events read, published and deleted at a time. */
  batchSize?: number;
  /**
   * Called when this process was nudged but another holds the lease: tells that one (through Redis in
   * the shared mode) that events are waiting, so they go out at once instead of at its next poll.
   */
  wakeLeader?(): void;
}

/** Longest pause after failures in a row (ms), e.g. while Redis or the database is away. */
const MAX_BACKOFF_MS = 2_000;

/**
 * How long a woken relay waits before its round (ms), so that a burst of writes (a create of 100 requests,
 * a worker's completion batches) goes out in one round — one read and one delete — rather than one each.
 */
const LINGER_MS = 5;

/**
 * The outbox's relay (issue 34, "events written with the state they report"): publishes the events the
 * store wrote with each change (`EventOperations`), after their commit, at least once and in order, then
 * deletes them. One relay publishes at a time over all the processes of a deployment: the one holding the
 * store's relay lease, renewed while it works; another process takes the lease over once it expired, and
 * relays the backlog from the oldest event on. So an event is delayed, never lost, by a process killed
 * between its commit and its publish, by a relay killed with a backlog, or by a Redis that is down (the
 * publish fails, the events stay and are tried again with backoff).
 *
 * An event published but not deleted (the relay died between the two) is published again by the next
 * relay; the bus recognises it by its subject's version (the Redis publish script drops an event not newer
 * than the last one of its subject), and within one process the relay never publishes an id twice.
 */
export class EventRelay {
  private readonly batchSize: number;
  private stopped = true;
  private running: Promise<void> | null = null;
  /** Set by a nudge while a round runs: run another one at once. */
  private again = false;
  private nudged = false;
  private wake: (() => void) | null = null;
  private leaseUntil = 0;
  /** When another process last held the lease as far as this one saw (ms), or 0. */
  private refusedAt = 0;
  private failures = 0;
  /** Published, not yet deleted (the delete failed): deleted, not published, in the next round. */
  private readonly published = new Set<number>();

  constructor(private readonly options: EventRelayOptions) {
    this.batchSize = options.batchSize ?? 500;
  }

  /** Whether this process holds the relay lease, as far as it knows. */
  get leader(): boolean {
    return this.leaseUntil > this.options.clock.now().getTime();
  }

  /** Starts relaying: a first round now, then on every nudge and every `pollMs`. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.loop();
  }

  /** Events were written in this process: relay them now (or tell the lease holder). */
  nudge(): void {
    if (this.stopped) {
      // Not relaying here (`EVENT_RELAY=off`, or stopping): the lease holder is told at once.
      this.options.wakeLeader?.();
      return;
    }
    this.nudged = true;
    this.wakeUp();
  }

  /** Another process wrote events: relay them now when this process holds the lease (it tells no one). */
  wakeUp(): void {
    this.again = true;
    this.wake?.();
  }

  /**
   * Stops after a last round — so what this process committed before is published, when it holds the
   * lease — and gives the lease back, so another process takes over without waiting for its expiry.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.wake?.();
    await this.running;
    try {
      if (this.leader) await this.round();
    } catch (error) {
      this.options.logger.warn(
        { err: error },
        'event relay: last round failed; events wait for the next relay',
      );
    }
    if (this.leaseUntil > 0) {
      this.leaseUntil = 0;
      await this.options.db.releaseEventRelay(this.options.owner).catch((error: unknown) => {
        this.options.logger.warn({ err: error }, 'event relay: could not give the lease back');
      });
    }
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.again = false;
      try {
        await this.round();
        this.failures = 0;
      } catch (error) {
        this.failures += 1;
        if (this.failures === 1)
          this.options.logger.warn({ err: error }, 'event relay: round failed; retrying');
      }
      if (this.stopped) break;
      if (!this.again || this.failures > 0) {
        const pause =
          this.failures > 0
            ? Math.min(MAX_BACKOFF_MS, 50 * 2 ** Math.min(this.failures - 1, 10))
            : this.options.pollMs;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, pause);
          function done() {
            clearTimeout(timer);
            resolve();
          }
          this.wake = done;
        });
        this.wake = null;
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
    }
  }

  /** Renews or takes the lease when due; relays everything waiting while it holds it. */
  private async round(): Promise<void> {
    const nudged = this.nudged;
    this.nudged = false;
    if (!(await this.holdLease())) {
      if (nudged) this.options.wakeLeader?.();
      return;
    }
    for (;;) {
      const waiting = await this.options.db.listOutboxEvents(this.batchSize);
      const fresh = waiting.filter((event) => !this.published.has(event.id));
      if (fresh.length > 0) {
        // Renewed before a publish that may take a while (Redis slow or away).
        if (!(await this.holdLease())) return;
        const published = await this.options.publish(fresh);
        for (const [index, event] of fresh.entries()) if (published[index]) this.published.add(event.id);
        if (published.length !== fresh.length || published.includes(false))
          throw new Error(`${published.filter((done) => !done).length} events could not be published`);
      }
      const ids = waiting.map((event) => event.id);
      await this.options.db.deleteOutboxEvents(ids);
      for (const id of ids) this.published.delete(id);
      if (waiting.length < this.batchSize || this.stopped) return;
    }
  }

  /**
   * Whether this process holds the lease, renewing it once half of it has run. Refused, it asks again only
   * after `pollMs`: a process that writes events often (a worker) then only wakes the holder, and costs the
   * database no claim per write.
   */
  private async holdLease(): Promise<boolean> {
    const { clock, leaseMs, owner, pollMs } = this.options;
    const now = clock.now();
    const nowMs = now.getTime();
    if (this.leaseUntil - nowMs > leaseMs / 2) return true;
    if (this.leaseUntil === 0 && nowMs - this.refusedAt < pollMs) return false;
    const held = await this.options.db.claimEventRelay(owner, now, leaseMs);
    this.leaseUntil = held ? nowMs + leaseMs : 0;
    this.refusedAt = held ? 0 : nowMs;
    return held;
  }
}
