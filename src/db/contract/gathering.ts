/*
 * PLACEHOLDER (issue 33, being rewritten by hand): Gathering tasks: claims under a lease, completions with their products, failed attempts, releases.
 * Derived from the SQLite queries until this file states the contract itself.
 */

import type * as claim_tasks from '../sqlite/queries/claim-tasks.js';
import type * as complete_tasks from '../sqlite/queries/complete-tasks.js';
import type * as gathering_tasks from '../sqlite/queries/gathering-tasks.js';
import type { Operation } from './operation.js';

export type { ClaimedTask } from '../sqlite/queries/claim-tasks.js';
export type { GatheredProduct, TaskCompletion } from '../sqlite/queries/complete-tasks.js';
export type { ChangedRequest, CompletedRequest, RequestProgress } from '../sqlite/queries/gathering-tasks.js';

/** Gathering tasks: claims under a lease, completions with their products, failed attempts, releases. */
export type GatheringOperations = {
  claimTasks: Operation<typeof claim_tasks.claimTasks>;
  completeTask: Operation<typeof complete_tasks.completeTask>;
  completeTasks: Operation<typeof complete_tasks.completeTasks>;
  failTaskAttempt: Operation<typeof gathering_tasks.failTaskAttempt>;
  releaseTasks: Operation<typeof gathering_tasks.releaseTasks>;
  nextTaskDueAt: Operation<typeof gathering_tasks.nextTaskDueAt>;
};
