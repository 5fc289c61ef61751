import { eq, type Query } from 'drizzle-orm';
import { shownAddressKeys, shownRequestKeys } from '../shared/availability.js';
import { pickColumns } from '../shared/row-mapping.js';
import type { SqliteDb } from './client.js';
import { type PreparedTableRows, prepareTableRows, type TableRows } from './prepared-rows.js';
import { addresses, availabilityRequests } from './schema/index.js';

/** The selection of an `AvailabilityRequestRecord`: the request's and its address's shown columns. */
export const recordColumns = {
  request: pickColumns(availabilityRequests, shownRequestKeys),
  address: pickColumns(addresses, shownAddressKeys),
};

/** Requests joined with their addresses, as `AvailabilityRequestRecord`s; add the conditions. */
export function recordQuery(db: SqliteDb) {
  return db
    .select(recordColumns)
    .from(availabilityRequests)
    .innerJoin(addresses, eq(addresses.id, availabilityRequests.addressId));
}

/**
 * {@link prepareTableRows} of {@link recordQuery} with what `complete` adds to it (conditions, order, limit):
 * a prepared read of records. Keep it with `preparedQuery` or `preparedVariants`.
 */
export function prepareRequestRecords(
  db: SqliteDb,
  complete: (query: ReturnType<typeof recordQuery>) => { toSQL(): Query },
): PreparedTableRows<TableRows<typeof recordColumns>> {
  return prepareTableRows(db, recordColumns, complete(recordQuery(db)));
}
