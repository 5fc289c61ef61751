/*
 * The request-detail reads on PostgreSQL; each function implements the operation of its name documented in
 * `AvailabilityOperations` (src/db/contract/availability.ts). Text sorts bytewise (`bytewise`).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { sourceOutcomeTaskKeys } from '../../shared/availability.js';
import { pickColumns } from '../../shared/row-mapping.js';
import { bytewise } from '../bytewise.js';
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
      productCount: sql<number>`(select count(*)::int from ${p} where ${p.availabilityRequestId} = ${t.availabilityRequestId} and ${p.gatheringTaskId} = ${t.id})`,
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
};

export const listProductsOfRequests: Op<'listProductsOfRequests'> = async (db, instanceId, requestIds) => {
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
};
