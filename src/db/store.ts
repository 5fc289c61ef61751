import type pg from 'pg';
import { AppError, DependencyUnavailableError } from '../errors.js';
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
  /** Whether the database answers a trivial query now (readiness, `/readyz`, `store_up`); never throws. */
  ping(): Promise<boolean>;
  /** Closes the connection (SQLite: stops WAL checkpoints and checkpoints; PostgreSQL: ends the pool). */
  close(): Promise<void>;
}

/** Whether `value` (a string, or strings at any depth of arrays and plain objects) holds U+0000. */
function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  // Loops, not `some` over `Object.values`: every store call walks its arguments, a create's batch of 100
  // requests with their addresses among them, and the copies and closures showed in its profile (issue 50).
  if (Array.isArray(value)) {
    for (const item of value) if (holdsNul(item)) return true;
    return false;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) if (holdsNul((value as Record<string, unknown>)[key])) return true;
  return false;
}

/**
 * The driver's own error under `error`: the innermost `cause` (drizzle wraps a failed statement's error in a
 * `DrizzleQueryError` whose message holds the statement and its parameters, which the log need not keep).
 */
function driverError(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 4 && current instanceof Error && current.cause instanceof Error; depth++) {
    current = current.cause;
  }
  return current;
}

/**
 * Binds every function of a `queries` module to `db`: `{ f(db, ...args) }` becomes `{ f(...args) }`.
 *
 * Text holding a NUL character (U+0000) is refused before it reaches either database, with a `VALIDATION`
 * error: PostgreSQL's `text` cannot hold it (SQLSTATE 22021), and the SQLite store refuses it alike so that
 * both answer one input the same way — an id such as `"\u0000"` from a client is a 422, never a 500.
 * Inputs that pass `parseInput` were checked already (`src/resolvers/validation.ts`); this covers ids and
 * the other strings that reach the store unparsed.
 *
 * An error the dialect's `unavailable` recognises (the server unreachable or restarting, the SQLite file
 * busy or full: nothing committed, nothing the caller did wrong) becomes a {@link DependencyUnavailableError}
 * with the driver's own error as its `cause`: REST answers it 503 with `Retry-After`, GraphQL `UNAVAILABLE`, and
 * the workers pause instead of failing their tasks (issue 48). Any other error passes unchanged.
 */
export function bindOperations<D, M extends object>(
  db: D,
  queries: M,
  unavailable: (error: unknown) => boolean,
): { [K in keyof M]: Operation<M[K]> } {
  const bound: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(queries)) {
    if (typeof value !== 'function') continue;
    const operation = value as (db: D, ...args: unknown[]) => Promise<unknown>;
    bound[name] = async (...args: unknown[]) => {
      if (holdsNul(args))
        throw new AppError('VALIDATION', 'Text may not contain the NUL character (U+0000).');
      try {
        return await operation(db, ...args);
      } catch (error) {
        throw unavailable(error)
          ? new DependencyUnavailableError('store', { cause: driverError(error) })
          : error;
      }
    };
  }
  return bound as { [K in keyof M]: Operation<M[K]> };
}
