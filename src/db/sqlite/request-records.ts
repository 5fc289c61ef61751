import { eq } from 'drizzle-orm';
import type { SqliteDb } from './client.js';
import { pickColumns } from './prepared-rows.js';
import { addresses, availabilityRequests } from './schema/index.js';

/**
 * The columns of a request that the API shows (REST documents, GraphQL fields, events, cursors). Reads of
 * records fetch only these: a list page of 25 spent a third of its SQLite time building the other
 * columns' strings (`npm run bench`, rest-list).
 */
export const shownRequestColumns = pickColumns(availabilityRequests, [
  'id',
  'filters',
  'status',
  'sourcesTotal',
  'sourcesFinished',
  'createdAt',
  'updatedAt',
]);
/** The columns of an address that the API shows. */
export const shownAddressColumns = pickColumns(addresses, [
  'id',
  'street',
  'city',
  'houseNumber',
  'houseNumberAddition',
  'postalCode',
  'countryCode',
  'continentCode',
  'latitude',
  'longitude',
  'coordinatesPrecision',
]);

/** The selection of an `AvailabilityRequestRecord`: the request's and its address's shown columns. */
export const recordColumns = { request: shownRequestColumns, address: shownAddressColumns };

/** Requests joined with their addresses, as `AvailabilityRequestRecord`s; add the conditions. */
export function recordQuery(db: SqliteDb) {
  return db
    .select(recordColumns)
    .from(availabilityRequests)
    .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId));
}
