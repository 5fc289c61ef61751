export * from './availability.js';
export * from './catalog.js';
export * from './customers.js';
export * from './quotes.js';
export * from './tenancy.js';
