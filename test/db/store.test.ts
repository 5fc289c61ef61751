import { describe, expect, it } from 'vitest';
import * as postgresQueries from '../../src/db/postgres/queries/index.js';
import * as sqliteQueries from '../../src/db/sqlite/queries/index.js';
import { bindOperations } from '../../src/db/store.js';

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
    const bound = bindOperations('handle', {
      findQuote: async (...args: unknown[]) => {
        calls.push(args);
        return undefined;
      },
    });

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
});
