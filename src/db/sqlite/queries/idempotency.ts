/** The SQLite store's idempotency-key operations, as `contract/idempotency.ts` states them. */
import { and, eq, lte } from 'drizzle-orm';
import type { IdempotencyKeyRef } from '../../contract/index.js';
import { claimedKeyRow, claimOfHeldKey } from '../../shared/idempotency.js';
import type { Op } from '../operation.js';
import { idempotencyKeys } from '../schema/index.js';

const keyOf = (ref: IdempotencyKeyRef) =>
  and(eq(idempotencyKeys.instanceId, ref.instanceId), eq(idempotencyKeys.key, ref.key));

/** One `BEGIN IMMEDIATE` transaction: concurrent claims of a key run one after another. */
export const claimIdempotencyKey: Op<'claimIdempotencyKey'> = async (db, input) => {
  return db.transaction(
    (tx) => {
      tx.delete(idempotencyKeys)
        .where(and(keyOf(input), lte(idempotencyKeys.expiresAt, input.now)))
        .run();
      const held = tx.select().from(idempotencyKeys).where(keyOf(input)).get();
      if (held) return claimOfHeldKey(held, input.requestHash);
      tx.insert(idempotencyKeys).values(claimedKeyRow(input)).run();
      return { kind: 'claimed' as const };
    },
    { behavior: 'immediate' },
  );
};

export const completeIdempotencyKey: Op<'completeIdempotencyKey'> = async (db, input) => {
  db.update(idempotencyKeys)
    .set({
      state: 'done',
      responseStatus: input.status,
      responseBody: input.body,
      ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
    })
    .where(keyOf(input))
    .run();
};

export const releaseIdempotencyKey: Op<'releaseIdempotencyKey'> = async (db, input) => {
  db.delete(idempotencyKeys).where(keyOf(input)).run();
};
