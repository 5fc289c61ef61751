import { eq, type Query, sql } from 'drizzle-orm';
import type { StoredFilters } from '../contract/index.js';
import { shownAddressKeys, shownRequestKeys } from '../shared/availability.js';
import { pickColumns } from '../shared/row-mapping.js';
import type { PostgresDb } from './client.js';
import { type PreparedRecords, prepareRecords } from './prepared-rows.js';
import { addresses, availabilityRequests } from './schema/index.js';

/**
 * Stored filters with their keys in the order the service writes them (`storedFilters`), as the contract's
 * records show them. `jsonb` keeps keys sorted by length, then bytes, so a bandwidth comes back as
 * `{upload, download}`; the REST documents show the stored bandwidths as they are, and a copied deployment
 * must serve the same bytes.
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

/**
 * The selection of an `AvailabilityRequestRecord`: the request's and its address's shown columns, the
 * filters read through {@link canonicalFilters} (in their place: a spread keeps the key order).
 */
export const recordColumns = {
  request: {
    ...pickColumns(availabilityRequests, shownRequestKeys),
    filters: sql`${availabilityRequests.filters}`.mapWith((value: unknown) =>
      canonicalFilters(availabilityRequests.filters.mapFromDriverValue(value) as StoredFilters),
    ),
  },
  address: pickColumns(addresses, shownAddressKeys),
};

/** The join of a request with its address. */
export const withAddress = eq(addresses.id, availabilityRequests.addressId);

/** Requests joined with their addresses, as `AvailabilityRequestRecord`s; add the conditions. */
export function recordQuery(db: PostgresDb) {
  return db.select(recordColumns).from(availabilityRequests).innerJoin(addresses, withAddress);
}

/**
 * `prepareRecords` of {@link recordQuery} with what `complete` adds to it (conditions, order, limit), as
 * the named statement `name`: a prepared read of records. Keep it with `preparedQuery`.
 */
export function prepareRequestRecords<R>(
  db: PostgresDb,
  name: string,
  complete: (query: ReturnType<typeof recordQuery>) => { toSQL(): Query; _: { result: R[] } },
): PreparedRecords<R> {
  return prepareRecords(db, name, recordColumns, complete(recordQuery(db)));
}
