import { describe, expect, it } from 'vitest';
import * as postgresQueries from '../../src/db/postgres/queries/index.js';
import * as sqliteQueries from '../../src/db/sqlite/queries/index.js';
import { bindOperations } from '../../src/db/store.js';
import { DependencyUnavailableError } from '../../src/errors.js';

/** The names of a queries module's functions, sorted. */
const operations = (queries: Record<string, unknown>) =>
  Object.keys(queries)
    .filter((name) => typeof queries[name] === 'function')
    .sort();

describe('the Store type’s two implementations', () => {
  it('when both queries folders are listed, then they offer the same operations, name for name', () => {
    // The compiler checks signatures (src/db/postgres/store.ts); this guards the lists at run time too.
    expect(operations(postgresQueries)).toEqual(operations(sqliteQueries));
    expect(operations(sqliteQueries).length).toBeGreaterThan(60);
  });

  it('when an operation is given text holding U+0000, then it is refused as VALIDATION before any SQL', async () => {
    const calls: unknown[][] = [];
    const bound = bindOperations(
      'handle',
      {
        findQuote: async (...args: unknown[]) => {
          calls.push(args);
          return undefined;
        },
      },
      () => false,
    );

    await expect(bound.findQuote('ins_1', 'quo_\u0000')).rejects.toMatchObject({
      code: 'VALIDATION',
      message: 'Text may not contain the NUL character (U+0000).',
    });
    await expect(bound.findQuote('ins_1', { nested: ['a', 'b\u0000'] })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    expect(await bound.findQuote('ins_1', 'quo_1')).toBeUndefined();
    expect(calls).toEqual([['handle', 'ins_1', 'quo_1']]);
  });

  it('when the dialect says an error means the database is unavailable, then it becomes a 503 error with the driver’s error as its cause', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const broken = new Error('syntax error at or near "selec"');
    const bound = bindOperations(
      'handle',
      {
        unreachable: async () => {
          throw refused;
        },
        mistaken: async () => {
          throw broken;
        },
        thrownBeforeAnyPromise: (() => {
          throw refused;
        }) as () => Promise<never>,
      },
      (error) => error === refused,
    );

    const unavailable = await bound.unreachable().catch((error: unknown) => error);
    expect(unavailable).toBeInstanceOf(DependencyUnavailableError);
    expect(unavailable).toMatchObject({
      code: 'UNAVAILABLE',
      dependency: 'store',
      retryAfterSeconds: 5,
      message: 'The database is unavailable; try again in a few seconds.',
      cause: refused,
    });
    await expect(bound.thrownBeforeAnyPromise()).rejects.toBeInstanceOf(DependencyUnavailableError);
    await expect(bound.mistaken()).rejects.toBe(broken);
  });
});
