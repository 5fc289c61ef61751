import type { AvailabilityRequestRecord, ShownAddress, ShownRequest } from './rows.js';

/**
 * What the API shows of a request and its address, as every read of the stores returns it: only the
 * shown columns, from whole rows or shown ones. For a record built from rows already in hand — the
 * gathering worker's claimed tasks — instead of reading it again; the compiler keeps the two in step
 * (a shown column added to `ShownRequest` or `ShownAddress` must be added here).
 */
export function shownRecord(request: ShownRequest, address: ShownAddress): AvailabilityRequestRecord {
  return {
    request: {
      id: request.id,
      filters: request.filters,
      status: request.status,
      sourcesTotal: request.sourcesTotal,
      sourcesFinished: request.sourcesFinished,
      createdAt: request.createdAt,
      updatedAt: request.updatedAt,
    },
    address: {
      id: address.id,
      street: address.street,
      city: address.city,
      houseNumber: address.houseNumber,
      houseNumberAddition: address.houseNumberAddition,
      postalCode: address.postalCode,
      countryCode: address.countryCode,
      continentCode: address.continentCode,
      latitude: address.latitude,
      longitude: address.longitude,
      coordinatesPrecision: address.coordinatesPrecision,
    },
  };
}
