import { eq, sql } from 'drizzle-orm';
import type { StoredFilters } from '../rows.js';
import type { PostgresDb } from './client.js';
import { addresses, availabilityRequests } from './schema/index.js';

/**
 * Stored filters with their keys in the order `storedFilters` writes them, which SQLite's JSON text keeps.
 * `jsonb` keeps keys sorted by length, then bytes, so a bandwidth comes back as `{upload, download}`; the
 * REST documents show the stored bandwidths as they are, and a copied deployment must serve the same bytes.
 */
export function canonicalFilters(stored: StoredFilters): StoredFilters {
  return {
    bandwidths: stored.bandwidths.map(({ download, upload }) => ({ download, upload })),
    networks: stored.networks,
    contractTerms: stored.contractTerms,
    connectionTypes: stored.connectionTypes,
    technologyTypes: stored.technologyTypes,
  };
}

/** The columns of a request that the API shows, as the SQLite store reads them. */
export const shownRequestColumns = {
  id: availabilityRequests.id,
  filters: sql`${availabilityRequests.filters}`.mapWith((value: unknown) =>
    canonicalFilters(availabilityRequests.filters.mapFromDriverValue(value) as StoredFilters),
  ),
  status: availabilityRequests.status,
  sourcesTotal: availabilityRequests.sourcesTotal,
  sourcesFinished: availabilityRequests.sourcesFinished,
  createdAt: availabilityRequests.createdAt,
  updatedAt: availabilityRequests.updatedAt,
};
/** The columns of an address that the API shows. */
export const shownAddressColumns = {
  id: addresses.id,
  street: addresses.street,
  city: addresses.city,
  houseNumber: addresses.houseNumber,
  houseNumberAddition: addresses.houseNumberAddition,
  postalCode: addresses.postalCode,
  countryCode: addresses.countryCode,
  continentCode: addresses.continentCode,
  latitude: addresses.latitude,
  longitude: addresses.longitude,
  coordinatesPrecision: addresses.coordinatesPrecision,
};
/** The selection of an `AvailabilityRequestRecord`: the request's and its address's shown columns. */
export const recordColumns = { request: shownRequestColumns, address: shownAddressColumns };

/** Requests joined with their addresses, as `AvailabilityRequestRecord`s; add the conditions. */
export function recordQuery(db: PostgresDb) {
  return db
    .select(recordColumns)
    .from(availabilityRequests)
    .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId));
}
