import type { StoreOperations } from '../contract/index.js';
import type { Implementation } from '../shared/implementation.js';
import type { SqliteDb } from './client.js';

/**
 * An operation of the contract (`StoreOperations`, src/db/contract) as SQLite implements it: the connection
 * first, then the operation's own parameters, its result as the contract says.
 */
export type Op<K extends keyof StoreOperations> = Implementation<SqliteDb, StoreOperations[K]>;
