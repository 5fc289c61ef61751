/*
 * PLACEHOLDER (issue 33, being rewritten by hand): Availability requests: requests with their addresses, the list and its pages, products and source outcomes.
 * Derived from the SQLite queries until this file states the contract itself.
 */

import type * as availability_requests from '../sqlite/queries/availability-requests.js';
import type * as request_details from '../sqlite/queries/request-details.js';
import type { Operation } from './operation.js';

export type {
  AddressRow,
  AvailabilityRequestRecord,
  AvailabilityRequestRow,
  MonthlyLimitCheck,
  MonthlyLimitExceeded,
  NewAddress,
  NewAvailabilityRequest,
  ProductRow,
  RequestPosition,
  ShownAddress,
  ShownRequest,
  StoredAvailabilityRequestRecord,
} from '../sqlite/queries/availability-requests.js';
export type { SourceOutcome } from '../sqlite/queries/request-details.js';

/** Availability requests: requests with their addresses, the list and its pages, products and source outcomes. */
export type AvailabilityOperations = {
  insertAvailabilityRequests: Operation<typeof availability_requests.insertAvailabilityRequests>;
  findAvailabilityRequest: Operation<typeof availability_requests.findAvailabilityRequest>;
  findAvailabilityRequestsById: Operation<typeof availability_requests.findAvailabilityRequestsById>;
  countAvailabilityRequests: Operation<typeof availability_requests.countAvailabilityRequests>;
  listAvailabilityRequestsPage: Operation<typeof availability_requests.listAvailabilityRequestsPage>;
  sliceAvailabilityRequests: Operation<typeof availability_requests.sliceAvailabilityRequests>;
  listLatestRequestsOfCustomers: Operation<typeof availability_requests.listLatestRequestsOfCustomers>;
  countRequestsOfCustomers: Operation<typeof availability_requests.countRequestsOfCustomers>;
  listSourceOutcomes: Operation<typeof request_details.listSourceOutcomes>;
  listProductsOfRequests: Operation<typeof request_details.listProductsOfRequests>;
};
