import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { idempotencyFingerprint, runOnce } from '../http/idempotency.js';
import { toProblem } from './problem.js';

/** A route's answer. */
export interface RouteResult {
  status: number;
  body: unknown;
}

/**
 * Runs a REST write at most once per `Idempotency-Key` of the caller's instance, by the rule REST and
 * GraphQL share ({@link runOnce}, after the IETF draft "The Idempotency-Key HTTP Header Field"): the
 * request's fingerprint is its method, path and body; a route's answer is remembered as sent, an expected
 * error as its problem document; a 5xx frees the key.
 *
 * @returns the answer, and whether it is a replay (to be sent with `Idempotent-Replayed: true`).
 * @throws {AppError} `UNAUTHENTICATED` without a viewer (a key belongs to an instance: a write is never run
 *   without its key); `VALIDATION` (422) for a malformed key or one used for another request; `CONFLICT`
 *   (409) while the first request with the key still runs; whatever the route throws.
 */
export async function withIdempotency(
  ctx: Context,
  key: string,
  request: { method: string; path: string; body: unknown },
  run: () => Promise<RouteResult>,
): Promise<RouteResult & { replayed: boolean }> {
  const instanceId = ctx.viewer?.instanceId;
  if (!instanceId)
    throw new AppError('UNAUTHENTICATED', 'Send a valid auth token in the X-Auth-Token header.');
  const outcome = await runOnce(
    ctx,
    { instanceId, key, fingerprint: idempotencyFingerprint([request.method, request.path], request.body) },
    run,
    (ended) => {
      if (ended.ok) return { status: ended.value.status, body: JSON.stringify(ended.value.body) };
      const problem = toProblem(ended.error);
      return { status: problem.status, body: JSON.stringify(problem) };
    },
  );
  if (outcome.replayed) {
    return { status: outcome.answer.status, body: JSON.parse(outcome.answer.body), replayed: true };
  }
  return { ...outcome.value, replayed: false };
}
