import { setTimeout as sleep } from 'node:timers/promises';
import { isStoreUnavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Store } from './store.js';

/** First wait before asking a store that failed whether it is back, in ms; doubled up to {@link MAX_DELAY_MS}. */
const FIRST_DELAY_MS = 250;
/** Longest wait between two questions to a store that is down, in ms. */
const MAX_DELAY_MS = 5_000;
/**
 * An outage met within this long of the last one's end goes on from the last one's back-off, without a
 * new warning: a store that answers `select 1` but still fails the loop's writes (a full disk, a lock held
 * for long) must not turn into a warning every 250 ms.
 */
const RELAPSE_MS = 30_000;

/** What {@link StoreRecovery.retry} gives: the write's value, or `done: false` when the loop stopped first. */
export type RecoveredWrite<T> = { done: true; value: T } | { done: false };

/**
 * Waits out an outage of the store for one loop of the process (the gathering worker, the order worker,
 * the outbox relay; issue 48): the first caller that meets a store error starts one wait, every other
 * caller joins it, and all resume together once the store answers `select 1` again — pinged after
 * 250 ms, doubling to every 5 s. One warning when the outage is met and one line when it ends, per loop,
 * not one per failed statement (nor per relapse within 30 s: the back-off goes on from where it was).
 */
export class StoreRecovery {
  private waiting: Promise<boolean> | null = null;
  /** The back-off and end time of the last wait, for a relapse (see {@link RELAPSE_MS}). */
  private last: { delayMs: number; endedAt: number } | null = null;

  /**
   * @param what the loop's name in the log lines, e.g. `gathering`.
   * @param signal ends every wait (the loop stops): they resolve `false` at once.
   */
  constructor(
    private readonly db: Pick<Store, 'ping'>,
    private readonly logger: Logger,
    private readonly what: string,
    private readonly signal: AbortSignal,
  ) {}

  /** Whether a wait is running (the loop should not start new work). */
  get paused(): boolean {
    return this.waiting !== null;
  }

  /**
   * Resolves `true` once the store answers again, `false` when the loop stopped first. Never rejects.
   *
   * @param error the store error that was met, for the warning of a new outage.
   */
  waitUntilBack(error: unknown): Promise<boolean> {
    if (this.waiting) return this.waiting;
    const relapse = this.last !== null && Date.now() - this.last.endedAt < RELAPSE_MS;
    const firstDelayMs =
      relapse && this.last ? Math.min(this.last.delayMs * 2, MAX_DELAY_MS) : FIRST_DELAY_MS;
    if (relapse) this.logger.debug({ err: error }, `the store failed again; ${this.what} paused`);
    else this.logger.warn({ err: error }, `the store is unavailable; ${this.what} paused until it answers`);
    this.waiting = this.poll(firstDelayMs, !relapse).finally(() => {
      this.waiting = null;
    });
    return this.waiting;
  }

  /**
   * Runs a store write, and again each time the store is back after an outage — for writes that are safe
   * to repeat (fenced by a lease, or idempotent). Errors other than the store's unavailability
   * (`isStoreUnavailable`) are thrown.
   *
   * @returns the write's value, or `done: false` when the loop stopped during an outage.
   */
  async retry<T>(write: () => Promise<T>): Promise<RecoveredWrite<T>> {
    for (;;) {
      try {
        return { done: true, value: await write() };
      } catch (error) {
        if (!isStoreUnavailable(error)) throw error;
        if (!(await this.waitUntilBack(error))) return { done: false };
      }
    }
  }

  private async poll(firstDelayMs: number, announceEnd: boolean): Promise<boolean> {
    const startedAt = Date.now();
    for (let delay = firstDelayMs; !this.signal.aborted; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
      try {
        await sleep(delay, undefined, { signal: this.signal, ref: false });
      } catch {
        return false; // stopped
      }
      if (await this.db.ping()) {
        this.last = { delayMs: delay, endedAt: Date.now() };
        if (announceEnd) {
          this.logger.info(
            { pausedMs: Date.now() - startedAt },
            `the store answers again; ${this.what} resumes`,
          );
        }
        return true;
      }
    }
    return false;
  }
}
