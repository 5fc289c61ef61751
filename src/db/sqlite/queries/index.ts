/**
 * Every operation of the SQLite store: the query functions of this folder, each taking the connection
 * first. `src/db/store.ts` derives the {@link Store} type from this list, and the PostgreSQL store's list
 * (`src/db/postgres/queries/index.ts`) must match it name for name and signature for signature.
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
export * from './price-plans.js';
export * from './quotes.js';
export * from './request-details.js';
export * from './tenancy.js';
