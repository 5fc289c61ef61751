/**
 * The shapes the store's operations take and return (rows, records, inputs), whichever store serves them:
 * the contract's (`src/db/contract`), for the code outside `src/db`.
 */
export * from './contract/index.js';
