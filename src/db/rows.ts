/**
 * The shapes the store's operations take and return (rows, records, inputs), whichever store serves them.
 * They are declared beside the SQLite queries, from SQLite's tables; the PostgreSQL tables map to the same
 * TypeScript shapes (timestamps as `Date`, JSON as its declared type, money as integer minor units), which
 * the compiler checks where the PostgreSQL store is bound to the `Store` type (`src/db/postgres/store.ts`).
 */

export type { TokenPairInput } from './sqlite/queries/auth.js';
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
} from './sqlite/queries/availability-requests.js';
export type {
  CatalogOfferRow,
  CatalogValueSets,
  NewSource,
  SourceRow,
  SourceSettingsUpdate,
} from './sqlite/queries/catalog.js';
export type { ClaimedTask } from './sqlite/queries/claim-tasks.js';
export type { GatheredProduct, TaskCompletion } from './sqlite/queries/complete-tasks.js';
export type {
  CustomerRecord,
  CustomerRow,
  FinancialDetailsRow,
  NewCustomer,
  ProjectRecord,
  ProjectRow,
} from './sqlite/queries/customers.js';
export type { ChangedRequest, CompletedRequest, RequestProgress } from './sqlite/queries/gathering-tasks.js';
export type { IdempotencyClaim } from './sqlite/queries/idempotency.js';
export type {
  InstanceProductRow,
  NewInstanceProduct,
} from './sqlite/queries/instance-products.js';
export type {
  NewPricePlan,
  PricePlanRow,
  PricePlanWithRules,
} from './sqlite/queries/price-plans.js';
export type {
  NewQuote,
  NewQuoteLine,
  QuoteLineRow,
  QuoteRecord,
  QuoteRow,
} from './sqlite/queries/quotes.js';
export type { SourceOutcome } from './sqlite/queries/request-details.js';
export type {
  InstanceRow,
  NewApplication,
  UserRow,
} from './sqlite/queries/tenancy.js';
export * from './values.js';
