export * from './availability.js';
export * from './catalog.js';
export * from './customers.js';
export * from './idempotency.js';
export * from './list-totals.js';
export * from './outbox.js';
export * from './quotes.js';
export * from './tenancy.js';
