/**
 * The store's contract: every operation the rest of the code awaits, grouped by domain, with the row and
 * record types they take and return. Both dialects (`src/db/sqlite`, `src/db/postgres`) implement it and are
 * checked against it where they are bound (`sqlite/store.ts`, `postgres/store.ts`); neither is derived from
 * the other.
 */
import type { AvailabilityOperations } from './availability.js';
import type { CatalogOperations } from './catalog.js';
import type { CustomerOperations } from './customers.js';
import type { EventOperations } from './events.js';
import type { GatheringOperations } from './gathering.js';
import type { IdempotencyOperations } from './idempotency.js';
import type { OrderOperations } from './orders.js';
import type { QuoteOperations } from './quotes.js';
import type { SupplierOrderOperations } from './supplier-orders.js';
import type { TenancyOperations } from './tenancy.js';

export * from '../values.js';
export * from './availability.js';
export * from './catalog.js';
export * from './customers.js';
export * from './events.js';
export * from './gathering.js';
export * from './idempotency.js';
export * from './order-terms.js';
export * from './orders.js';
export * from './quotes.js';
export * from './supplier-orders.js';
export * from './tenancy.js';

/** Every operation of the store, whichever dialect serves it. */
export type StoreOperations = TenancyOperations &
  CatalogOperations &
  AvailabilityOperations &
  GatheringOperations &
  CustomerOperations &
  QuoteOperations &
  IdempotencyOperations &
  EventOperations &
  OrderOperations &
  SupplierOrderOperations;
