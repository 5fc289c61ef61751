/*
 * The catalogue operations on SQLite; each function implements the operation of its name documented in
 * `CatalogOperations` (src/db/contract/catalog.ts). Hot reads are prepared once per handle; lists of ids
 * go in as one JSON array parameter (`json_each`), so one statement serves any number of them.
 */
import { and, asc, eq, isNull, or, sql } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { catalogImportRows, chunks, newSourceRow } from '../../shared/catalog.js';
import { valueSetsCache } from '../../shared/value-sets.js';
import { boundLimit } from '../bound-limit.js';
import type { SqliteDb } from '../client.js';
import type { Op } from '../operation.js';
import { preparedQuery } from '../prepared.js';
import { prepareTableRows } from '../prepared-rows.js';
import {
  catalogAreaCities,
  catalogAreaPostalCodeRanges,
  catalogAreas,
  catalogOffers,
  sources,
} from '../schema/index.js';

/** Multi-row inserts (`chunks`): one statement per chunk instead of one per row. */
export const importCatalog: Op<'importCatalog'> = async (db, instanceId, catalog, now) => {
  return db.transaction(
    (tx) => {
      const rows = catalogImportRows(instanceId, catalog, now);
      for (const chunk of chunks(rows.sources)) tx.insert(sources).values(chunk).run();
      for (const chunk of chunks(rows.areas)) tx.insert(catalogAreas).values(chunk).run();
      for (const chunk of chunks(rows.ranges)) tx.insert(catalogAreaPostalCodeRanges).values(chunk).run();
      for (const chunk of chunks(rows.cities)) tx.insert(catalogAreaCities).values(chunk).run();
      for (const chunk of chunks(rows.offers)) tx.insert(catalogOffers).values(chunk).run();
      return { sources: rows.sources.length, areas: rows.areas.length, offers: rows.offers.length };
    },
    { behavior: 'immediate' },
  );
};

export const listEnabledSources: Op<'listEnabledSources'> = async (db, instanceId, countryCode) =>
  enabledSources(db)
    .all({ instanceId, countryCode })
    .map((row) => row.source);

const valueSetsRead = valueSetsCache<SqliteDb>();

/**
 * Four DISTINCT scans, ~2 ms for an instance of the NL demo catalogue (`npm run bench`): every availability
 * request checks its filters against them, hence `valueSetsCache`.
 */
export const catalogValueSets: Op<'catalogValueSets'> = async (db, sourceIds) => {
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
};

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

const sourceRow = { source: sources };

/**
 * Read by every create: rows mapped by `prepareTableRows` — drizzle's per-value mapping of the instance's
 * sources was about 2 % of a create of 100 requests (`npm run bench`, rest-create-100, issue 50).
 */
const enabledSources = preparedQuery((db) =>
  prepareTableRows(
    db,
    sourceRow,
    db
      .select(sourceRow)
      .from(sources)
      .where(
        and(
          eq(sources.instanceId, sql.placeholder('instanceId')),
          eq(sources.enabled, true),
          sql`exists (select 1 from json_each(${sources.countryCodes}) where value = ${sql.placeholder('countryCode')})`,
        ),
      )
      .orderBy(asc(sources.network), asc(sources.name)),
  ),
);

export const coveringAreaIds: Op<'coveringAreaIds'> = async (db, instanceId, address) => {
  const { countryCode, postalCode } = address;
  if (postalCode !== '') {
    return areaQueries(db)
      .byPostalCode.all({ instanceId, countryCode, postalCode })
      .map((row) => row.id);
  }
  if (address.city === '') return [];
  const first = areaQueries(db).firstByCity.get({
    instanceId,
    countryCode,
    cityLower: address.city.toLowerCase(),
  });
  return first ? [first.id] : [];
};

/** The area lookups of {@link coveringAreaIds}: by postal-code prefix range, and the first by city. */
const areaQueries = preparedQuery((db) => {
  const a = catalogAreas;
  const r = catalogAreaPostalCodeRanges;
  const ofCountry = and(
    eq(a.instanceId, sql.placeholder('instanceId')),
    eq(a.countryCode, sql.placeholder('countryCode')),
  );
  const postalCode = sql.placeholder('postalCode');
  return {
    byPostalCode: db
      .selectDistinct({ id: a.id })
      .from(a)
      .innerJoin(r, eq(r.areaId, a.id))
      .where(
        and(
          ofCountry,
          sql`substr(${postalCode}, 1, length(${r.fromPrefix})) between ${r.fromPrefix} and ${r.toPrefix}`,
        ),
      )
      .prepare(),
    firstByCity: db
      .select({ id: a.id })
      .from(a)
      .innerJoin(catalogAreaCities, eq(catalogAreaCities.areaId, a.id))
      .where(and(ofCountry, eq(catalogAreaCities.cityLower, sql.placeholder('cityLower'))))
      .orderBy(asc(a.position))
      .limit(boundLimit(1))
      .prepare(),
  };
});

export const listSourceOffers: Op<'listSourceOffers'> = async (db, sourceId, areaIds) =>
  offersOfSource(db).all({ sourceId, areaIds: JSON.stringify(areaIds) });

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

/** A taken key throws SQLite's UNIQUE constraint error. */
export const insertSource: Op<'insertSource'> = async (db, instanceId, input, now) => {
  const row = newSourceRow(instanceId, input, now);
  db.insert(sources).values(row).run();
  return row;
};

export const listSources: Op<'listSources'> = async (db, instanceId) => {
  return db
    .select()
    .from(sources)
    .where(eq(sources.instanceId, instanceId))
    .orderBy(asc(sources.network), asc(sources.name))
    .all();
};

export const setSourceEnabled: Op<'setSourceEnabled'> = async (db, instanceId, id, enabled, now) => {
  return db
    .update(sources)
    .set({ enabled, updatedAt: now })
    .where(and(eq(sources.instanceId, instanceId), eq(sources.id, id)))
    .returning()
    .get();
};

/** One write transaction (`BEGIN IMMEDIATE`): no other writer between the read and the update. */
export const replaceSourceSettings: Op<'replaceSourceSettings'> = async (db, instanceId, id, input, now) => {
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
};

export const getSourceHubListeners: Op<'getSourceHubListeners'> = async (db, sourceId) => {
  const row = db
    .select({ hubListeners: sources.hubListeners })
    .from(sources)
    .where(eq(sources.id, sourceId))
    .get();
  return row?.hubListeners ?? null;
};

export const setSourceHubListeners: Op<'setSourceHubListeners'> = async (db, sourceId, listeners) => {
  db.update(sources).set({ hubListeners: listeners }).where(eq(sources.id, sourceId)).run();
};
