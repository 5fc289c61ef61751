import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { CatalogFile } from '../../../gathering/sources/catalog-file.js';
import { newId } from '../../../ids.js';
import { catalogOfferRows } from '../../catalog-offer-rows.js';
import type {
  CatalogOfferRow,
  CatalogValueSets,
  NewSource,
  SourceRow,
  SourceSettingsUpdate,
  SourceType,
  StoredHubListeners,
} from '../../rows.js';
import { valueSetsCache } from '../../value-sets.js';
import { bytewise } from '../bytewise.js';
import type { PostgresDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import {
  catalogAreaCities,
  catalogAreaPostalCodeRanges,
  catalogAreas,
  catalogOffers,
  sources,
} from '../schema/index.js';

/** Rows per multi-row insert: 500 offers of 14 columns stay far below PostgreSQL's 65,535 parameters. */
const chunkSize = 500;

/** Inserts `rows` in multi-row statements of at most {@link chunkSize} rows. */
async function insertChunked<R>(rows: R[], insert: (chunk: R[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < rows.length; start += chunkSize) {
    await insert(rows.slice(start, start + chunkSize));
  }
}

/**
 * Imports a catalogue file into an instance: its sources (type `catalog`), areas and offers, in one
 * transaction. Sources and areas whose key already exists in the instance are rejected by the unique
 * indexes (PostgreSQL's unique violation, SQLSTATE 23505 — a concurrent import of the same keys waits for
 * the first and then fails the same way), and an offer of an unknown source throws; either way the import
 * writes nothing. This is the only place offers are written, and they are never changed afterwards:
 * {@link catalogValueSets} keeps what it read on that promise.
 *
 * @returns counts of what was written.
 */
export async function importCatalog(
  db: PostgresDb,
  instanceId: string,
  catalog: CatalogFile,
  now: Date,
): Promise<{ sources: number; areas: number; offers: number }> {
  return db.transaction(async (tx) => {
    const sourceIds = new Map<string, string>();
    const sourceRows = catalog.sources.map((source): typeof sources.$inferInsert => {
      const id = newId('source');
      sourceIds.set(source.key, id);
      return {
        id,
        instanceId,
        key: source.key,
        name: source.name,
        network: source.network,
        type: 'catalog' satisfies SourceType,
        countryCodes: [catalog.country_code],
        latencyMinMs: source.latency_ms.min,
        latencyMaxMs: source.latency_ms.max,
        createdAt: now,
        updatedAt: now,
      };
    });
    await insertChunked(sourceRows, (chunk) => tx.insert(sources).values(chunk));
    const areaIds = new Map<string, string>();
    const areaRows: (typeof catalogAreas.$inferInsert)[] = [];
    const rangeRows: (typeof catalogAreaPostalCodeRanges.$inferInsert)[] = [];
    const cityRows: (typeof catalogAreaCities.$inferInsert)[] = [];
    catalog.areas.forEach((area, position) => {
      const areaId = newId('catalogArea');
      areaIds.set(area.key, areaId);
      areaRows.push({
        id: areaId,
        instanceId,
        key: area.key,
        name: area.name,
        countryCode: catalog.country_code,
        position,
      });
      for (const [fromPrefix, toPrefix] of area.postal_code_ranges)
        rangeRows.push({ areaId, fromPrefix, toPrefix });
      for (const city of area.cities) cityRows.push({ areaId, cityLower: city.toLowerCase() });
    });
    await insertChunked(areaRows, (chunk) => tx.insert(catalogAreas).values(chunk));
    await insertChunked(rangeRows, (chunk) => tx.insert(catalogAreaPostalCodeRanges).values(chunk));
    await insertChunked(cityRows, (chunk) => tx.insert(catalogAreaCities).values(chunk));
    const offerRows = catalogOfferRows(instanceId, catalog, sourceIds, areaIds, now);
    await insertChunked(offerRows, (chunk) => tx.insert(catalogOffers).values(chunk));
    return { sources: catalog.sources.length, areas: catalog.areas.length, offers: offerRows.length };
  });
}

/**
 * Enabled sources of an instance that answer for a country, ordered by network then name (byte order, as
 * in SQLite; ties by key, the order SQLite reads them in).
 */
export async function listEnabledSources(
  db: PostgresDb,
  instanceId: string,
  countryCode: string,
): Promise<SourceRow[]> {
  return enabledSources(db).execute({ instanceId, countryCodes: JSON.stringify([countryCode]) });
}

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

/**
 * The distinct technology types, connection types, bandwidths (kbps) and contract terms (months) offered
 * by the given sources, each sorted ascending (text in byte order, as in SQLite). Read once per list of
 * sources (four DISTINCT queries), then kept (`valueSetsCache`). The result is frozen and shared.
 */
export async function catalogValueSets(
  db: PostgresDb,
  sourceIds: readonly string[],
): Promise<CatalogValueSets> {
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
}

/**
 * Ids of the catalogue areas of an instance that cover an address: by postal-code prefix range when the
 * address has a postal code (in area key order, as SQLite reads them), otherwise the first area (in
 * catalogue order) listing its city. Prefixes compare byte by byte, as in SQLite.
 */
export async function coveringAreaIds(
  db: PostgresDb,
  instanceId: string,
  address: { countryCode: string; postalCode: string; city: string },
): Promise<string[]> {
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
}

/**
 * The offers of one source that are nationwide or in one of the given areas, in a stable order: by
 * technology, connection type, bandwidth and term, ties nationwide first, then by area and id (the order
 * SQLite reads them in).
 */
export async function listSourceOffers(
  db: PostgresDb,
  sourceId: string,
  areaIds: string[],
): Promise<CatalogOfferRow[]> {
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
}

/**
 * Registers a source in an instance. Throws PostgreSQL's unique violation (SQLSTATE 23505, wrapped by
 * drizzle) for a taken key (callers check first).
 */
export async function insertSource(
  db: PostgresDb,
  instanceId: string,
  input: NewSource,
  now: Date,
): Promise<SourceRow> {
  const row: SourceRow = {
    ...input,
    id: newId('source'),
    instanceId,
    latencyMinMs: 0,
    latencyMaxMs: 0,
    settings: input.settings ?? null,
    hubListeners: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(sources).values(row);
  return row;
}

/** Every source of an instance, by network then name (byte order; ties by key, as SQLite reads them). */
export async function listSources(db: PostgresDb, instanceId: string): Promise<SourceRow[]> {
  return db
    .select()
    .from(sources)
    .where(eq(sources.instanceId, instanceId))
    .orderBy(bytewise(sources.network), bytewise(sources.name), bytewise(sources.key));
}

/** Enables or disables a source of an instance; returns it, or undefined when it is not the instance's. */
export async function setSourceEnabled(
  db: PostgresDb,
  instanceId: string,
  id: string,
  enabled: boolean,
  now: Date,
): Promise<SourceRow | undefined> {
  const [row] = await db
    .update(sources)
    .set({ enabled, updatedAt: now })
    .where(and(eq(sources.instanceId, instanceId), eq(sources.id, id)))
    .returning();
  return row;
}

/**
 * Replaces the settings of a source of an instance and forgets its hub listeners (they were registered for
 * the settings before; the caller deletes them at the seller), in one transaction; the row is locked
 * first, so the `previous` returned is the one replaced.
 *
 * @returns the source before and after, or undefined when it is not the instance's.
 */
export async function replaceSourceSettings(
  db: PostgresDb,
  instanceId: string,
  id: string,
  input: SourceSettingsUpdate,
  now: Date,
): Promise<{ previous: SourceRow; source: SourceRow } | undefined> {
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
}

/** A source's hub listeners as kept (see `StoredHubListeners`), or null (none, or no such source). */
export async function getSourceHubListeners(
  db: PostgresDb,
  sourceId: string,
): Promise<StoredHubListeners | null> {
  const [row] = await db
    .select({ hubListeners: sources.hubListeners })
    .from(sources)
    .where(eq(sources.id, sourceId));
  return row?.hubListeners ?? null;
}

/** Keeps (or, with null, forgets) a source's hub listeners; `updated_at` stays: they are not its settings. */
export async function setSourceHubListeners(
  db: PostgresDb,
  sourceId: string,
  listeners: StoredHubListeners | null,
): Promise<void> {
  await db.update(sources).set({ hubListeners: listeners }).where(eq(sources.id, sourceId));
}
