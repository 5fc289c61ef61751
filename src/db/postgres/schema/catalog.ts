import { bigint, boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { type StoredHubListeners, type StoredSourceSettings, sourceTypes } from '../../values.js';
import { idColumn, instant, timestamps } from './columns.js';
import { instances } from './tenancy.js';

/** A source of offers for one network (a supplier's system, or the instance's catalogue of it). */
export const sources = pgTable(
  'sources',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    /** Stable key within the instance, e.g. `kpn-wba`. */
    key: text().notNull(),
    name: text().notNull(),
    /** Network name as published in the options (`KPN`, `Eurofiber`, ...). */
    network: text().notNull(),
    type: text({ enum: sourceTypes }).notNull(),
    /** ISO 3166 alpha-2 codes the source answers for. */
    countryCodes: jsonb().$type<string[]>().notNull(),
    enabled: boolean().notNull().default(true),
    /** Simulated answer time of a catalogue source, in milliseconds. */
    latencyMinMs: integer().notNull().default(0),
    latencyMaxMs: integer().notNull().default(0),
    /** `http` sources: the supplier's availability endpoint; `mef-sonata` sources: the seller's base URL. */
    endpointUrl: text(),
    /**
     * `http` sources: the bearer credential sent to the supplier; `mef-sonata` sources: the OAuth2 client
     * secret. Never returned by any API.
     */
    credentials: text(),
    /** `mef-sonata` sources: the settings besides the base URL and the client secret. */
    settings: jsonb().$type<StoredSourceSettings>(),
    /** `mef-sonata` sources: the hub listeners registered at the seller, so no restart registers again. */
    hubListeners: jsonb().$type<StoredHubListeners>(),
    /** Time allowed for one call to the source, in milliseconds. */
    timeoutMs: integer().notNull().default(10_000),
    /** Calls to the source in flight at once (bulkhead). */
    concurrency: integer().notNull().default(4),
    ...timestamps,
  },
  (t) => [uniqueIndex('sources_instance_key_unique').on(t.instanceId, t.key)],
);

/** A coverage area of the catalogue: postal-code ranges and city names. */
export const catalogAreas = pgTable(
  'catalog_areas',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    key: text().notNull(),
    name: text().notNull(),
    countryCode: text().notNull(),
    /** Order in the imported catalogue; a city-only match takes the first area listing the city. */
    position: integer().notNull(),
  },
  (t) => [uniqueIndex('catalog_areas_instance_key_unique').on(t.instanceId, t.key)],
);

/**
 * Inclusive postal-code prefix range of an area (`1011`–`1018` covers `1016XA`). Its key is an identity
 * that also takes given values, so that a copied SQLite deployment keeps its ids.
 */
export const catalogAreaPostalCodeRanges = pgTable(
  'catalog_area_postal_code_ranges',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    areaId: text()
      .notNull()
      .references(() => catalogAreas.id, { onDelete: 'cascade' }),
    fromPrefix: text().notNull(),
    toPrefix: text().notNull(),
  },
  (t) => [index('catalog_area_ranges_area_idx').on(t.areaId)],
);

/** A city an area covers; matched case-insensitively (used for coordinate-only addresses). */
export const catalogAreaCities = pgTable(
  'catalog_area_cities',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    areaId: text()
      .notNull()
      .references(() => catalogAreas.id, { onDelete: 'cascade' }),
    cityLower: text().notNull(),
  },
  (t) => [index('catalog_area_cities_city_idx').on(t.cityLower)],
);

/**
 * One purchasable offer of a source: technology, connection type, bandwidth and term with its purchase
 * prices in minor currency units. `areaId` null means nationwide.
 */
export const catalogOffers = pgTable(
  'catalog_offers',
  {
    id: idColumn(),
    instanceId: text()
      .notNull()
      .references(() => instances.id),
    sourceId: text()
      .notNull()
      .references(() => sources.id),
    areaId: text().references(() => catalogAreas.id),
    technologyType: text().notNull(),
    connectionType: text().notNull(),
    downloadKbps: integer().notNull(),
    uploadKbps: integer().notNull(),
    contractTermMonths: integer().notNull(),
    purchaseMrcMinor: integer().notNull(),
    purchaseNrcMinor: integer().notNull(),
    currency: text().notNull(),
    createdAt: instant().notNull().defaultNow(),
  },
  (t) => [index('catalog_offers_source_area_idx').on(t.sourceId, t.areaId)],
);
