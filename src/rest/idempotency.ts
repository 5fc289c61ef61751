import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { toProblem } from './problem.js';

/** How long a key and its response are remembered: 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** A route's answer. */
export interface RouteResult {
  status: number;
  body: unknown;
}

/**
 * Runs a write at most once per `Idempotency-Key` of the caller's instance (IETF draft "The
 * Idempotency-Key HTTP Header Field"): the same key with the same request replays the first response and
 * writes nothing new; the same key with another request → 422; while the first still runs → 409.
 * Expected errors (4xx) are remembered like successes; an unexpected failure frees the key for a retry.
 *
 * @returns the response, and whether it is a replay (sent with `Idempotent-Replayed: true`).
 */
export async function withIdempotency(
  ctx: Context,
  key: string,
  request: { method: string; path: string; body: unknown },
  run: () => Promise<RouteResult>,
): Promise<RouteResult & { replayed: boolean }> {
  const instanceId = ctx.viewer?.instanceId;
  if (!instanceId) return { ...(await run()), replayed: false };
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new AppError('VALIDATION', 'Idempotency-Key must be 1–255 visible ASCII characters.', [
      { path: '/headers/idempotency-key', message: 'must be 1–255 visible ASCII characters' },
    ]);
  }
  const requestHash = createHash('sha256')
    .update(`${request.method} ${request.path}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
  const claim = await ctx.db.claimIdempotencyKey({
    instanceId,
    key,
    requestHash,
    now: ctx.clock.now(),
    ttlMs: IDEMPOTENCY_TTL_MS,
  });
  if (claim.kind === 'mismatch') {
    throw new AppError('VALIDATION', 'This Idempotency-Key was used for a different request.', [
      { path: '/headers/idempotency-key', message: 'was used for a different request' },
    ]);
  }
  if (claim.kind === 'in_progress') {
    throw new AppError('CONFLICT', 'A request with this Idempotency-Key is still being processed.');
  }
  if (claim.kind === 'replay') return { status: claim.status, body: JSON.parse(claim.body), replayed: true };
  let result: RouteResult;
  try {
    result = await run();
  } catch (error) {
    if (!(error instanceof AppError) || error.code === 'INTERNAL') {
      await ctx.db.releaseIdempotencyKey({ instanceId, key });
      throw error;
    }
    const problem = toProblem(error);
    await ctx.db.completeIdempotencyKey({
      instanceId,
      key,
      status: problem.status,
      body: JSON.stringify(problem),
    });
    throw error;
  }
  await ctx.db.completeIdempotencyKey({
    instanceId,
    key,
    status: result.status,
    body: JSON.stringify(result.body),
  });
  return { ...result, replayed: false };
}
