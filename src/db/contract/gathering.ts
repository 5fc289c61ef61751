/**
 * The store's contract for gathering tasks: one task per availability request and matching source,
 * claimed by a worker under a lease, then completed with its products, failed (retried or for good) or
 * released. Every write that ends a task counts one more finished source on its request.
 */
import type { AddressRow, AvailabilityRequestRow, ProductRow } from './availability.js';
import type { SourceRow } from './catalog.js';
import type { PricingPlan } from './customers.js';

/** A task this worker holds the lease of, with everything a source adapter needs. */
export interface ClaimedTask {
  /** The task's integer id. */
  taskId: number;
  /**
   * Attempts started, this one included: a claim of a queued task starts one; a take-over of an expired
   * lease goes on with the attempt its worker left (issue 48: a lease lost to an outage costs no attempt).
   */
  attempts: number;
  source: SourceRow;
  /** The request as it is once the claim commits (`in_progress` if the claim started it). */
  request: AvailabilityRequestRow;
  address: AddressRow;
  /** The request's price plan with its rules, as it is at the claim: the worker prices the offers with it. */
  pricingPlan: PricingPlan;
  /**
   * The W3C trace context of the request that created the task (`traceparent` and `tracestate` as a JSON
   * object; `AvailabilityRequestBatch.traceContext`): the worker's span continues that
   * trace (issue 37). Null when tracing was off.
   */
  traceContext: string | null;
}

/** A gathered offer as the engine stores it: prices in integer minor units, bandwidths in kbps. */
export type GatheredProduct = Omit<
  ProductRow,
  'id' | 'instanceId' | 'availabilityRequestId' | 'gatheringTaskId' | 'sourceId' | 'createdAt'
>;

/** One finished task for {@link GatheringOperations.completeTasks}. */
export interface TaskCompletion {
  taskId: number;
  /** The lease owner the worker claimed with: the fence. */
  owner: string;
  now: Date;
  products: GatheredProduct[];
  /**
   * What the source left out of a successful answer (e.g. items a Sonata seller declined), kept in the
   * task's `error_code` / `error_message` so the request's source outcome shows it beside the products;
   * absent or null clears them.
   */
  note?: { code: string; message: string } | null;
  /**
   * The trace context the event of the request's change keeps: the `create` span's the worker started in
   * the task's trace (`eventTraceContext`, src/telemetry/trace-context.ts). Given here, not read from the
   * active context, because a completion batch holds tasks of several traces. Absent or null: none.
   */
  traceContext?: string | null;
}

/** A failed attempt for {@link GatheringOperations.failTaskAttempt}. */
export interface FailedAttempt {
  taskId: number;
  /** The lease owner the worker claimed with: the fence. */
  owner: string;
  now: Date;
  code: string;
  message: string;
  /** When the task may run again; null ends it as failed. */
  retryAt: Date | null;
  /** As {@link TaskCompletion.traceContext}, for the event of an attempt that ends the task. */
  traceContext?: string | null;
}

/** What {@link GatheringOperations.claimTasks} takes. */
export interface TaskClaim {
  /** The claiming worker's lease owner id. */
  owner: string;
  now: Date;
  /** Lease length in milliseconds: the lease runs until `now + leaseMs`. */
  leaseMs: number;
  /** Tasks to lease at most; 0 only ends exhausted tasks. */
  limit: number;
  /**
   * Attempts a task may start, and times its lease may expire: the `maxAttempts`-th expiry ends the task as
   * failed (`LEASE_EXPIRED`) instead of being taken over.
   */
  maxAttempts: number;
}

/** A request whose status or progress a task operation changed (to publish as an event). */
export interface ChangedRequest {
  instanceId: string;
  availabilityRequestId: string;
}

/** Where a request stands: its status, how many of its sources finished, and when it last changed. */
export interface RequestProgress {
  status: AvailabilityRequestRow['status'];
  sourcesFinished: number;
  updatedAt: Date;
}

/**
 * A request a completion batch changed, with where it stands once the whole batch is stored (the same for
 * every task of the request in the batch): with the request and address the worker holds from the claim,
 * that is the request's state to publish, without reading it again.
 */
export interface CompletedRequest extends ChangedRequest {
  progress: RequestProgress;
}

/**
 * Gathering tasks. Every write is fenced by the lease: it changes a task only while it is `running` and
 * leased to the given owner, so a worker whose lease was taken over writes nothing. Counting a finished
 * source completes the request when every matching source finished; status and progress only move
 * forward. Concurrent workers (also in other processes on one PostgreSQL database) never lease a task
 * twice at once and never deadlock.
 */
export interface GatheringOperations {
  /**
   * Claims up to `limit` runnable tasks for `owner` with a lease until `now + leaseMs`, atomically.
   * Runnable: `queued` and due, or `running` with an expired lease (its worker died, or was cut off from the
   * store for longer than the lease), expired leases first. A queued task starts an attempt (`attempts` + 1);
   * an expired lease is taken over with the attempt it had (`leaseExpiries` + 1), so a store outage costs no
   * attempt (issue 48). A task whose lease expires for the `maxAttempts`-th time ends as `failed`
   * (`LEASE_EXPIRED`) and counts as a finished source instead, so a task that keeps killing its worker cannot
   * loop forever.
   * Requests of claimed tasks move from `pending` to `in_progress`.
   *
   * The outbox events of those changes (an exhausted task's request's, a started request's) keep the trace
   * context stored with the request's tasks — the creating request's, as {@link ClaimedTask.traceContext}
   * gives it (the same for all of a request's tasks: one creation queued them) — as stored, with no span
   * of their own: a claim runs in no request's trace. Null when the tasks were queued without tracing.
   *
   * @returns `claimed` in task id order, each with its request's price plan as it is at the claim;
   *   `changed`: the exhausted tasks' requests (in task id order), then the requests that left `pending`
   *   (in id order).
   * @throws Error when a request's price plan is missing, which its foreign key prevents.
   */
  claimTasks: (claim: TaskClaim) => Promise<{ claimed: ClaimedTask[]; changed: ChangedRequest[] }>;
  /**
   * {@link GatheringOperations.completeTasks} for one task: stores its products and marks it `succeeded`,
   * atomically, only while `owner` still holds its lease — which keeps products from being stored twice
   * after a crash or restart.
   *
   * @returns the changed request, or null when the lease was lost.
   */
  completeTask: (completion: TaskCompletion) => Promise<CompletedRequest | null>;
  /**
   * Stores several tasks' products and marks them `succeeded`, atomically (one commit for all of them,
   * which is most of what storing a task's few products costs); each task still fenced by its own lease.
   * Its `note` goes to the task's error columns, none clears them. A task listed twice goes to its first
   * completion.
   *
   * @returns per completion, in order: the changed request with its progress once the batch is stored, or
   *   null when that task's lease was lost (or the task came earlier in the batch).
   */
  completeTasks: (completions: TaskCompletion[]) => Promise<(CompletedRequest | null)[]>;
  /**
   * Records a failed attempt. With `retryAt` the task goes back to the queue until then; without it the
   * task ends as `failed` and counts as a finished source (its error stays visible on the request).
   *
   * @returns the changed request when the task ended, else null (also when the lease was lost).
   */
  failTaskAttempt: (attempt: FailedAttempt) => Promise<ChangedRequest | null>;
  /**
   * Gives back the leases `owner` holds, itself or through its claims (`<owner>:<claim number>`, see
   * `heldByOwner`) — graceful shutdown; with `taskIds`, only those tasks': an attempt a store outage
   * interrupted, by its claim's owner. Its running tasks return to the queue, due at `now`, without counting
   * the interrupted attempt, so another worker picks them up at once. A task no longer leased to `owner` is
   * left alone.
   *
   * @returns how many tasks were released.
   */
  releaseTasks: (owner: string, now: Date, taskIds?: readonly number[]) => Promise<number>;
  /** Earliest time a queued task becomes due, or null when none is queued (lets the worker sleep exactly). */
  nextTaskDueAt: () => Promise<Date | null>;
}
