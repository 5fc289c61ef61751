/*
 * PLACEHOLDER (issue 33, being rewritten by hand): Idempotency keys: run a write once per key.
 * Derived from the SQLite queries until this file states the contract itself.
 */

import type * as idempotency from '../sqlite/queries/idempotency.js';
import type { Operation } from './operation.js';

export type { IdempotencyClaim } from '../sqlite/queries/idempotency.js';

/** Idempotency keys: run a write once per key. */
export type IdempotencyOperations = {
  claimIdempotencyKey: Operation<typeof idempotency.claimIdempotencyKey>;
  completeIdempotencyKey: Operation<typeof idempotency.completeIdempotencyKey>;
  releaseIdempotencyKey: Operation<typeof idempotency.releaseIdempotencyKey>;
};
