import type { Clock } from '../clock.js';
import type { ClaimedSupplierOrder, SupplierOrderProgress } from '../db/rows.js';
import type { Store } from '../db/store.js';
import { StoreRecovery } from '../db/store-recovery.js';
import { isStoreUnavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import { outsideTrace } from '../telemetry/trace-context.js';

/**
 * What one step of a supplier order's task found: everything of {@link SupplierOrderProgress} but its fence;
 * `readAt` when it read the seller (else the claim's time stands in).
 */
export type SupplierOrderStep = Omit<
  SupplierOrderProgress,
  'supplierOrderId' | 'owner' | 'now' | 'readAt'
> & {
  readAt?: Date;
};

/** A claimed supplier order, when it was claimed (epoch ms) and the lease owner of its claim. */
interface Claim {
  claimed: ClaimedSupplierOrder;
  claimedAt: number;
  owner: string;
}

/** What a step may ask of the task while it runs. */
export interface SupplierOrderStepContext {
  /**
   * Records that a placement is about to be sent (`markSupplierOrderPosting`); false when the lease was
   * lost, and then nothing may be sent.
   */
  markPosting(): Promise<boolean>;
  /**
   * Records that a cancellation is about to be sent (`markSupplierOrderCancelPosting`); false when the lease
   * was lost, and then nothing may be sent.
   */
  markCancelPosting(): Promise<boolean>;
}

/**
 * One step of a supplier order: place it when the seller does not know it yet, else read its progress.
 * Must not throw for what a seller does (a failure is a step with an error and a next check); it is
 * aborted through `signal` when the worker stops.
 */
export type SupplierOrderStepper = (
  claimed: ClaimedSupplierOrder,
  signal: AbortSignal,
  context: SupplierOrderStepContext,
) => Promise<SupplierOrderStep>;

/** How the order worker runs. */
export interface OrderWorkerOptions {
  db: Pick<
    Store,
    | 'ping'
    | 'claimSupplierOrders'
    | 'recordSupplierOrderProgress'
    | 'markSupplierOrderPosting'
    | 'markSupplierOrderCancelPosting'
  >;
  clock: Clock;
  logger: Logger;
  /** The step for a claimed supplier order (by its source's type; `mef-sonata` today). */
  step: SupplierOrderStepper;
  /**
   * Owner name of this worker's leases. Each claim holds its leases as an owner of its own,
   * `<owner>:<claim number>` ({@link OrderWorker}), so what a step of an earlier claim writes late is
   * fenced out once this same worker claimed the supplier order again.
   */
  owner: string;
  /** How long a claim holds a supplier order (ms); a step longer than that is discarded. */
  leaseMs: number;
  /** Most supplier orders stepped at once. */
  concurrency: number;
  /**
   * Most supplier orders claimed ahead of a free slot and held, leased, until one frees (0: none). A slot
   * that frees then starts its next step at once instead of after a claim's round trips; the lease clock of
   * a held supplier order runs from its claim, so keep it small against `leaseMs`.
   */
  claimAhead: number;
  /** Longest sleep between two looks at the due supplier orders when nothing wakes the worker (ms). */
  idlePollMs: number;
  /** Told after a recorded step changed its order (and wrote its event), so the outbox relay publishes it now. */
  onChanges: () => void;
}

/**
 * The durable task that places and follows supplier orders (issue "Orders, part 1", item 2): it claims due
 * supplier orders under a lease (`claimSupplierOrders`), takes one step of each, and records the step with
 * its lines' progress fenced on the lease (`recordSupplierOrderProgress`). Everything lives in the store:
 * a process killed mid-step leaves a lease that expires, and the next claim — here or in another process —
 * takes the supplier order again (the step then looks the seller order up by its `externalId` before it
 * posts, so each is created once).
 *
 * Every claim holds its leases as an owner of its own (`<owner>:<claim number>`), and every write of a step
 * — its marks, its record, its give-back — is fenced on that claim's owner. A lease is a claim's, not the
 * process's: after a store outage longer than a lease, this same worker may claim a supplier order again
 * while a step of the earlier claim still waits to give it back; fenced on the process alone, that late
 * give-back would release the new claim, a third claim would follow, and two steps would post the same
 * order (issue 48).
 */
export class OrderWorker {
  private readonly stopController = new AbortController();
  /** Steps under way (each holds one of `concurrency` slots), and the records of ended steps. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly recording = new Set<Promise<void>>();
  /** Claimed supplier orders waiting for a slot (at most `claimAhead` beyond the free slots), in claim order. */
  private readonly held: Claim[] = [];
  /** Claims made so far: the number in each claim's lease owner. */
  private claims = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Wake-ups for steps due sooner than the idle poll (a retry's back-off, a poll), by their time. */
  private readonly soon = new Map<number, NodeJS.Timeout>();
  private running: Promise<void> | null = null;
  private again = false;
  private started = false;
  private wakeScheduled = false;
  /**
   * Whether the last claim took all it asked for, so more supplier orders may be due: only then does a slot
   * that frees claim again at once. After a claim that came back short nothing is due until a write of
   * another (a placement, a cancellation, a notification: {@link wake}), a step's own next check
   * (`wakeAt`) or the idle poll — a freed slot's claim would find nothing.
   */
  private backlog = true;
  /** Set while this worker tells `onChanges` of its own write: the wake that echoes back is not news. */
  private notifying = false;

  /** The pause while the store is down (issue 48), shared by the claims and every step's record. */
  private readonly recovery: StoreRecovery;

  constructor(private readonly options: OrderWorkerOptions) {
    this.recovery = new StoreRecovery(options.db, options.logger, 'ordering', this.stopController.signal);
  }

  /** Starts looking for due supplier orders, now and every `idlePollMs`. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.wake();
  }

  /**
   * Looks for due supplier orders soon, as another's write may have made some due (an order placed, a
   * cancellation or a charge's answer asked, a seller's notification): once for all the wake-ups of one turn
   * of the event loop, so a burst of them costs one claim. A call made while this worker tells `onChanges` of
   * its own step (the event bus echoing it back) is ignored: a step's record makes no other supplier order due.
   */
  wake(): void {
    if (this.notifying) return;
    this.claimSoon();
  }

  /** Claims once the event loop's turn ends (one claim for all the wake-ups of the turn). */
  private claimSoon(): void {
    if (!this.started || this.stopController.signal.aborted || this.wakeScheduled) return;
    this.wakeScheduled = true;
    // Outside the trace of whichever step or write asked for it: a claim serves every supplier order.
    outsideTrace(() =>
      setImmediate(() => {
        this.wakeScheduled = false;
        this.pumpNow();
      }),
    );
  }

  /** Claims now, or right after the claim under way. */
  private pumpNow(): void {
    if (!this.started || this.stopController.signal.aborted) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.pump().finally(() => {
      this.running = null;
      if (this.stopController.signal.aborted) return;
      if (this.again) {
        this.again = false;
        this.claimSoon();
      } else this.timer = setTimeout(() => this.claimSoon(), this.options.idlePollMs);
    });
  }

  /** Wakes the worker at `at` when that is sooner than its idle poll would. */
  private wakeAt(at: Date): void {
    const delay = at.getTime() - this.options.clock.now().getTime();
    if (delay >= this.options.idlePollMs || this.stopController.signal.aborted) return;
    const when = at.getTime();
    if (this.soon.has(when)) return;
    this.soon.set(
      when,
      setTimeout(
        () => {
          this.soon.delete(when);
          this.claimSoon();
        },
        Math.max(0, delay),
      ),
    );
  }

  /**
   * Stops claiming; steps under way are aborted and recorded as due at once, for whoever claims next, and so
   * are the supplier orders claimed ahead that no step took yet (their leases released unchanged).
   */
  async stop(): Promise<void> {
    this.stopController.abort();
    if (this.timer) clearTimeout(this.timer);
    for (const timer of this.soon.values()) clearTimeout(timer);
    this.soon.clear();
    await this.running;
    for (const claim of this.held.splice(0)) this.release(claim);
    await Promise.all([...this.inFlight]);
    await Promise.all([...this.recording]);
  }

  /** Free step slots: records waiting for the store count too, so a slow store cannot pile up more than one pool of them. */
  private freeSlots(): number {
    return this.options.concurrency - Math.max(this.inFlight.size, this.recording.size);
  }

  /**
   * Starts the held supplier orders that free slots can take, oldest claim first. One held for half its
   * lease (every slot busy with slow sellers) is given back instead: its step would have little time left,
   * and another worker may have slots for it.
   */
  private startHeld(): void {
    const stale = this.options.clock.now().getTime() - this.options.leaseMs / 2;
    while (this.held[0] && this.held[0].claimedAt <= stale) {
      const next = this.held.shift();
      if (next) this.release(next);
    }
    while (this.held.length > 0 && this.freeSlots() > 0 && !this.stopController.signal.aborted) {
      const next = this.held.shift();
      if (next) this.startStep(next);
    }
  }

  private startStep(claim: Claim): void {
    const run = this.run(claim).finally(() => {
      this.inFlight.delete(run);
      this.slotFreed();
    });
    this.inFlight.add(run);
  }

  /** A slot freed: it takes a held supplier order, and claims more when more may be due ({@link backlog}). */
  private slotFreed(): void {
    this.startHeld();
    if (this.backlog) this.claimSoon();
  }

  private async pump(): Promise<void> {
    const { options } = this;
    this.startHeld();
    const wanted = this.freeSlots() + options.claimAhead - this.held.length;
    if (wanted <= 0) return;
    const claimedAt = options.clock.now();
    this.claims += 1;
    const owner = `${options.owner}:${this.claims}`;
    let claimed: ClaimedSupplierOrder[];
    try {
      claimed = await options.db.claimSupplierOrders(owner, claimedAt, options.leaseMs, wanted);
    } catch (error) {
      if (!isStoreUnavailable(error)) options.logger.warn({ err: error }, 'claiming supplier orders failed');
      // The store is down: claim again as soon as it answers (its idle poll is the worker's safety net).
      else if (await this.recovery.waitUntilBack(error)) this.again = true;
      return;
    }
    this.backlog = claimed.length >= wanted;
    for (const one of claimed) this.held.push({ claimed: one, claimedAt: claimedAt.getTime(), owner });
    // Slots freed during the claim take their steps now; the rest wait, leased, for the next free slot.
    this.startHeld();
    if (this.stopController.signal.aborted) {
      for (const claim of this.held.splice(0)) this.release(claim);
    }
  }

  /**
   * Gives a held supplier order back unchanged (fenced on the lease, as a step's record is): its lease
   * released and due at once, its status, seller state and error kept.
   */
  private release(claim: Claim): void {
    const { claimed } = claim;
    const { supplierOrder } = claimed;
    const log = this.options.logger.child({ supplierOrderId: supplierOrder.id, orderId: claimed.order.id });
    const released = this.record(
      claim,
      {
        status: supplierOrder.status,
        sellerOrderId: supplierOrder.sellerOrderId,
        sellerState: supplierOrder.sellerState,
        nextCheckAt: this.options.clock.now(),
        errorCode: supplierOrder.errorCode,
        errorMessage: supplierOrder.errorMessage,
        lines: [],
      },
      log,
    ).finally(() => {
      this.recording.delete(released);
      // It is due now: a claim after its release was written may take it (here, or in another worker).
      this.backlog = true;
      this.claimSoon();
    });
    this.recording.add(released);
  }

  private async run(claim: Claim): Promise<void> {
    const { options } = this;
    const { claimed, claimedAt, owner } = claim;
    const log = options.logger.child({
      supplierOrderId: claimed.supplierOrder.id,
      orderId: claimed.order.id,
      sourceId: claimed.source.id,
    });
    // The lease runs from the claim, not from the step's start: a held supplier order has less of it left.
    const leaseLeft = claimedAt + options.leaseMs * 0.8 - options.clock.now().getTime();
    const signal = AbortSignal.any([
      this.stopController.signal,
      AbortSignal.timeout(Math.max(0, Math.floor(leaseLeft))),
    ]);
    let step: SupplierOrderStep;
    try {
      step = await options.step(claimed, signal, {
        markPosting: () =>
          options.db.markSupplierOrderPosting(claimed.supplierOrder.id, owner, options.clock.now()),
        markCancelPosting: () =>
          options.db.markSupplierOrderCancelPosting(claimed.supplierOrder.id, owner, options.clock.now()),
      });
    } catch (error) {
      // The store failed under the step (say, marking a placement as about to be sent, so nothing was): no
      // seller's failure. Given back unchanged once the store answers, for the next claim, whose step looks
      // the seller order up by its externalId before it posts.
      if (isStoreUnavailable(error)) {
        if (await this.recovery.waitUntilBack(error)) this.release(claim);
        return;
      }
      log.warn({ err: error }, 'supplier order step failed unexpectedly');
      const { supplierOrder } = claimed;
      step = {
        status: supplierOrder.status,
        sellerOrderId: supplierOrder.sellerOrderId,
        sellerState: supplierOrder.sellerState,
        nextCheckAt: new Date(options.clock.now().getTime() + options.idlePollMs),
        errorCode: 'ORDER_STEP_FAILED',
        errorMessage: 'The step failed unexpectedly; it is tried again.',
        lines: [],
      };
    }
    // Recorded outside the step's slot: a slot is for the seller's work, and a record waiting for the
    // store (a pooled connection, the order's row) would keep the next step from starting.
    const recorded = this.record(claim, step, log).finally(() => {
      this.recording.delete(recorded);
      this.slotFreed();
    });
    this.recording.add(recorded);
  }

  /** Records a step's outcome (fenced on its claim's lease), then wakes whoever its news concerns. */
  private async record(claim: Claim, step: SupplierOrderStep, log: Logger): Promise<void> {
    const { options } = this;
    const { claimed, owner } = claim;
    try {
      // Kept until the store takes it (fenced on the lease: after a take-over it writes nothing).
      const recorded = await this.recovery.retry(() =>
        options.db.recordSupplierOrderProgress({
          ...step,
          supplierOrderId: claimed.supplierOrder.id,
          owner,
          readAt: step.readAt ?? claimed.supplierOrder.updatedAt,
          now: options.clock.now(),
        }),
      );
      if (!recorded.done) return; // stopped during an outage: the lease expires, the next claim reads the seller
      const record = recorded.value;
      if (!record) log.warn('lease lost before the step was recorded; its result was discarded');
      // Only a step that changed the order wrote an event: the relay is told (the worker's own wake ignores it).
      else if (record.order.version !== claimed.order.version) {
        this.notifying = true;
        try {
          options.onChanges();
        } finally {
          this.notifying = false;
        }
      }
      if (step.nextCheckAt) this.wakeAt(step.nextCheckAt);
    } catch (error) {
      log.error({ err: error }, 'recording a supplier order step failed');
    }
  }
}
