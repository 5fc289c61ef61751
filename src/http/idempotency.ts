import { createHash } from 'node:crypto';
import type { Services } from '../context.js';
import { AppError, isStoreUnavailable } from '../errors.js';

/*
 * Idempotency keys, one rule for REST and GraphQL (IETF draft "The Idempotency-Key HTTP Header Field",
 * draft-ietf-httpapi-idempotency-key-header). An entry (the REST router, the GraphQL plugin) checks the
 * caller, then hands its write to {@link runOnce} with the key and the request's {@link idempotencyFingerprint},
 * and says with an `answerOf` how the write's outcome is sent — the rest is decided here, once.
 */

/** How long a key and its answer are remembered: 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a claim holds a key while its request runs: 5 minutes, far beyond any write's run. A claim whose
 * request never finished it — its process killed, or the store down when the key was to be freed — lets
 * the key go by then (issue 48), where it would otherwise answer 409 for {@link IDEMPOTENCY_TTL_MS}.
 */
export const IDEMPOTENCY_CLAIM_MS = 5 * 60 * 1000;

/** Waits between tries to settle a key while the store is down: 1 s, doubling to 10 s, within the claim's hold. */
const RELEASE_RETRY_MS = { first: 1_000, max: 10_000 } as const;

/** The header's syntax: 1–255 visible ASCII characters (the draft leaves the length to the server). */
const keySyntax = /^[\x21-\x7e]{1,255}$/;

/**
 * Checks an `Idempotency-Key` header's value.
 *
 * @throws {AppError} `VALIDATION` (REST 422, GraphQL `BAD_USER_INPUT`) with a problem at
 *   `/headers/idempotency-key` when the key is not 1–255 visible ASCII characters.
 */
export function checkIdempotencyKey(key: string): void {
  if (!keySyntax.test(key)) {
    throw new AppError('VALIDATION', 'Idempotency-Key must be 1–255 visible ASCII characters.', [
      { path: '/headers/idempotency-key', message: 'must be 1–255 visible ASCII characters' },
    ]);
  }
}

/**
 * The fingerprint of a request (the draft's "request fingerprint"): the SHA-256, in hex, of the JSON
 * array of the operation's identity followed by its input — REST `[method, path, body]`, GraphQL
 * `[query, operationName, variables]`, absent values as `null`. The input is compared as sent, key order
 * included: a client retries with the same bytes, and anything else is "a different request".
 */
export function idempotencyFingerprint(operation: readonly (string | null)[], input: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify([...operation, input ?? null]))
    .digest('hex');
}

/** An answer as it is remembered and replayed: its HTTP status and its body, serialized. */
export interface IdempotentAnswer {
  status: number;
  body: string;
}

/** How a write ended: with a value, or by throwing. */
export type IdempotentOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** What {@link runOnce} gives back: the write's own value, or the first answer replayed. */
export type RunOnceResult<T> = { replayed: false; value: T } | { replayed: true; answer: IdempotentAnswer };

/** One write sent with a key: the caller's instance (keys are per instance), the key, the fingerprint. */
export interface IdempotentCall {
  instanceId: string;
  key: string;
  fingerprint: string;
}

/**
 * Runs `write` at most once per instance and `Idempotency-Key` for 24 hours
 * ({@link IDEMPOTENCY_TTL_MS}), as the IETF draft "The Idempotency-Key HTTP Header Field" describes:
 *
 * - the first request with a key claims it and runs; its answer (`answerOf` its outcome) is remembered
 *   when it is a success or an expected error (below 500), so a retry gets what a first try got;
 * - a server error (5xx), or an outcome with no answer to keep (`answerOf` gives `null`: the entry says
 *   nothing ran, or the result cannot be replayed), frees the key, so a retry runs the write again;
 * - when the store is down as the key is to be completed or freed, that happens in the background once it
 *   is back (see `settleKey`), and in any case the claim's hold ({@link IDEMPOTENCY_CLAIM_MS}) ends, so a
 *   key is never stuck behind a request that did not finish;
 * - the same key with the same fingerprint once the first has finished replays its answer, and writes
 *   nothing (`Idempotent-Replayed: true` is the entry's to send);
 * - a thrown error is rethrown after its answer is remembered or the key freed.
 *
 * @throws {AppError} `VALIDATION` for a malformed key (see {@link checkIdempotencyKey}) or for a key used
 *   with another fingerprint (problem at `/headers/idempotency-key`: "was used for a different request");
 *   `CONFLICT` (409) while the first request with the key still runs; whatever `write` throws.
 */
export async function runOnce<T>(
  services: Pick<Services, 'db' | 'clock' | 'logger'>,
  call: IdempotentCall,
  write: () => Promise<T>,
  answerOf: (outcome: IdempotentOutcome<T>) => IdempotentAnswer | null,
): Promise<RunOnceResult<T>> {
  checkIdempotencyKey(call.key);
  const { instanceId, key } = call;
  const claim = await services.db.claimIdempotencyKey({
    instanceId,
    key,
    requestHash: call.fingerprint,
    now: services.clock.now(),
    ttlMs: IDEMPOTENCY_CLAIM_MS,
  });
  if (claim.kind === 'mismatch') {
    throw new AppError('VALIDATION', 'This Idempotency-Key was used for a different request.', [
      { path: '/headers/idempotency-key', message: 'was used for a different request' },
    ]);
  }
  if (claim.kind === 'in_progress') {
    throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still being processed.');
  }
  if (claim.kind === 'replay') return { replayed: true, answer: { status: claim.status, body: claim.body } };

  let outcome: IdempotentOutcome<T>;
  try {
    outcome = { ok: true, value: await write() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const answer = answerOf(outcome);
  const ref = { instanceId, key };
  if (answer && answer.status < 500) {
    const expiresAt = new Date(services.clock.now().getTime() + IDEMPOTENCY_TTL_MS);
    const completion = { ...ref, status: answer.status, body: answer.body, expiresAt };
    await settleKey(services, () => services.db.completeIdempotencyKey(completion));
  } else {
    await settleKey(services, () => services.db.releaseIdempotencyKey(ref));
  }
  if (!outcome.ok) throw outcome.error;
  return { replayed: false, value: outcome.value };
}

/**
 * Completes or frees a claimed key (`write`). When the store is down (issue 48) it is done in the background
 * as soon as the store takes it, tried with back-off until the claim's own hold ({@link IDEMPOTENCY_CLAIM_MS})
 * would end it anyway, and the caller goes on at once: a write that committed keeps its answer (a retry is
 * replayed once the key is completed), one that could not commit gets its 503 and its key freed.
 *
 * @throws whatever the store throws that is not its unavailability.
 */
async function settleKey(services: Pick<Services, 'logger'>, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!isStoreUnavailable(error)) throw error;
    const giveUpAt = Date.now() + IDEMPOTENCY_CLAIM_MS;
    const retry = (delayMs: number) => {
      const timer = setTimeout(() => {
        write().catch((failure: unknown) => {
          if (isStoreUnavailable(failure) && Date.now() + delayMs < giveUpAt) {
            retry(Math.min(delayMs * 2, RELEASE_RETRY_MS.max));
          } else {
            services.logger.warn(
              { err: failure },
              'an Idempotency-Key could not be settled; its claim expires',
            );
          }
        });
      }, delayMs);
      timer.unref();
    };
    retry(RELEASE_RETRY_MS.first);
  }
}
