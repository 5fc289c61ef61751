import { and, eq, lte } from 'drizzle-orm';
import type { SqliteDb } from '../client.js';
import { idempotencyKeys } from '../schema/index.js';

/** What a request with an idempotency key may do. */
export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in_progress' }
  | { kind: 'mismatch' };

/**
 * Claims an idempotency key for a request, in one `BEGIN IMMEDIATE` transaction so concurrent requests with
 * the same key see each other: the first claims it, the others learn it is in progress, and once the first
 * finished, the same request gets its response replayed while another request with that key is refused.
 * Expired keys are forgotten first.
 */
export async function claimIdempotencyKey(
  db: SqliteDb,
  input: { instanceId: string; key: string; requestHash: string; now: Date; ttlMs: number },
): Promise<IdempotencyClaim> {
  return db.transaction(
    (tx) => {
      const where = and(eq(idempotencyKeys.instanceId, input.instanceId), eq(idempotencyKeys.key, input.key));
      tx.delete(idempotencyKeys)
        .where(and(where, lte(idempotencyKeys.expiresAt, input.now)))
        .run();
      const existing = tx.select().from(idempotencyKeys).where(where).get();
      if (!existing) {
        tx.insert(idempotencyKeys)
          .values({
            instanceId: input.instanceId,
            key: input.key,
            requestHash: input.requestHash,
            state: 'in_progress',
            expiresAt: new Date(input.now.getTime() + input.ttlMs),
          })
          .run();
        return { kind: 'claimed' as const };
      }
      if (existing.requestHash !== input.requestHash) return { kind: 'mismatch' as const };
      if (existing.state === 'in_progress') return { kind: 'in_progress' as const };
      return {
        kind: 'replay' as const,
        status: existing.responseStatus ?? 200,
        body: existing.responseBody ?? '',
      };
    },
    { behavior: 'immediate' },
  );
}

/** Stores the response of a claimed key. */
export async function completeIdempotencyKey(
  db: SqliteDb,
  input: { instanceId: string; key: string; status: number; body: string },
): Promise<void> {
  db.update(idempotencyKeys)
    .set({ state: 'done', responseStatus: input.status, responseBody: input.body })
    .where(and(eq(idempotencyKeys.instanceId, input.instanceId), eq(idempotencyKeys.key, input.key)))
    .run();
}

/** Gives a claimed key up (the request failed unexpectedly), so a retry may run it again. */
export async function releaseIdempotencyKey(
  db: SqliteDb,
  input: { instanceId: string; key: string },
): Promise<void> {
  db.delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.instanceId, input.instanceId), eq(idempotencyKeys.key, input.key)))
    .run();
}
