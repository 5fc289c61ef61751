import { and, eq, lte, sql } from 'drizzle-orm';
import type { IdempotencyClaim } from '../../rows.js';
import type { PostgresDb } from '../client.js';
import { idempotencyKeys } from '../schema/index.js';

/**
 * Claims an idempotency key for a request: the first request with a key claims it, concurrent ones learn
 * it is in progress, and once the first finished, the same request gets its response replayed while
 * another request with that key is refused. An expired key is taken over as if it did not exist.
 *
 * Race-free on PostgreSQL through one `INSERT ... ON CONFLICT (instance_id, key) DO UPDATE ... WHERE
 * expires_at <= now`: a concurrent claim of the same key waits for the first one's uncommitted row, an
 * expired row is overwritten by exactly one claimant, and a live row is locked, not changed, so the
 * `SELECT` after it (same transaction) reads the row that won.
 */
export async function claimIdempotencyKey(
  db: PostgresDb,
  input: { instanceId: string; key: string; requestHash: string; now: Date; ttlMs: number },
): Promise<IdempotencyClaim> {
  return db.transaction(async (tx) => {
    const claimed = await tx
      .insert(idempotencyKeys)
      .values({
        instanceId: input.instanceId,
        key: input.key,
        requestHash: input.requestHash,
        state: 'in_progress',
        expiresAt: new Date(input.now.getTime() + input.ttlMs),
      })
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
    const [existing] = await tx
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.instanceId, input.instanceId), eq(idempotencyKeys.key, input.key)));
    if (!existing) throw new Error(`idempotency key ${input.key} vanished while locked`);
    if (existing.requestHash !== input.requestHash) return { kind: 'mismatch' as const };
    if (existing.state === 'in_progress') return { kind: 'in_progress' as const };
    return {
      kind: 'replay' as const,
      status: existing.responseStatus ?? 200,
      body: existing.responseBody ?? '',
    };
  });
}

/** Stores the response of a claimed key. */
export async function completeIdempotencyKey(
  db: PostgresDb,
  input: { instanceId: string; key: string; status: number; body: string },
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ state: 'done', responseStatus: input.status, responseBody: input.body })
    .where(and(eq(idempotencyKeys.instanceId, input.instanceId), eq(idempotencyKeys.key, input.key)));
}

/** Gives a claimed key up (the request failed unexpectedly), so a retry may run it again. */
export async function releaseIdempotencyKey(
  db: PostgresDb,
  input: { instanceId: string; key: string },
): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.instanceId, input.instanceId), eq(idempotencyKeys.key, input.key)));
}
