import type { ChangedRequest, CompletedRequest, TaskCompletion } from '../db/rows.js';
import type { Store } from '../db/store.js';

/**
 * Stores finished tasks' products (`completeTasks`) by group commit: one batch is stored at a time, and the
 * completions that arrive meanwhile wait and go together into the next, so the busier the store, the fewer
 * transactions per task (on PostgreSQL a completion batch is one statement whatever its size). Completions
 * added within one turn of the event loop go into one batch as well.
 */
export class CompletionBatches {
  /** Whether a batch is being stored. */
  private storing = false;
  /** Completions waiting for the next batch. */
  private readonly waiting: {
    completion: TaskCompletion;
    resolve: (change: ChangedRequest | null) => void;
    reject: (error: unknown) => void;
  }[] = [];

  /**
   * @param onStored told the changed requests of each stored batch (never empty), before its completions
   *   resolve.
   */
  constructor(
    private readonly db: Pick<Store, 'completeTasks'>,
    private readonly onStored: (changed: readonly CompletedRequest[]) => void,
  ) {}

  /**
   * Stores one completion with the next batch.
   *
   * @returns the change of its request, or null when its lease was lost (nothing stored).
   * @throws whatever `completeTasks` throws for its batch.
   */
  add(completion: TaskCompletion): Promise<ChangedRequest | null> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ completion, resolve, reject });
      if (this.waiting.length > 1 || this.storing) return;
      setImmediate(() => this.storeNext());
    });
  }

  /** Stores the waiting completions as one batch; when it is stored, the next batch if any waits. */
  private storeNext(): void {
    if (this.storing || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0);
    this.storing = true;
    this.db
      .completeTasks(batch.map((entry) => entry.completion))
      .then(
        (changes) => {
          const changed = changes.filter((change): change is CompletedRequest => change !== null);
          if (changed.length > 0) this.onStored(changed);
          for (const [index, entry] of batch.entries()) entry.resolve(changes[index] ?? null);
        },
        (error: unknown) => {
          for (const entry of batch) entry.reject(error);
        },
      )
      .finally(() => {
        this.storing = false;
        if (this.waiting.length > 0) setImmediate(() => this.storeNext());
      });
  }
}
