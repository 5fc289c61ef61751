/**
 * What both stores' gathering-task queries share: what a failed attempt writes, the error of a task whose
 * worker kept dying, the leases of a worker and its claims (`heldByOwner`), one completion as a batch of one.
 */
import { type Column, eq, or, type SQL, sql } from 'drizzle-orm';
import type { CompletedRequest, FailedAttempt, TaskCompletion } from '../contract/index.js';

/**
 * The error a task ends with when its lease expired after its last allowed attempt (its worker stopped
 * responding too often), as `claimTasks` writes it.
 */
export const leaseExpired = {
  code: 'LEASE_EXPIRED',
  message: 'The worker running this source stopped responding too often.',
} as const;

/**
 * Leases held by `owner` itself or by one of its claims, `<owner>:<claim number>` (a worker holds each
 * claim's leases as an owner of its own, issue 48): `lease_owner` equal to `owner`, or starting with
 * `owner:`. A claim's owner matches only itself, since no owner is a claim of a claim.
 */
export function heldByOwner(leaseOwner: Column, owner: string): SQL {
  return or(
    eq(leaseOwner, owner),
    sql`substr(${leaseOwner}, 1, ${owner.length + 1}) = ${`${owner}:`}`,
  ) as SQL;
}

/**
 * The columns a failed attempt writes on its task (fenced by the lease where it is written): with
 * `retryAt`, back to the queue until then; without, ended as failed. Either way the error is kept and the
 * lease given up.
 */
export function failedAttemptChanges(attempt: FailedAttempt) {
  const { now } = attempt;
  const error = {
    errorCode: attempt.code,
    errorMessage: attempt.message,
    leaseOwner: null,
    leaseExpiresAt: null,
    updatedAt: now,
  };
  return attempt.retryAt
    ? { ...error, status: 'queued' as const, availableAt: attempt.retryAt }
    : { ...error, status: 'failed' as const, finishedAt: now };
}

/** `completeTask` by way of a dialect's `completeTasks`: a batch of one. */
export async function completeOne(
  completeTasks: (completions: TaskCompletion[]) => Promise<(CompletedRequest | null)[]>,
  completion: TaskCompletion,
): Promise<CompletedRequest | null> {
  const [change] = await completeTasks([completion]);
  return change ?? null;
}
