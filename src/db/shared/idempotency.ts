/** What both dialects' idempotency operations decide the same way: the new key's row, and a claim's answer. */
import type { IdempotencyClaim, IdempotencyKeyClaim } from '../contract/index.js';

/** The row of a freshly claimed key: in progress, expiring `ttlMs` after `now`. */
export function claimedKeyRow(input: IdempotencyKeyClaim) {
  return {
    instanceId: input.instanceId,
    key: input.key,
    requestHash: input.requestHash,
    state: 'in_progress' as const,
    expiresAt: new Date(input.now.getTime() + input.ttlMs),
  };
}

/** The answer to a claim of a key someone else holds (unexpired), from its stored row. */
export function claimOfHeldKey(
  held: {
    requestHash: string;
    state: 'in_progress' | 'done';
    responseStatus: number | null;
    responseBody: string | null;
  },
  requestHash: string,
): IdempotencyClaim {
  if (held.requestHash !== requestHash) return { kind: 'mismatch' };
  if (held.state === 'in_progress') return { kind: 'in_progress' };
  return { kind: 'replay', status: held.responseStatus ?? 200, body: held.responseBody ?? '' };
}
