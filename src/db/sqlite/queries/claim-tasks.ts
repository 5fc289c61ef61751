/*
 * The claim on SQLite; it implements `claimTasks` as documented in `GatheringOperations`
 * (src/db/contract/gathering.ts).
 */
import { and, eq, lte, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { ChangedRequest, ClaimedTask, PricingPlan } from '../../contract/index.js';
import { type RequestChange, requestChangeEvents } from '../../shared/events.js';
import { leaseExpired } from '../../shared/gathering.js';
import { boundLimit } from '../bound-limit.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { addresses, availabilityRequests, gatheringTasks, sources } from '../schema/index.js';
import { finishSource } from './finished-sources.js';
import { loadPricingPlan } from './price-plans.js';
import { recordEvents } from './record-events.js';

/**
 * One write transaction (`BEGIN IMMEDIATE`): SQLite's one writer at a time keeps two claimers from leasing
 * one task. The price plans are read after it commits, once per plan.
 */
export const claimTasks: Op<'claimTasks'> = async (db, input) => {
  const nowMs = input.now.getTime();
  const statements = claimStatements(db);
  const { leased, changed } = db.transaction(
    (): { leased: Omit<ClaimedTask, 'pricingPlan'>[]; changed: ChangedRequest[] } => {
      const changed: ChangedRequest[] = [];
      const events: RequestChange[] = [];
      const record = () => recordEvents(db, requestChangeEvents(events));
      // A claim runs in no request's trace: its events (an exhausted task's, `started`) keep the trace context
      // stored with the request's tasks (null without tracing). A request's tasks were all queued by its
      // creation with that one context, so any of them gives it.
      for (const { traceContext, ...row } of statements.failExhausted.all({
        nowMs,
        maxAttempts: input.maxAttempts,
      })) {
        const change = finishSource(db, row.availabilityRequestId, input.now);
        if (change) events.push({ ...change, traceContext });
        changed.push(row);
      }
      if (input.limit <= 0) {
        record();
        return { leased: [], changed };
      }
      // Two index-ordered reads instead of one OR, which would sort every queued task on each claim.
      const expired = statements.expired.all({ nowMs, limit: input.limit });
      const queued = statements.queued.all({ nowMs, limit: input.limit - expired.length });
      const candidates = JSON.stringify([...expired, ...queued].map((row) => row.id));
      if (candidates === '[]') {
        record();
        return { leased: [], changed };
      }
      statements.lease.run({
        ids: candidates,
        owner: input.owner,
        leaseExpiresAtMs: nowMs + input.leaseMs,
        nowMs,
      });
      const rows = statements.leased.all({ ids: candidates });
      const requestIds = JSON.stringify(rows.map((row) => row.request.id));
      const started = statements.startRequests.all({ ids: requestIds, nowMs });
      const traceContexts = new Map(rows.map((row) => [row.request.id, row.task.traceContext]));
      for (const { instanceId, availabilityRequestId, ...progress } of started) {
        changed.push({ instanceId, availabilityRequestId });
        const traceContext = traceContexts.get(availabilityRequestId) ?? null;
        events.push({ instanceId, availabilityRequestId, kind: 'updated', progress, traceContext });
      }
      record();
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
        traceContext: row.task.traceContext,
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
};

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
        leaseExpiries: sql`${t.leaseExpiries} + 1`,
        errorCode: leaseExpired.code,
        errorMessage: leaseExpired.message,
        finishedAt: nowMs,
        updatedAt: nowMs,
      })
      .where(and(expired, sql`${t.leaseExpiries} + 1 >= ${sql.placeholder('maxAttempts')}`))
      .returning({
        instanceId: t.instanceId,
        availabilityRequestId: t.availabilityRequestId,
        traceContext: t.traceContext,
      })
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
        // Read before the update: a queued task starts an attempt, an expired lease's is taken over.
        attempts: sql`${t.attempts} + (${t.status} = 'queued')`,
        leaseExpiries: sql`${t.leaseExpiries} + (${t.status} = 'running')`,
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
        status: availabilityRequests.status,
        sourcesFinished: availabilityRequests.sourcesFinished,
        updatedAt: availabilityRequests.updatedAt,
      })
      .prepare(),
  };
});
