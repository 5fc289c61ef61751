import type pg from 'pg';
import { AppError } from '../errors.js';
import type { StoreOperations } from './contract/index.js';
import type { PostgresDb } from './postgres/client.js';
import type { SqliteDb } from './sqlite/client.js';

export type { StoreOperations } from './contract/index.js';

/** A dialect's query function without its first parameter (the connection): what `bindOperations` makes of it. */
export type Operation<F> = F extends (db: never, ...args: infer A) => infer R ? (...args: A) => R : never;

/**
 * The connection behind a store, for the few callers inside `src/db` and the tests that need the dialect's
 * own handle (WAL checkpoints, the SQLite → PostgreSQL copy, assertions on stored rows).
 */
export type StoreConnection =
  | { readonly dialect: 'sqlite'; readonly db: SqliteDb }
  | { readonly dialect: 'postgres'; readonly db: PostgresDb; readonly pool: pg.Pool };

/**
 * The gateway's database: the embedded SQLite file or a PostgreSQL server, chosen once at start from
 * `DATABASE_URL` (`src/db/open.ts`). Resolvers, gathering, REST and GraphQL see only this type.
 */
export interface Store extends StoreOperations {
  readonly connection: StoreConnection;
  /** Whether the database answers a trivial query now (readiness, `/readyz`); never throws. */
  ping(): Promise<boolean>;
  /** Closes the connection (SQLite: stops WAL checkpoints and checkpoints; PostgreSQL: ends the pool). */
  close(): Promise<void>;
}

/** Whether `value` (a string, or strings at any depth of arrays and plain objects) holds U+0000. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).some(holdsNul);
  }
  return false;
}

/**
 * Binds every function of a `queries` module to `db`: `{ f(db, ...args) }` becomes `{ f(...args) }`.
 *
 * Text holding a NUL character (U+0000) is refused before it reaches either database, with a `VALIDATION`
 * error: PostgreSQL's `text` cannot hold it (SQLSTATE 22021), and the SQLite store refuses it alike so that
 * both answer one input the same way — an id such as `"\u0000"` from a client is a 422, never a 500.
 * Inputs that pass `parseInput` were checked already (`src/resolvers/validation.ts`); this covers ids and
 * the other strings that reach the store unparsed.
 */
export function bindOperations<D, M extends object>(db: D, queries: M): { [K in keyof M]: Operation<M[K]> } {
  const bound: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(queries)) {
    if (typeof value !== 'function') continue;
    const operation = value as (db: D, ...args: unknown[]) => Promise<unknown>;
    bound[name] = (...args: unknown[]) =>
      holdsNul(args)
        ? Promise.reject(new AppError('VALIDATION', 'Text may not contain the NUL character (U+0000).'))
        : operation(db, ...args);
  }
  return bound as { [K in keyof M]: Operation<M[K]> };
}
