import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { SqliteDb } from '../client.js';
import { availabilityRequestProducts, gatheringTasks, sources } from '../schema/index.js';
import type { ProductRow } from './availability-requests.js';

/** Outcome of one source for one request, for the single-request view. */
export interface SourceOutcome {
  sourceId: string;
  sourceName: string;
  network: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  attempts: number;
  errorCode: string | null;
  errorMessage: string | null;
  productCount: number;
}

/**
 * Per-source outcomes of several requests' gathering tasks, in one query (for batch loading): by network,
 * then source name, ties by request and source id (as the PostgreSQL store orders them, bytewise).
 */
export async function listSourceOutcomes(
  db: SqliteDb,
  instanceId: string,
  requestIds: readonly string[],
): Promise<(SourceOutcome & { availabilityRequestId: string })[]> {
  if (requestIds.length === 0) return [];
  const t = gatheringTasks;
  return db
    .select({
      availabilityRequestId: t.availabilityRequestId,
      sourceId: t.sourceId,
      sourceName: sources.name,
      network: sources.network,
      status: t.status,
      attempts: t.attempts,
      errorCode: t.errorCode,
      errorMessage: t.errorMessage,
      productCount: sql<number>`(select count(*) from ${availabilityRequestProducts} where ${availabilityRequestProducts.gatheringTaskId} = ${t.id})`,
    })
    .from(t)
    .innerJoin(sources, eq(sources.id, t.sourceId))
    .where(and(eq(t.instanceId, instanceId), inArray(t.availabilityRequestId, [...requestIds])))
    .orderBy(asc(sources.network), asc(sources.name), asc(t.availabilityRequestId), asc(t.sourceId))
    .all();
}

/** The products of several requests in one query (for batch loading), in the single-request order. */
export async function listProductsOfRequests(
  db: SqliteDb,
  instanceId: string,
  requestIds: readonly string[],
): Promise<ProductRow[]> {
  if (requestIds.length === 0) return [];
  const p = availabilityRequestProducts;
  return db
    .select()
    .from(p)
    .where(and(eq(p.instanceId, instanceId), inArray(p.availabilityRequestId, [...requestIds])))
    .orderBy(
      asc(p.network),
      asc(p.technologyType),
      asc(p.connectionType),
      asc(p.downloadKbps),
      asc(p.uploadKbps),
      asc(p.contractTermMonths),
      asc(p.id),
    )
    .all();
}
