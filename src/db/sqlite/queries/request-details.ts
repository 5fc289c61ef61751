/*
 * The request-detail reads on SQLite; each function implements the operation of its name documented in
 * `AvailabilityOperations` (src/db/contract/availability.ts).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { sourceOutcomeTaskKeys } from '../../shared/availability.js';
import { pickColumns } from '../../shared/row-mapping.js';
import type { Op } from '../operation.js';
import { availabilityRequestProducts, gatheringTasks, sources } from '../schema/index.js';

export const listSourceOutcomes: Op<'listSourceOutcomes'> = async (db, instanceId, requestIds) => {
  if (requestIds.length === 0) return [];
  const t = gatheringTasks;
  const p = availabilityRequestProducts;
  return db
    .select({
      ...pickColumns(t, sourceOutcomeTaskKeys),
      sourceName: sources.name,
      sourceType: sources.type,
      network: sources.network,
      // Through the request's index: by the task alone, the count scans every request's products.
      productCount: sql<number>`(select count(*) from ${p} where ${p.availabilityRequestId} = ${t.availabilityRequestId} and ${p.gatheringTaskId} = ${t.id})`,
    })
    .from(t)
    .innerJoin(sources, eq(sources.id, t.sourceId))
    .where(and(eq(t.instanceId, instanceId), inArray(t.availabilityRequestId, [...requestIds])))
    .orderBy(asc(sources.network), asc(sources.name), asc(t.availabilityRequestId), asc(t.sourceId))
    .all();
};

export const listProductsOfRequests: Op<'listProductsOfRequests'> = async (db, instanceId, requestIds) => {
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
};
