/** The PostgreSQL store's idempotency-key operations, as `contract/idempotency.ts` states them. */
import { and, eq, lte, sql } from 'drizzle-orm';
import type { IdempotencyKeyRef } from '../../contract/index.js';
import { claimedKeyRow, claimOfHeldKey } from '../../shared/idempotency.js';
import type { Op } from '../operation.js';
import { idempotencyKeys } from '../schema/index.js';

const keyOf = (ref: IdempotencyKeyRef) =>
  and(eq(idempotencyKeys.instanceId, ref.instanceId), eq(idempotencyKeys.key, ref.key));

/**
 * Atomic through one `INSERT … ON CONFLICT (instance_id, key) DO UPDATE … WHERE expires_at <= now`: a
 * concurrent claim of the same key waits for the first one's uncommitted row, an expired row is overwritten
 * by exactly one claimant, and a live row is locked, not changed, so the `SELECT` after it (same
 * transaction) reads the row that won.
 */
export const claimIdempotencyKey: Op<'claimIdempotencyKey'> = async (db, input) => {
  return db.transaction(async (tx) => {
    const claimed = await tx
      .insert(idempotencyKeys)
      .values(claimedKeyRow(input))
      .onConflictDoUpdate({
        target: [idempotencyKeys.instanceId, idempotencyKeys.key],
        set: {
          requestHash: sql`excluded.request_hash`,
          state: sql`excluded.state`,
          responseStatus: null,
          responseBody: null,
          expiresAt: sql`excluded.expires_at`,
        },
        setWhere: lte(idempotencyKeys.expiresAt, input.now),
      })
      .returning({ key: idempotencyKeys.key });
    if (claimed.length === 1) return { kind: 'claimed' as const };
    const [held] = await tx.select().from(idempotencyKeys).where(keyOf(input));
    if (!held) throw new Error(`idempotency key ${input.key} vanished while locked`);
    return claimOfHeldKey(held, input.requestHash);
  });
};

export const completeIdempotencyKey: Op<'completeIdempotencyKey'> = async (db, input) => {
  await db
    .update(idempotencyKeys)
    .set({
      state: 'done',
      responseStatus: input.status,
      responseBody: input.body,
      ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
    })
    .where(keyOf(input));
};

export const releaseIdempotencyKey: Op<'releaseIdempotencyKey'> = async (db, input) => {
  await db.delete(idempotencyKeys).where(keyOf(input));
};
