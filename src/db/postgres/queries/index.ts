/**
 * Every operation of the PostgreSQL store: the query functions of this folder, each taking the connection
 * first, name for name and signature for signature the contract's (`src/db/contract`; checked where
 * `src/db/postgres/store.ts` binds them to the `StoreOperations` type).
 */
export * from './auth.js';
export * from './availability-requests.js';
export * from './catalog.js';
export * from './claim-tasks.js';
export * from './complete-tasks.js';
export * from './customers.js';
export * from './gathering-tasks.js';
export * from './idempotency.js';
export * from './instance-products.js';
export * from './order-marks.js';
export * from './orders.js';
export * from './outbox.js';
export * from './price-plans.js';
export * from './quotes.js';
export * from './request-details.js';
export * from './supplier-order-steps.js';
export * from './tenancy.js';
