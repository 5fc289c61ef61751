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

/** The join of a request with its address. */
export const withAddress = eq(addresses.id, availabilityRequests.addressId);

const recordQuery = (db: SqliteDb) =>
  db.select(recordColumns).from(availabilityRequests).innerJoin(addresses, withAddress);

/**
 * {@link prepareTableRows} of the requests joined with their addresses, with what `complete` adds to that
 * query (conditions, order, limit): a prepared read of records. Keep it with `preparedQuery` or
 * `preparedVariants`.
 */
export function prepareRequestRecords(
  db: SqliteDb,
  complete: (query: ReturnType<typeof recordQuery>) => { toSQL(): Query },
): PreparedTableRows<TableRows<typeof recordColumns>> {
  return prepareTableRows(db, recordColumns, complete(recordQuery(db)));
}
