import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../src/errors.js';
import { parseInput } from '../../src/resolvers/validation.js';

const loneHigh = '\ud800';
const loneLow = '\udc00';

function caught(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('parseInput', () => {
  it('when strings and keys at any depth are lone surrogates, then one 422 lists each by its pointer', () => {
    const input = {
      items: [{ name: 'Coolsingel' }, { name: `a${loneHigh}` }],
      [`key${loneLow}`]: 'x',
      nested: { deeper: [['ok', loneLow]] },
    };

    const error = caught(() => parseInput(z.unknown(), input, 'Bad text.'));

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'VALIDATION',
      message: 'Bad text.',
      problems: [
        { path: '/items/1/name', message: 'is not valid Unicode text' },
        { path: `/key${loneLow}`, message: 'is not valid Unicode text' },
        { path: '/nested/deeper/0/1', message: 'is not valid Unicode text' },
      ],
    });
  });

  it('when every string is well formed, then the schema decides and its output is returned', () => {
    const schema = z.strictObject({ name: z.string().min(1), tags: z.array(z.string()) });

    expect(parseInput(schema, { name: 'Zuidas 😀', tags: ['a', 'b'] })).toEqual({
      name: 'Zuidas 😀',
      tags: ['a', 'b'],
    });
    expect(caught(() => parseInput(schema, { name: '', tags: [] }))).toMatchObject({
      code: 'VALIDATION',
      problems: [{ path: '/name' }],
    });
  });
});
