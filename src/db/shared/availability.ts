/**
 * What both stores' availability-request queries share that is not SQL: the shown columns of a record, the
 * new rows of a batch, the monthly-limit rule, and records built from rows in hand.
 */
import { newId } from '../../ids.js';
import type {
  AvailabilityRequestBatch,
  AvailabilityRequestRecord,
  MonthlyLimitCheck,
  MonthlyLimitExceeded,
  ShownAddress,
  ShownRequest,
  SourceOutcome,
  StoredAvailabilityRequestRecord,
} from '../contract/index.js';

/** `keys` as they are, checked at compile time to name every key of `T` (and only keys of `T`). */
const everyKey =
  <T>() =>
  <const K extends readonly (keyof T)[]>(
    keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : never),
  ): K =>
    keys;

/**
 * The columns of a request that the API shows ({@link ShownRequest}), in the order reads select them.
 * Reads of records fetch only these: a list page of 25 spent a third of its SQLite time building the other
 * columns' strings (`npm run bench`, rest-list).
 */
export const shownRequestKeys = everyKey<ShownRequest>()([
  'id',
  'filters',
  'status',
  'sourcesTotal',
  'sourcesFinished',
  'createdAt',
  'updatedAt',
]);

/** The columns of an address that the API shows ({@link ShownAddress}), in the order reads select them. */
export const shownAddressKeys = everyKey<ShownAddress>()([
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

/**
 * The columns of a gathering task a `SourceOutcome` shows (with its request's id, for batch loading), beside
 * the source's name and network and the count of its products.
 */
export const sourceOutcomeTaskKeys = [
  'availabilityRequestId',
  'sourceId',
  'status',
  'attempts',
  'errorCode',
  'errorMessage',
] as const satisfies readonly (keyof (SourceOutcome & { availabilityRequestId: string }))[];

/**
 * The rows of a batch of new requests, with new ids, in the order of `batch.requests`: each address and
 * its request, `completed` when no source matches it, else `pending` (DESIGN.md, "Status"). Their
 * gathering tasks are the dialect's to write (one per source id, in order).
 */
export function newRequestRecords(batch: AvailabilityRequestBatch): StoredAvailabilityRequestRecord[] {
  const { instanceId, now } = batch;
  return batch.requests.map((element) => {
    const addressId = newId('address');
    return {
      address: { id: addressId, instanceId, ...element.address, createdAt: now, updatedAt: now },
      request: {
        id: newId('availabilityRequest'),
        instanceId,
        addressId,
        createdByUserId: batch.userId,
        customerId: element.customerId,
        projectId: element.projectId,
        pricePlanId: element.pricePlanId,
        filters: element.filters,
        status: element.sourceIds.length === 0 ? 'completed' : 'pending',
        sourcesTotal: element.sourceIds.length,
        sourcesFinished: 0,
        createdAt: now,
        updatedAt: now,
      },
    };
  });
}

/** The limit `check` exceeds with `used` requests of the month already made, or undefined when it holds. */
export function exceededLimit(check: MonthlyLimitCheck, used: number): MonthlyLimitExceeded | undefined {
  return used + check.requested > check.limit ? { ...check, used } : undefined;
}

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
