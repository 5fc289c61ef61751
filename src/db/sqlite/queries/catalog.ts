import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import type { CatalogFile } from '../../../gathering/sources/catalog-file.js';
import { newId } from '../../../ids.js';
import { catalogOfferRows } from '../../catalog-offer-rows.js';
import { valueSetsCache } from '../../value-sets.js';
import type { SourceType, StoredHubListeners, StoredSourceSettings } from '../../values.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import { preparedQuery } from '../prepared.js';
import {
  catalogAreaCities,
  catalogAreaPostalCodeRanges,
  catalogAreas,
  catalogOffers,
  sources,
} from '../schema/index.js';

/** A source row. */
export type SourceRow = typeof sources.$inferSelect;

/**
 * Imports a catalogue file into an instance: its sources (type `catalog`), areas and offers, in one
 * transaction. Sources and areas whose key already exists in the instance are rejected by the unique
 * indexes, so a failed import writes nothing. This is the only place offers are written, and they are never
 * changed afterwards: {@link catalogValueSets} keeps what it read on that promise.
 *
 * @returns counts of what was written.
 */
export async function importCatalog(
  db: SqliteDb,
  instanceId: string,
  catalog: CatalogFile,
  now: Date,
): Promise<{ sources: number; areas: number; offers: number }> {
  return db.transaction(
    (tx) => {
      const sourceIds = new Map<string, string>();
      for (const source of catalog.sources) {
        const id = newId('source');
        sourceIds.set(source.key, id);
        tx.insert(sources)
          .values({
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
          })
          .run();
      }
      const areaIds = new Map<string, string>();
      catalog.areas.forEach((area, position) => {
        const areaId = newId('catalogArea');
        areaIds.set(area.key, areaId);
        tx.insert(catalogAreas)
          .values({
            id: areaId,
            instanceId,
            key: area.key,
            name: area.name,
            countryCode: catalog.country_code,
            position,
          })
          .run();
        for (const [fromPrefix, toPrefix] of area.postal_code_ranges) {
          tx.insert(catalogAreaPostalCodeRanges).values({ areaId, fromPrefix, toPrefix }).run();
        }
        for (const city of area.cities) {
          tx.insert(catalogAreaCities).values({ areaId, cityLower: city.toLowerCase() }).run();
        }
      });
      const offerRows = catalogOfferRows(instanceId, catalog, sourceIds, areaIds, now);
      // Multi-row inserts: one statement per chunk instead of per row (well under SQLite's variable limit).
      for (let start = 0; start < offerRows.length; start += 500) {
        tx.insert(catalogOffers)
          .values(offerRows.slice(start, start + 500))
          .run();
      }
      const offers = offerRows.length;
      return { sources: catalog.sources.length, areas: catalog.areas.length, offers };
    },
    { behavior: 'immediate' },
  );
}

/** Enabled sources of an instance that answer for a country, ordered by network then name. */
export async function listEnabledSources(
  db: SqliteDb,
  instanceId: string,
  countryCode: string,
): Promise<SourceRow[]> {
  return enabledSources(db).all({ instanceId, countryCode });
}

/** Distinct values the catalogue offers through the given sources, for the options endpoint. */
export interface CatalogValueSets {
  readonly technologyTypes: readonly string[];
  readonly connectionTypes: readonly string[];
  readonly bandwidths: readonly { readonly download: number; readonly upload: number }[];
  readonly contractTerms: readonly number[];
}

const valueSetsRead = valueSetsCache<SqliteDb>();

/**
 * The distinct technology types, connection types, bandwidths (kbps) and contract terms (months) offered
 * by the given sources, each sorted ascending. Every availability request checks its filters against
 * them: read once per list of sources (four DISTINCT scans, ~2 ms for an instance of the NL demo
 * catalogue, `npm run bench`), then kept (`valueSetsCache`). The result is frozen and shared.
 */
export async function catalogValueSets(
  db: SqliteDb,
  sourceIds: readonly string[],
): Promise<CatalogValueSets> {
  return valueSetsRead(db, sourceIds, async (sourceIdsJson) => {
    const queries = valueSetQueries(db);
    const parameters = { sourceIds: sourceIdsJson };
    return {
      technologyTypes: queries.technologyTypes.all(parameters).map((row) => row.value),
      connectionTypes: queries.connectionTypes.all(parameters).map((row) => row.value),
      bandwidths: queries.bandwidths.all(parameters),
      contractTerms: queries.contractTerms.all(parameters).map((row) => row.value),
    };
  });
}

/** The distinct-value queries of {@link catalogValueSets}; source ids as one JSON array parameter. */
const valueSetQueries = preparedQuery((db) => {
  const o = catalogOffers;
  const ofSources = sql`${o.sourceId} in (select value from json_each(${sql.placeholder('sourceIds')}))`;
  const distinct = <T extends SQLiteColumn>(column: T) =>
    db.selectDistinct({ value: column }).from(o).where(ofSources).orderBy(asc(column)).prepare();
  return {
    technologyTypes: distinct(o.technologyType),
    connectionTypes: distinct(o.connectionType),
    bandwidths: db
      .selectDistinct({ download: o.downloadKbps, upload: o.uploadKbps })
      .from(o)
      .where(ofSources)
      .orderBy(asc(o.downloadKbps), asc(o.uploadKbps))
      .prepare(),
    contractTerms: distinct(o.contractTermMonths),
  };
});

const enabledSources = preparedQuery((db) =>
  db
    .select()
    .from(sources)
    .where(
      and(
        eq(sources.instanceId, sql.placeholder('instanceId')),
        eq(sources.enabled, true),
        sql`exists (select 1 from json_each(${sources.countryCodes}) where value = ${sql.placeholder('countryCode')})`,
      ),
    )
    .orderBy(asc(sources.network), asc(sources.name))
    .prepare(),
);

/**
 * Ids of the catalogue areas of an instance that cover an address: by postal-code prefix range when the
 * address has a postal code, otherwise the first area (in catalogue order) listing its city.
 */
export async function coveringAreaIds(
  db: SqliteDb,
  instanceId: string,
  address: { countryCode: string; postalCode: string; city: string },
): Promise<string[]> {
  if (address.postalCode !== '') {
    return areasByPostalCode(db)
      .all({ instanceId, countryCode: address.countryCode, postalCode: address.postalCode })
      .map((row) => row.id);
  }
  if (address.city === '') return [];
  const first = firstAreaByCity(db).get({
    instanceId,
    countryCode: address.countryCode,
    cityLower: address.city.toLowerCase(),
  });
  return first ? [first.id] : [];
}

const areasByPostalCode = preparedQuery((db) => {
  const postalCode = sql.placeholder('postalCode');
  return db
    .selectDistinct({ id: catalogAreas.id })
    .from(catalogAreas)
    .innerJoin(catalogAreaPostalCodeRanges, eq(catalogAreaPostalCodeRanges.areaId, catalogAreas.id))
    .where(
      and(
        eq(catalogAreas.instanceId, sql.placeholder('instanceId')),
        eq(catalogAreas.countryCode, sql.placeholder('countryCode')),
        sql`substr(${postalCode}, 1, length(${catalogAreaPostalCodeRanges.fromPrefix})) between ${catalogAreaPostalCodeRanges.fromPrefix} and ${catalogAreaPostalCodeRanges.toPrefix}`,
      ),
    )
    .prepare();
});

const firstAreaByCity = preparedQuery((db) =>
  db
    .select({ id: catalogAreas.id })
    .from(catalogAreas)
    .innerJoin(catalogAreaCities, eq(catalogAreaCities.areaId, catalogAreas.id))
    .where(
      and(
        eq(catalogAreas.instanceId, sql.placeholder('instanceId')),
        eq(catalogAreas.countryCode, sql.placeholder('countryCode')),
        eq(catalogAreaCities.cityLower, sql.placeholder('cityLower')),
      ),
    )
    .orderBy(asc(catalogAreas.position))
    .limit(boundLimit(1))
    .prepare(),
);

/** A catalogue offer as the catalog source returns it. */
export type CatalogOfferRow = typeof catalogOffers.$inferSelect;

/** The offers of one source that are nationwide or in one of the given areas, in a stable order. */
export async function listSourceOffers(
  db: SqliteDb,
  sourceId: string,
  areaIds: string[],
): Promise<CatalogOfferRow[]> {
  return offersOfSource(db).all({ sourceId, areaIds: JSON.stringify(areaIds) });
}

/** A source's offers for no area (everywhere) or one of `areaIds` (a JSON array, one prepared query). */
const offersOfSource = preparedQuery((db) =>
  db
    .select()
    .from(catalogOffers)
    .where(
      and(
        eq(catalogOffers.sourceId, sql.placeholder('sourceId')),
        or(
          isNull(catalogOffers.areaId),
          sql`${catalogOffers.areaId} in (select value from json_each(${sql.placeholder('areaIds')}))`,
        ),
      ),
    )
    .orderBy(
      asc(catalogOffers.technologyType),
      asc(catalogOffers.connectionType),
      asc(catalogOffers.downloadKbps),
      asc(catalogOffers.uploadKbps),
      asc(catalogOffers.contractTermMonths),
    )
    .prepare(),
);

/** A source to register (an `http` supplier, or a `mef-sonata` seller with its `settings`). */
export type NewSource = Pick<
  SourceRow,
  | 'key'
  | 'name'
  | 'network'
  | 'type'
  | 'countryCodes'
  | 'enabled'
  | 'endpointUrl'
  | 'credentials'
  | 'timeoutMs'
  | 'concurrency'
> & { settings?: StoredSourceSettings | null };

/** Registers a source in an instance. Throws SQLite's UNIQUE error for a taken key (callers check first). */
export async function insertSource(
  db: SqliteDb,
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
  db.insert(sources).values(row).run();
  return row;
}

/** Every source of an instance, by network then name. */
export async function listSources(db: SqliteDb, instanceId: string): Promise<SourceRow[]> {
  return db
    .select()
    .from(sources)
    .where(eq(sources.instanceId, instanceId))
    .orderBy(asc(sources.network), asc(sources.name))
    .all();
}

/** Enables or disables a source of an instance; returns it, or undefined when it is not the instance's. */
export async function setSourceEnabled(
  db: SqliteDb,
  instanceId: string,
  id: string,
  enabled: boolean,
  now: Date,
): Promise<SourceRow | undefined> {
  return db
    .update(sources)
    .set({ enabled, updatedAt: now })
    .where(and(eq(sources.instanceId, instanceId), eq(sources.id, id)))
    .returning()
    .get();
}

/** What {@link replaceSourceSettings} writes: a `mef-sonata` source's settings, split as they are kept. */
export interface SourceSettingsUpdate {
  endpointUrl: string;
  /** The secret; null keeps the stored one. */
  credentials: string | null;
  settings: StoredSourceSettings;
}

/**
 * Replaces the settings of a source of an instance and forgets its hub listeners (they were registered for
 * the settings before; the caller deletes them at the seller), in one transaction.
 *
 * @returns the source before and after, or undefined when it is not the instance's.
 */
export async function replaceSourceSettings(
  db: SqliteDb,
  instanceId: string,
  id: string,
  input: SourceSettingsUpdate,
  now: Date,
): Promise<{ previous: SourceRow; source: SourceRow } | undefined> {
  return db.transaction(
    (tx) => {
      const ofInstance = and(eq(sources.instanceId, instanceId), eq(sources.id, id));
      const previous = tx.select().from(sources).where(ofInstance).get();
      if (!previous) return undefined;
      const source = tx
        .update(sources)
        .set({
          endpointUrl: input.endpointUrl,
          credentials: input.credentials ?? previous.credentials,
          settings: input.settings,
          hubListeners: null,
          updatedAt: now,
        })
        .where(ofInstance)
        .returning()
        .get();
      return { previous, source };
    },
    { behavior: 'immediate' },
  );
}

/** A source's hub listeners as kept (see `StoredHubListeners`), or null (none, or no such source). */
export async function getSourceHubListeners(
  db: SqliteDb,
  sourceId: string,
): Promise<StoredHubListeners | null> {
  const row = db
    .select({ hubListeners: sources.hubListeners })
    .from(sources)
    .where(eq(sources.id, sourceId))
    .get();
  return row?.hubListeners ?? null;
}

/** Keeps (or, with null, forgets) a source's hub listeners; `updated_at` stays: they are not its settings. */
export async function setSourceHubListeners(
  db: SqliteDb,
  sourceId: string,
  listeners: StoredHubListeners | null,
): Promise<void> {
  db.update(sources).set({ hubListeners: listeners }).where(eq(sources.id, sourceId)).run();
}
