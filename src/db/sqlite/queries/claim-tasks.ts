import { and, eq, lte, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { PricingPlan } from '../../../gathering/pricing.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import { addresses, availabilityRequests, gatheringTasks, sources } from '../schema/index.js';
import type { AddressRow, AvailabilityRequestRow } from './availability-requests.js';
import type { SourceRow } from './catalog.js';
import { finishSource } from './finished-sources.js';
import type { ChangedRequest } from './gathering-tasks.js';
import { loadPricingPlan } from './price-plans.js';

/** A task this worker holds the lease of, with everything a source adapter needs. */
export interface ClaimedTask {
  /** The task's rowid. */
  taskId: number;
  attempts: number;
  source: SourceRow;
  request: AvailabilityRequestRow;
  address: AddressRow;
  /** The request's price plan with its rules, as it is at the claim: the worker prices the offers with it. */
  pricingPlan: PricingPlan;
}

/**
 * Claims up to `limit` runnable tasks for `owner` with a lease until `now + leaseMs`, in one transaction.
 * Runnable: queued and due, or running with an expired lease (its worker died). A task whose lease
 * expired after its last allowed attempt ends as failed instead, so a task that keeps killing its worker
 * cannot loop forever. Requests of claimed tasks move from `pending` to `in_progress`. Each claimed task
 * comes with its request's price plan as it is at the claim (the worker prices the offers with it).
 * @throws Error when a request's price plan is missing, which its foreign key prevents.
 */
export async function claimTasks(
  db: SqliteDb,
  input: { owner: string; now: Date; leaseMs: number; limit: number; maxAttempts: number },
): Promise<{ claimed: ClaimedTask[]; changed: ChangedRequest[] }> {
  const nowMs = input.now.getTime();
  const statements = claimStatements(db);
  const { leased, changed } = db.transaction(
    (): { leased: Omit<ClaimedTask, 'pricingPlan'>[]; changed: ChangedRequest[] } => {
      const changed: ChangedRequest[] = [];
      for (const row of statements.failExhausted.all({ nowMs, maxAttempts: input.maxAttempts })) {
        finishSource(db, row.availabilityRequestId, input.now);
        changed.push(row);
      }
      if (input.limit <= 0) return { leased: [], changed };
      // Two index-ordered reads instead of one OR, which would sort every queued task on each claim.
      const expired = statements.expired.all({ nowMs, limit: input.limit });
      const queued = statements.queued.all({ nowMs, limit: input.limit - expired.length });
      const candidates = JSON.stringify([...expired, ...queued].map((row) => row.id));
      if (candidates === '[]') return { leased: [], changed };
      statements.lease.run({
        ids: candidates,
        owner: input.owner,
        leaseExpiresAtMs: nowMs + input.leaseMs,
        nowMs,
      });
      const rows = statements.leased.all({ ids: candidates });
      const requestIds = JSON.stringify(rows.map((row) => row.request.id));
      const started = statements.startRequests.all({ ids: requestIds, nowMs });
      changed.push(...started);
      // The requests as they are once the claim commits: the ones it started are in progress.
      const startedIds = new Set(started.map((row) => row.availabilityRequestId));
      const leased = rows.map((row) => ({
        taskId: row.task.id,
        attempts: row.task.attempts,
        source: row.source,
        request: startedIds.has(row.request.id)
          ? { ...row.request, status: 'in_progress' as const, updatedAt: input.now }
          : row.request,
        address: row.address,
      }));
      return { leased, changed };
    },
    { behavior: 'immediate' },
  );
  const plans = new Map<string, PricingPlan>();
  for (const task of leased) {
    const id = task.request.pricePlanId;
    if (plans.has(id)) continue;
    const plan = await loadPricingPlan(db, id);
    // A request's plan cannot go while the request refers to it (a foreign key).
    if (!plan) throw new Error(`price plan ${id} of request ${task.request.id} is missing`);
    plans.set(id, plan);
  }
  const claimed = leased.map((task) => ({
    ...task,
    pricingPlan: plans.get(task.request.pricePlanId) as PricingPlan,
  }));
  return { claimed, changed };
}

/** `column in (the ids of a JSON array placeholder)`: one prepared statement for any number of ids. */
const inJsonIds = (column: SQLiteColumn, name: string) =>
  sql`${column} in (select value from json_each(${sql.placeholder(name)}))`;

/** The statements of {@link claimTasks}, prepared once per database. */
const claimStatements = preparedQuery((db) => {
  const t = gatheringTasks;
  const nowMs = sql`${sql.placeholder('nowMs')}`;
  const expired = and(eq(t.status, 'running'), lte(t.leaseExpiresAt, nowMs));
  return {
    failExhausted: db
      .update(t)
      .set({
        status: 'failed',
        leaseOwner: null,
        leaseExpiresAt: null,
        errorCode: 'LEASE_EXPIRED',
        errorMessage: 'The worker running this source stopped responding too often.',
        finishedAt: nowMs,
        updatedAt: nowMs,
      })
      .where(and(expired, sql`${t.attempts} >= ${sql.placeholder('maxAttempts')}`))
      .returning({ instanceId: t.instanceId, availabilityRequestId: t.availabilityRequestId })
      .prepare(),
    expired: db
      .select({ id: t.id })
      .from(t)
      .where(expired)
      .orderBy(t.leaseExpiresAt, t.id)
      .limit(boundLimit(sql.placeholder('limit')))
      .prepare(),
    queued: db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.status, 'queued'), lte(t.availableAt, nowMs)))
      .orderBy(t.availableAt, t.id)
      .limit(boundLimit(sql.placeholder('limit')))
      .prepare(),
    lease: db
      .update(t)
      .set({
        status: 'running',
        leaseOwner: sql`${sql.placeholder('owner')}`,
        leaseExpiresAt: sql`${sql.placeholder('leaseExpiresAtMs')}`,
        attempts: sql`${t.attempts} + 1`,
        updatedAt: nowMs,
      })
      .where(inJsonIds(t.id, 'ids'))
      .prepare(),
    leased: db
      .select({ task: t, source: sources, request: availabilityRequests, address: addresses })
      .from(t)
      .innerJoin(sources, eq(sources.id, t.sourceId))
      .innerJoin(availabilityRequests, eq(availabilityRequests.id, t.availabilityRequestId))
      .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId))
      .where(inJsonIds(t.id, 'ids'))
      .prepare(),
    startRequests: db
      .update(availabilityRequests)
      .set({ status: 'in_progress', updatedAt: nowMs })
      .where(and(eq(availabilityRequests.status, 'pending'), inJsonIds(availabilityRequests.id, 'ids')))
      .returning({
        instanceId: availabilityRequests.instanceId,
        availabilityRequestId: availabilityRequests.id,
      })
      .prepare(),
  };
});
