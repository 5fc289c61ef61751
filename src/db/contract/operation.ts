/**
 * A dialect's query function without its first parameter (the connection): what the store exposes once
 * `bindOperations` bound it (`src/db/store.ts`).
 */
export type Operation<F> = F extends (db: never, ...args: infer A) => infer R ? (...args: A) => R : never;
