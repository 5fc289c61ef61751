/**
 * Idempotency keys (IETF draft "The Idempotency-Key HTTP Header Field"): a write sent again with the same
 * key and the same request runs once; the retry gets the first response.
 */

/** What a request with an idempotency key may do. */
export type IdempotencyClaim =
  /** The key is now this request's: run it, then complete (or release) the key. */
  | { kind: 'claimed' }
  /** The same request finished before: answer with its response. */
  | { kind: 'replay'; status: number; body: string }
  /** The same request is running elsewhere now. */
  | { kind: 'in_progress' }
  /** The key was used with another request (another request hash). */
  | { kind: 'mismatch' };

/** A key of an instance: keys are scoped per instance. */
export interface IdempotencyKeyRef {
  instanceId: string;
  key: string;
}

/** Input of `claimIdempotencyKey`. */
export interface IdempotencyKeyClaim extends IdempotencyKeyRef {
  /** The request's fingerprint (`idempotencyFingerprint`, src/http/idempotency.ts): the same key with another request is refused. */
  requestHash: string;
  now: Date;
  /** How long the claim holds the key from `now`, in milliseconds: past it, the key is taken over. */
  ttlMs: number;
}

/** Input of `completeIdempotencyKey`: the response to replay. */
export interface IdempotencyKeyCompletion extends IdempotencyKeyRef {
  /** HTTP status of the response. */
  status: number;
  /** The response body as sent. */
  body: string;
  /**
   * From when the key is forgotten, when it should be remembered longer than its claim held it (the claim
   * holds a key for a short while only, so that a claim whose request never ended frees itself); absent,
   * the key keeps the expiry of its claim.
   */
  expiresAt?: Date;
}

/** Idempotency-key operations. */
export interface IdempotencyOperations {
  /**
   * Claims a key for a request, atomically: of concurrent requests with one key, the first claims it and
   * the others learn it is in progress; once it completed, the same request (same hash) gets its response
   * replayed, another one a mismatch. A key past its expiry is taken over as if it did not exist.
   * A replayed response without a stored status or body reads as 200 with an empty body.
   */
  claimIdempotencyKey: (input: IdempotencyKeyClaim) => Promise<IdempotencyClaim>;
  /**
   * Stores the response of a claimed key, with `expiresAt` as its new expiry when given (else it keeps its
   * claim's). Nothing happens for an unknown key.
   */
  completeIdempotencyKey: (input: IdempotencyKeyCompletion) => Promise<void>;
  /** Forgets a claimed key (its request failed unexpectedly), so a retry may run it again. */
  releaseIdempotencyKey: (input: IdempotencyKeyRef) => Promise<void>;
}
