import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { ProductRow, SourceOutcome } from '../../rows.js';
import { bytewise } from '../bytewise.js';
import type { PostgresDb } from '../client.js';
import { availabilityRequestProducts, gatheringTasks, sources } from '../schema/index.js';

/**
 * Per-source outcomes of several requests' gathering tasks, in one query (for batch loading): by network,
 * then source name (bytewise), ties by request and source id.
 */
export async function listSourceOutcomes(
  db: PostgresDb,
  instanceId: string,
  requestIds: readonly string[],
): Promise<(SourceOutcome & { availabilityRequestId: string })[]> {
  if (requestIds.length === 0) return [];
  const t = gatheringTasks;
  const p = availabilityRequestProducts;
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
      productCount: sql<number>`(select count(*)::int from ${p} where ${p.gatheringTaskId} = ${t.id})`,
    })
    .from(t)
    .innerJoin(sources, eq(sources.id, t.sourceId))
    .where(and(eq(t.instanceId, instanceId), inArray(t.availabilityRequestId, [...requestIds])))
    .orderBy(
      asc(bytewise(sources.network)),
      asc(bytewise(sources.name)),
      asc(bytewise(t.availabilityRequestId)),
      asc(bytewise(t.sourceId)),
    );
}

/** The products of several requests in one query (for batch loading), in the single-request order. */
export async function listProductsOfRequests(
  db: PostgresDb,
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
      asc(bytewise(p.network)),
      asc(bytewise(p.technologyType)),
      asc(bytewise(p.connectionType)),
      asc(p.downloadKbps),
      asc(p.uploadKbps),
      asc(p.contractTermMonths),
      asc(bytewise(p.id)),
    );
}
