/**
 * A dialect's implementation of one operation of the contract: the connection `D` first, then the
 * operation's own parameters, as `bindOperations` (`src/db/store.ts`) takes it. Typing a dialect's query
 * functions with it keeps their signatures written once, in the contract (`src/db/contract`).
 *
 * @example
 *   export const listSources: Implementation<SqliteDb, CatalogOperations['listSources']> = async (db, id) => …
 */
export type Implementation<D, O extends (...args: never[]) => Promise<unknown>> = (
  db: D,
  ...args: Parameters<O>
) => ReturnType<O>;
