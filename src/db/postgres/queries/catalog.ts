/*
 * The catalogue operations on PostgreSQL; each function implements the operation of its name documented in
 * `CatalogOperations` (src/db/contract/catalog.ts). Text sorts and compares bytewise (`bytewise`,
 * `collate "C"`), ties by key or id, as the contract's order asks.
 */
import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { catalogImportRows, chunks, newSourceRow } from '../../shared/catalog.js';
import { valueSetsCache } from '../../shared/value-sets.js';
import { bytewise } from '../bytewise.js';
import type { PostgresDb } from '../client.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import {
  catalogAreaCities,
  catalogAreaPostalCodeRanges,
  catalogAreas,
  catalogOffers,
  sources,
} from '../schema/index.js';

/**
 * Multi-row inserts (`chunks`) in one transaction. A concurrent import of the same keys waits for the
 * first at the unique index, then fails with its unique violation (SQLSTATE 23505).
 */
export const importCatalog: Op<'importCatalog'> = async (db, instanceId, catalog, now) => {
  return db.transaction(async (tx) => {
    const rows = catalogImportRows(instanceId, catalog, now);
    for (const chunk of chunks(rows.sources)) await tx.insert(sources).values(chunk);
    for (const chunk of chunks(rows.areas)) await tx.insert(catalogAreas).values(chunk);
    for (const chunk of chunks(rows.ranges)) await tx.insert(catalogAreaPostalCodeRanges).values(chunk);
    for (const chunk of chunks(rows.cities)) await tx.insert(catalogAreaCities).values(chunk);
    for (const chunk of chunks(rows.offers)) await tx.insert(catalogOffers).values(chunk);
    return { sources: rows.sources.length, areas: rows.areas.length, offers: rows.offers.length };
  });
};

/** `countryCodes @> [code]`, which the jsonb containment operator answers. */
export const listEnabledSources: Op<'listEnabledSources'> = async (db, instanceId, countryCode) =>
  enabledSources(db).execute({ instanceId, countryCodes: JSON.stringify([countryCode]) });

const enabledSources = preparedQuery('sources_enabled_in_country', (db, name) =>
  db
    .select()
    .from(sources)
    .where(
      and(
        eq(sources.instanceId, sql.placeholder('instanceId')),
        eq(sources.enabled, true),
        sql`${sources.countryCodes} @> ${sql.placeholder('countryCodes')}::jsonb`,
      ),
    )
    .orderBy(bytewise(sources.network), bytewise(sources.name), bytewise(sources.key))
    .prepare(name),
);

const valueSetsRead = valueSetsCache<PostgresDb>();

/** Four DISTINCT queries, read once per list of source ids (`valueSetsCache`). */
export const catalogValueSets: Op<'catalogValueSets'> = async (db, sourceIds) => {
  return valueSetsRead(db, sourceIds, async () => {
    const o = catalogOffers;
    const ofSources = inArray(o.sourceId, [...sourceIds]);
    const distinctText = async (column: PgColumn) => {
      const rows = await db
        .selectDistinct({ value: bytewise(column) })
        .from(o)
        .where(ofSources)
        .orderBy(bytewise(column));
      return rows.map((row) => row.value);
    };
    // One after another: a cold read should not take four of the pool's connections at once.
    const technologyTypes = await distinctText(o.technologyType);
    const connectionTypes = await distinctText(o.connectionType);
    const bandwidths = await db
      .selectDistinct({ download: o.downloadKbps, upload: o.uploadKbps })
      .from(o)
      .where(ofSources)
      .orderBy(asc(o.downloadKbps), asc(o.uploadKbps));
    const contractTerms = await db
      .selectDistinct({ value: o.contractTermMonths })
      .from(o)
      .where(ofSources)
      .orderBy(asc(o.contractTermMonths));
    return {
      technologyTypes,
      connectionTypes,
      bandwidths,
      contractTerms: contractTerms.map((row) => row.value),
    };
  });
};

export const coveringAreaIds: Op<'coveringAreaIds'> = async (db, instanceId, address) => {
  const ofInstance = and(
    eq(catalogAreas.instanceId, instanceId),
    eq(catalogAreas.countryCode, address.countryCode),
  );
  if (address.postalCode !== '') {
    const r = catalogAreaPostalCodeRanges;
    const rows = await db
      .select({ id: catalogAreas.id })
      .from(catalogAreas)
      .where(
        and(
          ofInstance,
          sql`exists (select 1 from ${r} where ${r.areaId} = ${catalogAreas.id} and substr(${address.postalCode}::text, 1, length(${r.fromPrefix})) collate "C" between ${r.fromPrefix} and ${r.toPrefix})`,
        ),
      )
      .orderBy(bytewise(catalogAreas.key));
    return rows.map((row) => row.id);
  }
  if (address.city === '') return [];
  const [first] = await db
    .select({ id: catalogAreas.id })
    .from(catalogAreas)
    .innerJoin(catalogAreaCities, eq(catalogAreaCities.areaId, catalogAreas.id))
    .where(and(ofInstance, eq(catalogAreaCities.cityLower, address.city.toLowerCase())))
    .orderBy(asc(catalogAreas.position), asc(catalogAreaCities.id))
    .limit(1);
  return first ? [first.id] : [];
};

export const listSourceOffers: Op<'listSourceOffers'> = async (db, sourceId, areaIds) => {
  const o = catalogOffers;
  return db
    .select()
    .from(o)
    .where(and(eq(o.sourceId, sourceId), or(isNull(o.areaId), inArray(o.areaId, areaIds))))
    .orderBy(
      bytewise(o.technologyType),
      bytewise(o.connectionType),
      asc(o.downloadKbps),
      asc(o.uploadKbps),
      asc(o.contractTermMonths),
      sql`${o.areaId} collate "C" nulls first`,
      bytewise(o.id),
    );
};

/** A taken key throws PostgreSQL's unique violation (SQLSTATE 23505, wrapped by drizzle). */
export const insertSource: Op<'insertSource'> = async (db, instanceId, input, now) => {
  const row = newSourceRow(instanceId, input, now);
  await db.insert(sources).values(row);
  return row;
};

export const listSources: Op<'listSources'> = async (db, instanceId) => {
  return db
    .select()
    .from(sources)
    .where(eq(sources.instanceId, instanceId))
    .orderBy(bytewise(sources.network), bytewise(sources.name), bytewise(sources.key));
};

export const setSourceEnabled: Op<'setSourceEnabled'> = async (db, instanceId, id, enabled, now) => {
  const [row] = await db
    .update(sources)
    .set({ enabled, updatedAt: now })
    .where(and(eq(sources.instanceId, instanceId), eq(sources.id, id)))
    .returning();
  return row;
};

/** The row is locked first (`FOR UPDATE`), so the `previous` returned is the one replaced. */
export const replaceSourceSettings: Op<'replaceSourceSettings'> = async (db, instanceId, id, input, now) => {
  return db.transaction(async (tx) => {
    const ofInstance = and(eq(sources.instanceId, instanceId), eq(sources.id, id));
    const [previous] = await tx.select().from(sources).where(ofInstance).for('update');
    if (!previous) return undefined;
    const [source] = await tx
      .update(sources)
      .set({
        endpointUrl: input.endpointUrl,
        credentials: input.credentials ?? previous.credentials,
        settings: input.settings,
        hubListeners: null,
        updatedAt: now,
      })
      .where(ofInstance)
      .returning();
    return source ? { previous, source } : undefined;
  });
};

export const getSourceHubListeners: Op<'getSourceHubListeners'> = async (db, sourceId) => {
  const [row] = await db
    .select({ hubListeners: sources.hubListeners })
    .from(sources)
    .where(eq(sources.id, sourceId));
  return row?.hubListeners ?? null;
};

export const setSourceHubListeners: Op<'setSourceHubListeners'> = async (db, sourceId, listeners) => {
  await db.update(sources).set({ hubListeners: listeners }).where(eq(sources.id, sourceId));
};
