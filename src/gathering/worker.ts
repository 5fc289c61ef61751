import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { ChangedRequest, ClaimedTask, SourceType } from '../db/rows.js';
import type { Store } from '../db/store.js';
import { type RecoveredWrite, StoreRecovery } from '../db/store-recovery.js';
import { isStoreUnavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import { eventTraceContext, inStoredTrace } from '../telemetry/trace-context.js';
import { attemptFailure, retryDelayMs } from './attempt-failure.js';
import { CompletionBatches } from './completion-batches.js';
import { offerMatchesFilters } from './filters.js';
import { salePrices } from './pricing.js';
import { type SourceAdapter, type SourceAnswer, SourceError } from './sources/types.js';

/** Settings and collaborators of a {@link GatheringWorker}. */
export interface GatheringWorkerOptions {
  db: Store;
  logger: Logger;
  clock: Clock;
  adapters: ReadonlyMap<SourceType, SourceAdapter>;
  /** Tasks run at once. */
  concurrency: number;
  /** Lease length; a task whose worker died is reclaimed after it. */
  leaseMs: number;
  /** Attempts per task before it ends as failed. */
  maxAttempts: number;
  /**
   * Called after every change of a request's status or progress, with the changes of one claim, one
   * completion batch or one failed attempt together (in the order made; never empty). Their events are in
   * the outbox already, written with them: the observer only tells the relay.
   */
  onChanges(changes: readonly ChangedRequest[]): void;
  /** Longest sleep between two looks at the queue when nothing wakes the worker (ms). */
  idlePollMs?: number;
  /** Observes every attempt that ends in this worker (not those a stop interrupts), e.g. for metrics. */
  onTaskSettled?(info: GatheringTaskSettled): void;
}

/**
 * How one attempt at a task ended, as this worker decided it: `succeeded` (offers handed to storage),
 * `retried` (back in the queue) or `failed` (final). `durationMs` is the wall time of the source's `fetchOffers`
 * (up to its failure, when it failed), not of the whole attempt.
 */
export interface GatheringTaskSettled {
  sourceKey: string;
  outcome: 'succeeded' | 'failed' | 'retried';
  durationMs: number;
}

export { retryDelayMs } from './attempt-failure.js';

/**
 * A claimed task with the lease owner of its claim (`<worker owner>:<claim number>`): every write of the
 * attempt (its completion, its failure, its give-back) is fenced on it. A lease is a claim's, not the
 * worker's: after a store outage longer than a lease, this same worker may claim a task again while the
 * attempt of its earlier claim still waits to write; fenced on the worker alone, that attempt's give-back
 * would release the new claim and the task would run a third time (issue 48).
 */
type LeasedTask = ClaimedTask & { owner: string };

/**
 * The in-process gathering worker pool. It claims durable tasks with a lease, asks each task's source
 * adapter for offers, keeps those inside the request's filters, prices them with the request's price
 * plan (purchase and sale prices are both kept), and stores them with the task's
 * completion — and the adapter's note on what it left out, when it gives one (`fetchAnswer`) — in one
 * transaction (see `completeTasks`). Tasks survive restarts: a graceful stop gives its
 * leases back, a crash leaves them to expire.
 *
 * A store that cannot be reached (issue 48: a PostgreSQL restart, a busy or full SQLite file) is never a
 * source's failure: the worker pauses (no claims) until the store answers again ({@link StoreRecovery}),
 * then stores the completions and failed attempts it holds, fenced by their leases as ever; an attempt the
 * outage interrupted (a catalogue source reads the store) gives its lease back without counting. Nothing
 * of it rejects unhandled.
 */
export class GatheringWorker {
  /** The worker's name in its leases: each claim holds them as `<owner>:<claim number>` (see {@link LeasedTask}). */
  readonly owner = `worker_${randomUUID()}`;
  /** Claims made so far: the number in each claim's lease owner. */
  private claims = 0;
  /** The attempts under way, by their leased task (one object per claim of a task). */
  private readonly inFlight = new Map<LeasedTask, Promise<void>>();
  private readonly stopController = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private pumping = false;
  /** The claim loop while it runs: `stop()` waits for it, so no claim commits after the leases are given back. */
  private pumpRun: Promise<void> | null = null;
  private pumpAgain = false;
  private pumpScheduled = false;
  /** Finished tasks' products, stored by group commit. */
  private readonly completions: CompletionBatches;

  /** The pause while the store is down, shared by the claim loop and every running task. */
  private readonly recovery: StoreRecovery;

  constructor(private readonly options: GatheringWorkerOptions) {
    this.recovery = new StoreRecovery(options.db, options.logger, 'gathering', this.stopController.signal);
    this.completions = new CompletionBatches(options.db, (changed) => this.tell(changed));
  }

  /** Whether the worker claims tasks: started and not stopped. */
  get running(): boolean {
    return this.started && !this.stopController.signal.aborted;
  }

  /** Starts claiming tasks. */
  start(): void {
    this.started = true;
    this.wake();
  }

  /**
   * Looks at the queue soon (new tasks were created, or a task finished); ignored before {@link start}
   * and after {@link stop}. Wake-ups within one turn of the event loop — say, several tasks finishing
   * together — lead to one claim for all the free slots, not one claim each.
   */
  wake(): void {
    if (!this.started || this.stopController.signal.aborted) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      if (this.stopController.signal.aborted) return;
      if (this.pumping) this.pumpAgain = true;
      else this.pumpRun = this.pump();
    });
  }

  /**
   * Stops claiming, aborts the running attempts and gives their leases back. When the database cannot be
   * reached, the leases are left to expire (another worker reclaims them then) and the failure is logged.
   */
  async stop(): Promise<void> {
    this.stopController.abort(new Error('gathering worker stopped'));
    if (this.timer) clearTimeout(this.timer);
    // A claim may be on its way to the database (PostgreSQL answers asynchronously): let it commit first, so
    // that the tasks it leases are run (and aborted at once) and given back below, not left to expire.
    await this.pumpRun;
    await Promise.allSettled(this.inFlight.values());
    try {
      // Every claim's leases at once: an attempt the stop aborted returned without giving its lease back.
      const released = await this.options.db.releaseTasks(this.owner, this.options.clock.now());
      if (released > 0) this.options.logger.info({ released }, 'gathering leases released');
    } catch (error) {
      this.options.logger.warn({ err: error }, 'gathering leases not released; they expire instead');
    }
  }

  private async pump(): Promise<void> {
    // Paused for a store outage: the recovery wakes the worker when the store is back.
    if (this.recovery.paused) return;
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        const free = this.options.concurrency - this.inFlight.size;
        // Every slot is busy: a finishing task wakes the worker again.
        if (free <= 0) break;
        this.claims += 1;
        const owner = `${this.owner}:${this.claims}`;
        const { claimed, changed } = await this.options.db.claimTasks({
          owner,
          now: this.options.clock.now(),
          leaseMs: this.options.leaseMs,
          limit: free,
          maxAttempts: this.options.maxAttempts,
        });
        if (changed.length > 0) this.tell(changed);
        for (const task of claimed) this.track({ ...task, owner });
        if (claimed.length === free) this.pumpAgain = true;
      } while (this.pumpAgain && !this.stopController.signal.aborted);
      // With free slots, look again when the next queued task is due; when busy, the idle poll is only a
      // safety net (expired leases of crashed workers, wake-ups from other processes).
      if (this.inFlight.size < this.options.concurrency) await this.scheduleNextLook();
      else this.schedule(this.options.idlePollMs ?? 1000);
    } catch (error) {
      if (isStoreUnavailable(error)) {
        void this.recovery.waitUntilBack(error).then((back) => {
          if (back) this.wake();
        });
      } else {
        this.options.logger.error({ err: error }, 'gathering worker could not claim tasks');
        this.schedule(1000);
      }
    } finally {
      this.pumping = false;
    }
  }

  private async scheduleNextLook(): Promise<void> {
    const idle = this.options.idlePollMs ?? 1000;
    const due = await this.options.db.nextTaskDueAt();
    const untilDue = due ? due.getTime() - this.options.clock.now().getTime() : idle;
    // Expired leases of crashed workers become claimable without any wake-up: the idle poll finds them.
    this.schedule(Math.max(0, Math.min(idle, untilDue)));
  }

  private schedule(delayMs: number): void {
    if (this.stopController.signal.aborted) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), delayMs);
    this.timer.unref();
  }

  private track(task: LeasedTask): void {
    // The task's span continues the trace of the request that queued it (issue 37); without tracing, just the run.
    const run = inStoredTrace(
      task.traceContext,
      'gathering task',
      {
        'gateway.gathering.task_id': task.taskId,
        'gateway.gathering.attempt': task.attempts,
        'gateway.source.key': task.source.key,
        'gateway.source.type': task.source.type,
        'gateway.availability_request.id': task.request.id,
      },
      () => this.run(task),
    ).finally(() => {
      this.inFlight.delete(task);
      this.wake();
    });
    this.inFlight.set(task, run);
  }

  /** Runs one attempt; nothing escapes it (it is kept in `inFlight`, and `stop()` waits for it). */
  private async run(task: LeasedTask): Promise<void> {
    try {
      await this.attempt(task);
    } catch (error) {
      this.options.logger.error({ err: error, taskId: task.taskId }, 'gathering task ended unexpectedly');
    }
  }

  private async attempt(task: LeasedTask): Promise<void> {
    const { clock, logger } = this.options;
    // Created only when there is something to log: a child logger per task costs more than the task's SQL.
    const log = () =>
      logger.child({ taskId: task.taskId, source: task.source.key, requestId: task.request.id });
    const adapter = this.options.adapters.get(task.source.type);
    // An attempt must end well inside its lease, or another worker could take the task over meanwhile.
    const signal = AbortSignal.any([
      this.stopController.signal,
      AbortSignal.timeout(Math.floor(this.options.leaseMs * 0.8)),
    ]);
    const startedAt = performance.now();
    let answer: SourceAnswer;
    try {
      if (!adapter)
        throw new SourceError('NO_ADAPTER', `No adapter for source type ${task.source.type}.`, false);
      const query = { source: task.source, request: task.request, address: task.address, signal };
      answer = adapter.fetchAnswer
        ? await adapter.fetchAnswer(query)
        : { offers: await adapter.fetchOffers(query), note: null };
    } catch (error) {
      if (this.stopController.signal.aborted) return;
      if (isStoreUnavailable(error)) return this.interrupted(task, error);
      return this.failAttempt(task, error, signal.aborted, performance.now() - startedAt, log);
    }
    const fetchMs = performance.now() - startedAt;
    const products = answer.offers
      .filter((offer) => offerMatchesFilters(offer, task.request.filters))
      .map((offer) => ({
        ...offer,
        orderTerms: offer.orderTerms ?? null,
        ...salePrices(task.pricingPlan, offer),
      }));
    let stored: RecoveredWrite<ChangedRequest | null>;
    try {
      // Kept until the store takes it: the supplier answered, and an outage must not cost its answer.
      stored = await this.recovery.retry(() =>
        this.completions.add({
          taskId: task.taskId,
          owner: task.owner,
          now: clock.now(),
          products,
          note: answer.note,
          // The event of the request's change, in this task's trace (a batch holds tasks of several traces).
          traceContext: eventTraceContext('availabilityRequest:changed', [task.request.id]),
        }),
      );
    } catch (error) {
      if (this.stopController.signal.aborted) return;
      return this.failAttempt(task, error, false, fetchMs, log);
    }
    if (!stored.done) return;
    // The change was told with the rest of its completion batch.
    if (!stored.value) log().warn('lease lost before the task completed; its result was discarded');
    this.settled(task, 'succeeded', fetchMs);
  }

  /**
   * Records a failed attempt ({@link attemptFailure}): back in the queue after {@link retryDelayMs} while
   * attempts remain and the failure is retryable, else failed for good.
   */
  private async failAttempt(
    task: LeasedTask,
    error: unknown,
    timedOut: boolean,
    durationMs: number,
    log: () => Logger,
  ): Promise<void> {
    const failure = attemptFailure(error, timedOut);
    if (!(error instanceof SourceError)) log().warn({ err: error }, 'source attempt failed');
    const retry = failure.retryable && task.attempts < this.options.maxAttempts;
    const recorded = await this.recovery.retry(() => {
      const now = this.options.clock.now();
      return this.options.db.failTaskAttempt({
        taskId: task.taskId,
        owner: task.owner,
        now,
        code: failure.code,
        message: failure.message,
        retryAt: retry ? new Date(now.getTime() + retryDelayMs(task.attempts)) : null,
        // An attempt that ends the task writes its request's event, in this task's trace.
        traceContext: retry ? null : eventTraceContext('availabilityRequest:changed', [task.request.id]),
      });
    });
    if (!recorded.done) return;
    if (recorded.value) this.tell([recorded.value]);
    this.settled(task, retry ? 'retried' : 'failed', durationMs);
  }

  /**
   * An attempt the store's outage interrupted (its source reads the store): once the store is back, the
   * task's lease is given back without counting the attempt (`releaseTasks`), so it runs again at once —
   * here or on another worker — as if it had not started. When its lease was taken over meanwhile, there
   * is nothing to give back.
   */
  private async interrupted(task: LeasedTask, error: unknown): Promise<void> {
    if (!(await this.recovery.waitUntilBack(error))) return; // stopped: stop() gives every lease back
    const released = await this.recovery.retry(() =>
      this.options.db.releaseTasks(task.owner, this.options.clock.now(), [task.taskId]),
    );
    if (released.done) {
      this.options.logger.info(
        { taskId: task.taskId, released: released.value === 1 },
        'gathering attempt interrupted by the store outage; its lease given back',
      );
    }
  }

  /**
   * Tells the observer of changes; its failure must not stop a claim's tasks from running or a batch's
   * tasks from settling.
   */
  private tell(changes: readonly ChangedRequest[]): void {
    try {
      this.options.onChanges(changes);
    } catch (error) {
      this.options.logger.error({ err: error }, 'gathering change observer failed');
    }
  }

  /** Tells the observer; its failure must not turn a finished attempt into a failed one. */
  private settled(task: ClaimedTask, outcome: GatheringTaskSettled['outcome'], durationMs: number): void {
    try {
      this.options.onTaskSettled?.({ sourceKey: task.source.key, outcome, durationMs });
    } catch (error) {
      this.options.logger.error({ err: error }, 'gathering task observer failed');
    }
  }
}
